import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { AppVersion, HypervisorStatus, JanitorReport, LiveConnection } from '../api/admin';
import { errorMessage } from '../domain/text';

/** Longest announcement the form sends, in characters. */
export const MAX_ANNOUNCEMENT_CHARS = 2_000;

export interface AdminDashboardContext {
  /** The announcement being written. */
  draft: string;
  /** The last announcement sent, for the confirmation beside the form. */
  sent: string | null;
  live: LiveConnection[];
  version: AppVersion | null;
  /** The hypervisor's last status; null until it first loads. */
  hypervisor: HypervisorStatus | null;
  /** The last janitor run's findings; null before the first run. */
  report: JanitorReport[] | null;
  /** Whether the last run was a dry run (it only reports). */
  reportDryRun: boolean;
  /** The last failure of each part, shown beside it. */
  errors: {
    live: string | null;
    announce: string | null;
    janitor: string | null;
    hypervisor: string | null;
  };
}

export type AdminDashboardEvent =
  | { type: 'announce.edited'; text: string }
  | { type: 'announce.submitted' }
  | { type: 'live.refreshRequested' }
  | { type: 'hypervisor.refreshRequested' }
  | { type: 'janitor.runRequested'; dryRun: boolean };

const notProvided = (name: string): Error =>
  new Error(`adminDashboardMachine: '${name}' is provided by the app (src/app)`);

/**
 * The admin Dashboard (wire reference §1.8): an announcement to every connection, the live hub
 * connections, a janitor run with its report, the hypervisor's status and the server's version.
 * Each part works on its own, so they are parallel regions: a slow janitor run does not hold up
 * an announcement.
 */
export const adminDashboardMachine = setup({
  types: {
    context: {} as AdminDashboardContext,
    events: {} as AdminDashboardEvent,
  },
  actors: {
    /** POST admin/announce. */
    announce: fromPromise<unknown, { message: string }>(() => {
      throw notProvided('announce');
    }),
    /** GET admin/live. */
    loadLive: fromPromise<LiveConnection[], void>(() => {
      throw notProvided('loadLive');
    }),
    /** GET admin/hypervisor. */
    loadHypervisor: fromPromise<HypervisorStatus, void>(() => {
      throw notProvided('loadHypervisor');
    }),
    /** GET version. */
    loadVersion: fromPromise<AppVersion, void>(() => {
      throw notProvided('loadVersion');
    }),
    /** POST admin/janitor. */
    runJanitor: fromPromise<JanitorReport[], { dryRun: boolean }>(() => {
      throw notProvided('runJanitor');
    }),
  },
  guards: {
    hasDraft: ({ context }) => context.draft.trim() !== '',
  },
}).createMachine({
  id: 'adminDashboard',
  description:
    'The admin Dashboard: announce, live connections, janitor run, hypervisor status and version.',
  context: {
    draft: '',
    sent: null,
    live: [],
    version: null,
    hypervisor: null,
    report: null,
    reportDryRun: true,
    errors: { live: null, announce: null, janitor: null, hypervisor: null },
  },
  type: 'parallel',
  states: {
    announce: {
      initial: 'editing',
      states: {
        editing: {
          on: {
            'announce.edited': {
              actions: assign({
                draft: ({ event }) => event.text.slice(0, MAX_ANNOUNCEMENT_CHARS),
              }),
            },
            'announce.submitted': { guard: 'hasDraft', target: 'sending' },
          },
        },
        sending: {
          tags: ['announcing'],
          invoke: {
            src: 'announce',
            input: ({ context }) => ({ message: context.draft.trim() }),
            onDone: {
              target: 'editing',
              actions: assign(({ context }) => ({
                sent: context.draft.trim(),
                draft: '',
                errors: { ...context.errors, announce: null },
              })),
            },
            onError: {
              target: 'editing',
              actions: assign(({ context, event }) => ({
                errors: { ...context.errors, announce: errorMessage(event.error) },
              })),
            },
          },
        },
      },
    },
    live: {
      initial: 'loading',
      states: {
        loading: {
          tags: ['loadingLive'],
          invoke: {
            src: 'loadLive',
            onDone: {
              target: 'loaded',
              actions: assign(({ context, event }) => ({
                live: event.output,
                errors: { ...context.errors, live: null },
              })),
            },
            onError: {
              target: 'loaded',
              actions: assign(({ context, event }) => ({
                errors: { ...context.errors, live: errorMessage(event.error) },
              })),
            },
          },
        },
        loaded: { on: { 'live.refreshRequested': 'loading' } },
      },
    },
    janitor: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'janitor.runRequested': {
              target: 'running',
              actions: assign({ reportDryRun: ({ event }) => event.dryRun }),
            },
          },
        },
        running: {
          tags: ['janitorRunning'],
          invoke: {
            src: 'runJanitor',
            input: ({ context }) => ({ dryRun: context.reportDryRun }),
            onDone: {
              target: 'idle',
              actions: assign(({ context, event }) => ({
                report: event.output,
                errors: { ...context.errors, janitor: null },
              })),
            },
            onError: {
              target: 'idle',
              actions: assign(({ context, event }) => ({
                errors: { ...context.errors, janitor: errorMessage(event.error) },
              })),
            },
          },
        },
      },
    },
    hypervisor: {
      initial: 'loading',
      states: {
        loading: {
          tags: ['loadingHypervisor'],
          invoke: {
            src: 'loadHypervisor',
            onDone: {
              target: 'loaded',
              actions: assign(({ context, event }) => ({
                hypervisor: event.output,
                errors: { ...context.errors, hypervisor: null },
              })),
            },
            // The last status stays beside the error: running machines do not vanish because
            // one refresh failed.
            onError: {
              target: 'loaded',
              actions: assign(({ context, event }) => ({
                errors: { ...context.errors, hypervisor: errorMessage(event.error) },
              })),
            },
          },
        },
        // Orphans and running machines change with launches and janitor runs: refreshed on
        // request rather than polled, like the live connections.
        loaded: { on: { 'hypervisor.refreshRequested': 'loading' } },
      },
    },
    version: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            src: 'loadVersion',
            onDone: { target: 'loaded', actions: assign({ version: ({ event }) => event.output }) },
            // The version is a nicety: without it the dashboard shows the rest.
            onError: 'loaded',
          },
        },
        loaded: {},
      },
    },
  },
});

export type AdminDashboardActorRef = ActorRefFrom<typeof adminDashboardMachine>;
export type AdminDashboardSnapshot = SnapshotFrom<typeof adminDashboardMachine>;

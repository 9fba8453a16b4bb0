import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';
import { archiveFileName, type ArchiveCandidate } from '../domain/workspaceArchive';

export interface WorkspaceArchiveContext {
  /** Every workspace the admin may export, by name; empty until the list has loaded. */
  workspaces: ArchiveCandidate[];
  /** Why the list of workspaces could not be loaded; null when it was (or is being) loaded. */
  listError: string | null;
  /** The search typed above the list. */
  term: string;
  /** The ids ticked in the list, in the order they were ticked. */
  selected: string[];
  /** Every workspace is exported, whatever is ticked. */
  all: boolean;
  /** What the last import or upload answered (ids added, or "{file}: {why}"); null before one. */
  results: { kind: 'imported' | 'uploaded'; items: string[] } | null;
  /** The confirmation of the last export or download. */
  done: string | null;
  error: string | null;
}

export type WorkspaceArchiveEvent =
  | { type: 'archive.termEdited'; text: string }
  | { type: 'archive.workspaceToggled'; id: string }
  | { type: 'archive.allToggled' }
  | { type: 'archive.exportRequested' }
  | { type: 'archive.downloadRequested' }
  | { type: 'archive.importRequested' }
  | { type: 'archive.uploadRequested'; file: Blob; fileName: string };

/** The ids the server is asked for: `["all"]` alone means every workspace. */
const idsOf = (context: WorkspaceArchiveContext): string[] =>
  context.all ? ['all'] : context.selected;

/** The download's file name, after the workspaces ticked. */
const fileNameOf = (context: WorkspaceArchiveContext): string =>
  archiveFileName({
    all: context.all,
    names: context.selected.map((id) => context.workspaces.find((w) => w.id === id)?.name ?? id),
  });

const notProvided = (name: string): Error =>
  new Error(`workspaceArchiveMachine: '${name}' is provided by the app (src/app)`);

/**
 * Export and import of workspaces as a zip (wire reference §1.8), the admin Dashboard's panel.
 * One operation at a time: each answers with its own confirmation or error, which replaces the
 * last one's.
 */
export const workspaceArchiveMachine = setup({
  types: {
    context: {} as WorkspaceArchiveContext,
    events: {} as WorkspaceArchiveEvent,
  },
  actors: {
    /** POST admin/export: the archive written to the server's folder. */
    exportWorkspaces: fromPromise<unknown, { ids: string[] }>(() => {
      throw notProvided('exportWorkspaces');
    }),
    /** GET workspaces: every workspace, for the list to pick from. */
    loadWorkspaces: fromPromise<ArchiveCandidate[], void>(() => {
      throw notProvided('loadWorkspaces');
    }),
    /** POST admin/download, saved through the browser by the app as `fileName`. */
    downloadArchive: fromPromise<unknown, { ids: string[]; fileName: string }>(() => {
      throw notProvided('downloadArchive');
    }),
    /** GET admin/import. */
    importWorkspaces: fromPromise<string[], void>(() => {
      throw notProvided('importWorkspaces');
    }),
    /** POST admin/upload. */
    uploadArchive: fromPromise<string[], { file: Blob; fileName: string }>(() => {
      throw notProvided('uploadArchive');
    }),
  },
  guards: {
    hasIds: ({ context }) => idsOf(context).length > 0,
  },
  actions: {
    cleared: assign({ done: null, error: null, results: null }),
  },
}).createMachine({
  id: 'workspaceArchive',
  description: 'Export and import of workspaces as a zip: download, export, import and upload.',
  context: {
    workspaces: [],
    listError: null,
    term: '',
    selected: [],
    all: false,
    results: null,
    done: null,
    error: null,
  },
  // The list to pick from is loaded once, while the panel is open, whatever it is doing.
  invoke: {
    src: 'loadWorkspaces',
    onDone: { actions: assign({ workspaces: ({ event }) => event.output }) },
    onError: { actions: assign({ listError: ({ event }) => errorMessage(event.error) }) },
  },
  on: {
    'archive.termEdited': { actions: assign({ term: ({ event }) => event.text }) },
  },
  initial: 'idle',
  states: {
    idle: {
      on: {
        'archive.workspaceToggled': {
          actions: assign({
            selected: ({ context, event }) =>
              context.selected.includes(event.id)
                ? context.selected.filter((id) => id !== event.id)
                : [...context.selected, event.id],
          }),
        },
        'archive.allToggled': { actions: assign({ all: ({ context }) => !context.all }) },
        'archive.exportRequested': { guard: 'hasIds', target: 'exporting', actions: 'cleared' },
        'archive.downloadRequested': {
          guard: 'hasIds',
          target: 'downloading',
          actions: 'cleared',
        },
        'archive.importRequested': { target: 'importing', actions: 'cleared' },
        'archive.uploadRequested': { target: 'uploading', actions: 'cleared' },
      },
    },
    exporting: {
      tags: ['busy'],
      invoke: {
        src: 'exportWorkspaces',
        input: ({ context }) => ({ ids: idsOf(context) }),
        onDone: {
          target: 'idle',
          actions: assign({ done: "Exported to the server's folder (_export)." }),
        },
        onError: {
          target: 'idle',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    downloading: {
      tags: ['busy'],
      invoke: {
        src: 'downloadArchive',
        input: ({ context }) => ({ ids: idsOf(context), fileName: fileNameOf(context) }),
        onDone: {
          target: 'idle',
          actions: assign({ done: ({ context }) => `Downloaded ${fileNameOf(context)}.` }),
        },
        onError: {
          target: 'idle',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    importing: {
      tags: ['busy'],
      invoke: {
        src: 'importWorkspaces',
        onDone: {
          target: 'idle',
          actions: assign({
            results: ({ event }) => ({ kind: 'imported' as const, items: event.output }),
          }),
        },
        onError: {
          target: 'idle',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    uploading: {
      tags: ['busy'],
      invoke: {
        src: 'uploadArchive',
        input: ({ event }) => {
          // Only archive.uploadRequested enters this state.
          const { file, fileName } = event as Extract<
            WorkspaceArchiveEvent,
            { type: 'archive.uploadRequested' }
          >;
          return { file, fileName };
        },
        onDone: {
          target: 'idle',
          actions: assign({
            results: ({ event }) => ({ kind: 'uploaded' as const, items: event.output }),
          }),
        },
        onError: {
          target: 'idle',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
  },
});

export type WorkspaceArchiveActorRef = ActorRefFrom<typeof workspaceArchiveMachine>;
export type WorkspaceArchiveSnapshot = SnapshotFrom<typeof workspaceArchiveMachine>;

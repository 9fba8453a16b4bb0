import {
  assign,
  fromCallback,
  fromEventObservable,
  fromPromise,
  setup,
  type ActorRefFrom,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import type { Alert } from '../api/alerts';
import { errorMessage } from '../domain/text';
import type { AlertRaisedEvent } from '../streams/alerts';

/**
 * How often the list of every workspace's alerts is loaded again: it listens on no channel (an
 * observer may watch many workspaces, and the SPA does not know which), so nothing tells it of a
 * new alert. One workspace's list listens on its observe channel instead.
 */
export const ALERTS_REFRESH_MS = 15_000;

export type AlertsEvent = { type: 'alerts.refreshRequested' } | AlertRaisedEvent;

export interface AlertsInput {
  /** One workspace's alerts, live; null: every workspace the viewer observes, reloaded. */
  workspaceId: string | null;
}

export interface AlertsContext extends AlertsInput {
  /** Newest first, as last loaded; null until they first arrive. */
  alerts: Alert[] | null;
  /** Why the last load failed; null after a load that did not. */
  error: string | null;
}

/**
 * The observers' list of answer-sharing alerts (GET alerts): of one workspace, loaded and then
 * loaded again each time an alert is recorded there (it listens on the workspace's observe
 * channel while it lives); or of every workspace observed, loaded again every
 * ALERTS_REFRESH_MS. A failed load keeps the list it had and says why; Refresh loads it now.
 */
export const alertsMachine = setup({
  types: {
    input: {} as AlertsInput,
    context: {} as AlertsContext,
    events: {} as AlertsEvent,
    // 'loading': a load is under way (the list shows what it had meanwhile). 'live': the list
    // hears of new alerts as they are recorded.
    tags: {} as 'loading' | 'live',
  },
  actors: {
    /** GET alerts[?workspaceId=]; the app provides it. */
    loadAlerts: fromPromise<Alert[], { workspaceId: string | null }>(() => {
      throw new Error('alertsMachine: provide the loadAlerts actor');
    }),
    /** Listens on the workspace's observe channel while it runs; the app provides it. */
    listenToChannel: fromCallback<EventObject, { workspaceId: string }>(() => {
      throw new Error('alertsMachine: provide the listenToChannel actor');
    }),
    /** The alerts recorded in observed workspaces (src/streams/alerts.ts); the app provides it. */
    alertEvents: fromEventObservable<AlertRaisedEvent, void>(() => {
      throw new Error('alertsMachine: provide the alertEvents actor');
    }),
  },
  actions: {
    keepAlerts: assign({ alerts: (_, params: { alerts: Alert[] }) => params.alerts, error: null }),
    keepError: assign({ error: (_, params: { error: unknown }) => errorMessage(params.error) }),
  },
  guards: {
    isOneWorkspace: ({ context }) => context.workspaceId !== null,
  },
  delays: { refreshInterval: ALERTS_REFRESH_MS },
}).createMachine({
  id: 'alerts',
  description:
    "Observers' answer-sharing alerts: one workspace's, reloaded whenever its observe channel tells of a new alert; or every observed workspace's, reloaded every few seconds.",
  context: ({ input }) => ({ ...input, alerts: null, error: null }),
  initial: 'choosing',
  states: {
    choosing: {
      always: [{ guard: 'isOneWorkspace', target: 'oneWorkspace' }, { target: 'everyWorkspace' }],
    },
    oneWorkspace: {
      tags: ['live'],
      invoke: [
        {
          src: 'listenToChannel',
          input: ({ context }) => ({ workspaceId: context.workspaceId! }),
        },
        { src: 'alertEvents' },
      ],
      initial: 'loading',
      states: {
        loading: {
          tags: ['loading'],
          invoke: {
            src: 'loadAlerts',
            input: ({ context }) => ({ workspaceId: context.workspaceId }),
            onDone: {
              target: 'idle',
              // Graph traversals send done events bare: no output is no alert.
              actions: {
                type: 'keepAlerts',
                params: ({ event }) => ({ alerts: event.output ?? [] }),
              },
            },
            onError: {
              target: 'idle',
              actions: { type: 'keepError', params: ({ event }) => ({ error: event.error }) },
            },
          },
          // A newer alert while loading: load again, so the list has it.
          on: { 'alerts.raised': { target: 'loading', reenter: true } },
        },
        idle: {
          on: { 'alerts.raised': 'loading', 'alerts.refreshRequested': 'loading' },
        },
      },
    },
    everyWorkspace: {
      initial: 'loading',
      states: {
        loading: {
          tags: ['loading'],
          invoke: {
            src: 'loadAlerts',
            input: ({ context }) => ({ workspaceId: context.workspaceId }),
            onDone: {
              target: 'idle',
              // Graph traversals send done events bare: no output is no alert.
              actions: {
                type: 'keepAlerts',
                params: ({ event }) => ({ alerts: event.output ?? [] }),
              },
            },
            onError: {
              target: 'idle',
              actions: { type: 'keepError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        idle: {
          after: { refreshInterval: 'loading' },
          on: { 'alerts.refreshRequested': 'loading' },
        },
      },
    },
  },
});

export type AlertsActorRef = ActorRefFrom<typeof alertsMachine>;
export type AlertsSnapshot = SnapshotFrom<typeof alertsMachine>;

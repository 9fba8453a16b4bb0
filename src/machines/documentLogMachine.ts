import {
  enqueueActions,
  fromPromise,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';

export type DocumentLogEvent =
  /** A save elsewhere brought text we do not have, or the hub reconnected: merge the log again. */
  { type: 'log.resyncRequested' };

/**
 * The server's update log, merged (base64), for the replica to merge: `update` is null when the
 * log could not be loaded (spec §8: a document that cannot be loaded is an empty one). `resync`
 * marks a load that repairs missed updates.
 */
export type DocumentLogReport = {
  type: 'document.logLoaded';
  update: string | null;
  resync: boolean;
};

export interface DocumentLogInput {
  workspaceId: string;
  reportTo?: ActorRef<Snapshot<unknown>, DocumentLogReport>;
}

export interface DocumentLogContext {
  workspaceId: string;
  reportTo: DocumentLogInput['reportTo'] | null;
}

/** The merged update of a load's answer, if it gave one. */
const updateOf = (output: unknown): string | null =>
  typeof output === 'object' &&
  output !== null &&
  'update' in output &&
  typeof output.update === 'string'
    ? output.update
    : null;

/**
 * The document's way to the server's log (the co-editing contract): loaded once, as soon as the
 * Document tab first opens, and again on request to resync (one resync at a time; a failed one
 * changes nothing). Each load is reported to the document editor, which merges it into the replica.
 *
 * The reference waits 500 ms first (spec §9 "Document load debounce": its editor follows the
 * route's workspace id, and the wait lets a quick run of route changes settle). Ours is started
 * once per workspace editor, so there is nothing to settle, and the wait cost more than its
 * 500 ms: the timer fell inside Monaco's first script evaluation, which held it back until the
 * script was done, and the text came after both (issue 27). Started at once, the request is out
 * before Monaco's script runs.
 */
export const documentLogMachine = setup({
  types: {
    input: {} as DocumentLogInput,
    context: {} as DocumentLogContext,
    events: {} as DocumentLogEvent,
  },
  actors: {
    /** GET document/{id}/crdt: the server's whole update log, merged (base64). */
    loadCrdt: fromPromise<{ update: string }, { workspaceId: string }>(() => {
      throw new Error("documentLogMachine: 'loadCrdt' is provided by the app (src/app)");
    }),
  },
  actions: {
    report: enqueueActions(
      ({ context, enqueue }, { output, resync }: { output: unknown; resync: boolean }) => {
        if (!context.reportTo) return;
        enqueue.sendTo(context.reportTo, {
          type: 'document.logLoaded',
          update: updateOf(output),
          resync,
        });
      },
    ),
  },
}).createMachine({
  id: 'documentLog',
  description:
    "The server's update log of the document: loaded as soon as the tab first opens (an empty document when that fails), and again on each resync request, one at a time.",
  context: ({ input }) => ({ workspaceId: input.workspaceId, reportTo: input.reportTo ?? null }),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'load',
        src: 'loadCrdt',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: {
          target: 'loaded',
          actions: {
            type: 'report',
            params: ({ event }) => ({ output: event.output, resync: false }),
          },
        },
        onError: {
          target: 'loaded',
          actions: { type: 'report', params: { output: null, resync: false } },
        },
      },
    },
    loaded: { on: { 'log.resyncRequested': 'resyncing' } },
    resyncing: {
      invoke: {
        id: 'resync',
        src: 'loadCrdt',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: {
          target: 'loaded',
          actions: {
            type: 'report',
            params: ({ event }) => ({ output: event.output, resync: true }),
          },
        },
        onError: 'loaded',
      },
    },
  },
});

export type DocumentLogActorRef = ActorRefFrom<typeof documentLogMachine>;
export type DocumentLogSnapshot = SnapshotFrom<typeof documentLogMachine>;

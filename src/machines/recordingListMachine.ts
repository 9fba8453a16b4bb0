import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { Recording } from '../api/recordings';
import { errorMessage } from '../domain/text';

export type RecordingListEvent = { type: 'recordings.retryRequested' };

export interface RecordingListInput {
  gamespaceId: string;
}

export interface RecordingListContext extends RecordingListInput {
  recordings: Recording[];
  error: string | null;
}

/** A gamespace's console recordings (the gamespace browser's Recordings tab): loaded once. */
export const recordingListMachine = setup({
  types: {
    input: {} as RecordingListInput,
    context: {} as RecordingListContext,
    events: {} as RecordingListEvent,
    // 'loading': the list is on its way.
    tags: {} as 'loading',
  },
  actors: {
    /** GET gamespace/{id}/recordings; the app provides it. */
    loadRecordings: fromPromise<Recording[], { gamespaceId: string }>(() => {
      throw new Error('recordingListMachine: provide the loadRecordings actor');
    }),
  },
}).createMachine({
  id: 'recordingList',
  description:
    "A gamespace's console recordings, listed for observers and administrators: loaded once, with Retry after a failure (a viewer outside the gamespace's audience is refused).",
  context: ({ input }) => ({ ...input, recordings: [], error: null }),
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'loadRecordings',
        src: 'loadRecordings',
        input: ({ context }) => ({ gamespaceId: context.gamespaceId }),
        onDone: {
          target: 'loaded',
          // Graph traversals send done events bare: no output is no recording.
          actions: assign({ recordings: ({ event }) => event.output ?? [], error: null }),
        },
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    loaded: {},
    failed: {
      on: { 'recordings.retryRequested': 'loading' },
    },
  },
});

export type RecordingListActorRef = ActorRefFrom<typeof recordingListMachine>;
export type RecordingListSnapshot = SnapshotFrom<typeof recordingListMachine>;

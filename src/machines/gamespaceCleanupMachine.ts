import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';

export type GamespaceCleanupEvent =
  | { type: 'gamespaces.deleteRequested' }
  | { type: 'gamespaces.deleteConfirmed' }
  | { type: 'gamespaces.deleteCancelled' }
  | { type: 'gamespaces.errorDismissed'; index: number };

export interface GamespaceCleanupInput {
  workspaceId: string;
  /** Gamespaces under way when the workspace loaded; none when missing. */
  activeGamespaceCount?: number;
}

export interface GamespaceCleanupContext {
  workspaceId: string;
  activeGamespaceCount: number;
  /** Failures, camel-case split, until dismissed. */
  errors: string[];
}

const notProvided = (name: string): Error =>
  new Error(`gamespaceCleanupMachine: '${name}' is provided by the app (src/app)`);

/**
 * The Templates tab's warning (spec §2): template changes do not reach running gamespaces, so
 * the author may delete them, after confirming (spec §5). With none under way (`none`), or once
 * they are deleted (`deleted`), there is nothing to delete and nothing is offered.
 */
export const gamespaceCleanupMachine = setup({
  types: {
    input: {} as GamespaceCleanupInput,
    context: {} as GamespaceCleanupContext,
    events: {} as GamespaceCleanupEvent,
  },
  guards: {
    hasGamespaces: ({ context }) => context.activeGamespaceCount > 0,
  },
  actors: {
    /** DELETE workspace/{id}/games. */
    endGamespaces: fromPromise<unknown, { workspaceId: string }>(() => {
      throw notProvided('endGamespaces');
    }),
  },
}).createMachine({
  id: 'gamespaceCleanup',
  description:
    "Delete the workspace's gamespaces, after confirmation; failures are listed until dismissed.",
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    activeGamespaceCount: input.activeGamespaceCount ?? 0,
    errors: [],
  }),
  on: {
    'gamespaces.errorDismissed': {
      actions: assign({
        errors: ({ context, event }) => context.errors.filter((_, i) => i !== event.index),
      }),
    },
  },
  initial: 'checking',
  states: {
    checking: {
      always: [{ guard: 'hasGamespaces', target: 'idle' }, { target: 'none' }],
    },
    /** No gamespace of the workspace is under way. */
    none: {},
    idle: { on: { 'gamespaces.deleteRequested': 'confirming' } },
    confirming: {
      on: {
        'gamespaces.deleteConfirmed': 'deleting',
        'gamespaces.deleteCancelled': 'idle',
      },
    },
    deleting: {
      invoke: {
        id: 'endGamespaces',
        src: 'endGamespaces',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: 'deleted',
        onError: {
          target: 'idle',
          actions: assign({
            errors: ({ context, event }) => [...context.errors, errorMessage(event.error)],
          }),
        },
      },
    },
    deleted: {},
  },
});

export type GamespaceCleanupActorRef = ActorRefFrom<typeof gamespaceCleanupMachine>;
export type GamespaceCleanupSnapshot = SnapshotFrom<typeof gamespaceCleanupMachine>;

import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';

export type WorkspaceActionsEvent =
  | { type: 'workspace.cloneRequested' }
  | { type: 'workspace.deleteRequested' }
  /** The user confirmed the clone or delete being asked about. */
  | { type: 'workspace.actionConfirmed' }
  | { type: 'workspace.actionCancelled' }
  /** The user closed the error at `index` of the error box. */
  | { type: 'workspace.actionErrorDismissed'; index: number };

export interface WorkspaceActionsInput {
  workspaceId: string;
}

export interface WorkspaceActionsContext extends WorkspaceActionsInput {
  /** Failed clones and deletes, camel-case split, listed in an error box until dismissed (§8). */
  errors: string[];
}

const notProvided = (name: string): Error =>
  new Error(`workspaceActionsMachine: '${name}' is provided by the app (src/app)`);

/**
 * Clone and Delete on the Settings tab (spec §2, §5 "Confirmation is required", §7, §8). Each asks
 * for confirmation; a clone opens the copy's settings, a delete goes home. Failures are listed in
 * an error box. The editor runs this for as long as it is open (not only while the workspace is
 * shown), so that a delete completes and goes home even after the hub has told the editor that
 * the workspace is gone.
 */
export const workspaceActionsMachine = setup({
  types: {
    input: {} as WorkspaceActionsInput,
    context: {} as WorkspaceActionsContext,
    events: {} as WorkspaceActionsEvent,
    // 'busy': a clone or delete is in flight; the buttons are disabled.
    tags: {} as 'busy',
  },
  actors: {
    /** POST workspace/{id}/clone: the copy's id. */
    cloneWorkspace: fromPromise<{ id: string }, { workspaceId: string }>(() => {
      throw notProvided('cloneWorkspace');
    }),
    /** DELETE workspace/{id}. */
    deleteWorkspace: fromPromise<unknown, { workspaceId: string }>(() => {
      throw notProvided('deleteWorkspace');
    }),
  },
  actions: {
    /** Opens the copy's settings: /topo/{id}/settings. */
    navigateToWorkspace: (_, _params: { workspaceId: string }) => {
      throw notProvided('navigateToWorkspace');
    },
    navigateHome: () => {
      throw notProvided('navigateHome');
    },
    /** Tells the app the user's workspaces changed: the sidebar's lists refresh. */
    announceWorkspacesChanged: () => {
      throw notProvided('announceWorkspacesChanged');
    },
    recordError: assign({
      errors: ({ context }, { error }: { error: unknown }) => [
        ...context.errors,
        errorMessage(error),
      ],
    }),
    dismissError: assign({
      errors: ({ context, event }) =>
        event.type === 'workspace.actionErrorDismissed'
          ? context.errors.filter((_, i) => i !== event.index)
          : context.errors,
    }),
  },
}).createMachine({
  id: 'workspaceActions',
  description:
    "Clone and Delete: each asks for confirmation; a clone opens the copy's settings, a delete goes home; failures are listed in an error box.",
  context: ({ input }) => ({ ...input, errors: [] }),
  on: { 'workspace.actionErrorDismissed': { actions: 'dismissError' } },
  initial: 'idle',
  states: {
    idle: {
      on: {
        'workspace.cloneRequested': 'confirmingClone',
        'workspace.deleteRequested': 'confirmingDelete',
      },
    },
    confirmingClone: {
      on: {
        'workspace.actionConfirmed': 'cloning',
        'workspace.actionCancelled': 'idle',
      },
    },
    cloning: {
      tags: ['busy'],
      invoke: {
        id: 'cloneWorkspace',
        src: 'cloneWorkspace',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: {
          target: 'done',
          actions: [
            'announceWorkspacesChanged',
            {
              type: 'navigateToWorkspace',
              params: ({ event }) => ({ workspaceId: event.output?.id ?? '' }),
            },
          ],
        },
        onError: {
          target: 'idle',
          actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    confirmingDelete: {
      on: {
        'workspace.actionConfirmed': 'deleting',
        'workspace.actionCancelled': 'idle',
      },
    },
    deleting: {
      tags: ['busy'],
      invoke: {
        id: 'deleteWorkspace',
        src: 'deleteWorkspace',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: { target: 'done', actions: ['announceWorkspacesChanged', 'navigateHome'] },
        onError: {
          target: 'idle',
          actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    /** The page is going elsewhere: the copy, or home. */
    done: { type: 'final' },
  },
});

export type WorkspaceActionsActorRef = ActorRefFrom<typeof workspaceActionsMachine>;
export type WorkspaceActionsSnapshot = SnapshotFrom<typeof workspaceActionsMachine>;

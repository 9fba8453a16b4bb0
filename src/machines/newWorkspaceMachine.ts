import { assign, fromPromise, not, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';

export interface CreatedWorkspace {
  id: string;
}

export type NewWorkspaceEvent =
  | { type: 'workspace.createRequested' }
  /** The user closed the alert at `index` of the error list. */
  | { type: 'workspace.errorDismissed'; index: number };

export interface NewWorkspaceContext {
  /** Failures not yet dismissed, oldest first, as shown: camel-case words split. */
  errors: string[];
  /** The workspace just created, which the page then opens. */
  created: CreatedWorkspace | null;
}

export const newWorkspaceMachine = setup({
  types: {
    context: {} as NewWorkspaceContext,
    events: {} as NewWorkspaceEvent,
    // 'busy': the create call is in flight; the button shows a spinner and is disabled.
    tags: {} as 'busy',
  },
  actors: {
    /** POST workspace {name: 'Workspace Title'}. */
    createWorkspace: fromPromise<CreatedWorkspace, void>(() => {
      throw new Error('newWorkspaceMachine: provide the createWorkspace actor');
    }),
  },
  actions: {
    /** Opens the new workspace's settings (/topo/{id}/settings). */
    navigateToWorkspace: (_, _params: { workspace: CreatedWorkspace }) => {
      throw new Error('newWorkspaceMachine: provide the navigateToWorkspace action');
    },
    /** Tells the app the user's workspaces changed: the sidebar's lists refresh. */
    announceWorkspacesChanged: () => {
      throw new Error('newWorkspaceMachine: provide the announceWorkspacesChanged action');
    },
    dismissError: assign({
      errors: ({ context, event }) =>
        event.type === 'workspace.errorDismissed'
          ? context.errors.filter((_, i) => i !== event.index)
          : context.errors,
    }),
  },
  guards: {
    hasErrors: ({ context }) => context.errors.length > 0,
  },
}).createMachine({
  id: 'newWorkspace',
  description:
    "The New Workspace button: creates a workspace titled 'Workspace Title', tells the sidebar and opens its settings; failures are listed as dismissible alerts.",
  context: { errors: [], created: null },
  // Alerts can be closed whatever the machine is doing, including during a new attempt.
  on: { 'workspace.errorDismissed': { actions: 'dismissError' } },
  initial: 'idle',
  states: {
    idle: {
      on: { 'workspace.createRequested': 'creating' },
    },
    creating: {
      tags: ['busy'],
      invoke: {
        id: 'createWorkspace',
        src: 'createWorkspace',
        onDone: {
          target: 'created',
          actions: [
            assign({ created: ({ event }) => event.output }),
            'announceWorkspacesChanged',
            { type: 'navigateToWorkspace', params: ({ event }) => ({ workspace: event.output }) },
          ],
        },
        onError: {
          target: 'failed',
          actions: assign({
            errors: ({ context, event }) => [...context.errors, errorMessage(event.error)],
          }),
        },
      },
    },
    created: { type: 'final' },
    /** Errors are listed until dismissed; a new attempt may start meanwhile. */
    failed: {
      always: { guard: not('hasErrors'), target: 'idle' },
      on: { 'workspace.createRequested': 'creating' },
    },
  },
});

export type NewWorkspaceActorRef = ActorRefFrom<typeof newWorkspaceMachine>;
export type NewWorkspaceSnapshot = SnapshotFrom<typeof newWorkspaceMachine>;

import { fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';

/** The workspace an invitation code let the user join. */
export interface JoinedWorkspace {
  id: string;
}

export interface WorkspaceInvitationInput {
  /** The invitation code from the link /topo/{id}/invite/{code}. */
  code: string;
}

/**
 * Redeems a workspace invitation (spec §2 topo/{id}/invite/{code}): POST worker/{code} once, then
 * the joined workspace's settings. Any failure reads 'Invalid invitation code.' (spec §8), so the
 * reason is not kept.
 */
export const workspaceInvitationMachine = setup({
  types: {
    input: {} as WorkspaceInvitationInput,
    context: {} as WorkspaceInvitationInput,
  },
  actors: {
    /** POST worker/{code}. */
    redeemInvitation: fromPromise<JoinedWorkspace, { code: string }>(() => {
      throw new Error('workspaceInvitationMachine: provide the redeemInvitation actor');
    }),
  },
  actions: {
    /** Opens the joined workspace's settings (/topo/{id}/settings). */
    navigateToWorkspace: (_, _params: { workspace: JoinedWorkspace }) => {
      throw new Error('workspaceInvitationMachine: provide the navigateToWorkspace action');
    },
    /** Tells the app the user's workspaces changed: the sidebar's lists refresh. */
    announceWorkspacesChanged: () => {
      throw new Error('workspaceInvitationMachine: provide the announceWorkspacesChanged action');
    },
  },
}).createMachine({
  id: 'workspaceInvitation',
  description:
    "Redeems a workspace invitation code once: on success opens the workspace's settings, on any failure shows 'Invalid invitation code.'",
  context: ({ input }) => ({ code: input.code }),
  initial: 'redeeming',
  states: {
    redeeming: {
      invoke: {
        id: 'redeemInvitation',
        src: 'redeemInvitation',
        input: ({ context }) => ({ code: context.code }),
        onDone: {
          target: 'redeemed',
          actions: [
            'announceWorkspacesChanged',
            { type: 'navigateToWorkspace', params: ({ event }) => ({ workspace: event.output }) },
          ],
        },
        onError: 'failed',
      },
    },
    redeemed: { type: 'final' },
    failed: { type: 'final' },
  },
});

export type WorkspaceInvitationActorRef = ActorRefFrom<typeof workspaceInvitationMachine>;
export type WorkspaceInvitationSnapshot = SnapshotFrom<typeof workspaceInvitationMachine>;

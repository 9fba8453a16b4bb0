// Who may create workspaces (the server enforces it, the SPA offers New Workspace by it), and
// what a user's own hub channel says about the workspaces they can reach.

/** What the rule reads of a user: the server's actor and the SPA's profile both carry it. */
export interface WorkspaceCreator {
  /** The creator or administrator role. */
  isCreator: boolean;
  /** How many workspaces the user may manage; 0: none (unless a creator). */
  workspaceLimit: number;
  /** A gamespace's in-lab agent, which never authors. */
  isAgent?: boolean;
}

/** Creators always may; others only with a workspace limit above 0; agents never. */
export const mayCreateWorkspaces = (user: WorkspaceCreator): boolean =>
  user.isCreator || (!user.isAgent && user.workspaceLimit > 0);

/** One more workspace now: a creator, or someone who manages fewer than their limit. */
export const canCreateWorkspace = (user: WorkspaceCreator, managed: number): boolean =>
  user.isCreator || (mayCreateWorkspaces(user) && managed < user.workspaceLimit);

/**
 * TopoEvent actions sent to a user's own channel (its id; wire reference §3 lets a user listen
 * there), so that their workspace list follows what others and their other tabs do. The
 * reference sends TopoEvents to workspace channels only; ADDED and REMOVED are ours.
 */
export const USER_TOPO_ACTIONS = {
  /** The user can now reach the workspace: they created it, a clone of it, or joined it. */
  added: 'TOPO.ADDED',
  /** A workspace the user worked on was deleted. */
  deleted: 'TOPO.DELETED',
  /** The user was removed from the workspace's workers. */
  removed: 'TOPO.REMOVED',
} as const;

import type { NewWorkspaceSnapshot } from './newWorkspaceMachine';

export const selectIsCreating = (snapshot: NewWorkspaceSnapshot): boolean =>
  snapshot.hasTag('busy');

export const selectCanCreate = (snapshot: NewWorkspaceSnapshot): boolean =>
  snapshot.can({ type: 'workspace.createRequested' });

/** The context's own array: a stable reference until the list changes. */
export const selectCreateErrors = (snapshot: NewWorkspaceSnapshot): readonly string[] =>
  snapshot.context.errors;

import type { GamespaceCleanupSnapshot } from './gamespaceCleanupMachine';

export const selectIsConfirmingGamespaceDelete = (snapshot: GamespaceCleanupSnapshot): boolean =>
  snapshot.matches('confirming');

export const selectIsDeletingGamespaces = (snapshot: GamespaceCleanupSnapshot): boolean =>
  snapshot.matches('deleting');

export const selectCanRequestGamespaceDelete = (snapshot: GamespaceCleanupSnapshot): boolean =>
  snapshot.can({ type: 'gamespaces.deleteRequested' });

/** The gamespaces were deleted (until the next request). */
export const selectGamespacesDeleted = (snapshot: GamespaceCleanupSnapshot): boolean =>
  snapshot.matches('deleted');

export const selectGamespaceCleanupErrors = (
  snapshot: GamespaceCleanupSnapshot,
): readonly string[] => snapshot.context.errors;

/** Some of the workspace's gamespaces were under way when it loaded: the warning applies. */
export const selectHasGamespaces = (snapshot: GamespaceCleanupSnapshot): boolean =>
  !snapshot.matches('none');

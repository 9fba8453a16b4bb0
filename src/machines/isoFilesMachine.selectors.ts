import type { IsoUsageReport } from '../api/files';
import type { IsoFilesActorRef, IsoFilesSnapshot } from './isoFilesMachine';
import type { UploadQueueActorRef } from './uploadQueueMachine';
import type { WorkspaceEditorSnapshot } from './workspaceEditorMachine';

/** The Files tab's actor of the workspace editor, running once the workspace has loaded. */
export const selectIsoFilesActor = (
  snapshot: WorkspaceEditorSnapshot,
): IsoFilesActorRef | undefined => snapshot.children.files as IsoFilesActorRef | undefined;

/** The upload queue of the Files tab (it runs as long as the tab's actor). */
export const selectUploadQueue = (snapshot: IsoFilesSnapshot): UploadQueueActorRef | undefined =>
  snapshot.children.uploads as UploadQueueActorRef | undefined;

export const selectIsoPaths = (snapshot: IsoFilesSnapshot): readonly string[] =>
  snapshot.context.isos;

export const selectIsIsoListLoading = (snapshot: IsoFilesSnapshot): boolean =>
  snapshot.matches({ list: 'loading' });

export const selectIsoListError = (snapshot: IsoFilesSnapshot): string | null =>
  snapshot.matches({ list: 'failed' }) ? snapshot.context.listError : null;

/** The ISO whose usage is open (loading, shown or failed), else null. */
export const selectUsagePath = (snapshot: IsoFilesSnapshot): string | null =>
  snapshot.matches({ usage: 'closed' }) ? null : snapshot.context.usagePath;

export const selectIsUsageLoading = (snapshot: IsoFilesSnapshot): boolean =>
  snapshot.matches({ usage: 'loading' });

export const selectUsage = (snapshot: IsoFilesSnapshot): IsoUsageReport | null =>
  snapshot.matches({ usage: 'shown' }) ? snapshot.context.usage : null;

export const selectUsageError = (snapshot: IsoFilesSnapshot): string | null =>
  snapshot.matches({ usage: 'failed' }) ? snapshot.context.usageError : null;

/** The ISO waiting for the delete confirmation, else null. */
export const selectDeleteCandidate = (snapshot: IsoFilesSnapshot): string | null =>
  snapshot.matches({ removal: 'confirming' }) ? snapshot.context.deletePath : null;

export const selectIsDeleting = (snapshot: IsoFilesSnapshot): boolean =>
  snapshot.matches({ removal: 'deleting' });

export const selectDeleteError = (snapshot: IsoFilesSnapshot): string | null =>
  snapshot.context.deleteError;

import type { UploadActorRef, UploadSnapshot } from './uploadMachine';
import type { UploadQueueSnapshot } from './uploadQueueMachine';

/** Every upload on the list, in the order chosen (a stable array until the list changes). */
export const selectUploads = (snapshot: UploadQueueSnapshot): readonly UploadActorRef[] =>
  snapshot.context.uploads;

/** Some file is waiting or being sent. */
export const selectIsUploading = (snapshot: UploadQueueSnapshot): boolean =>
  snapshot.hasTag('busy');

/** Some upload has ended and can be cleared from the list. */
export const selectHasEndedUploads = (snapshot: UploadQueueSnapshot): boolean =>
  snapshot.context.ended.length > 0;

export type UploadStatus = 'queued' | 'uploading' | 'succeeded' | 'failed' | 'canceled';

export const selectUploadStatus = (snapshot: UploadSnapshot): UploadStatus =>
  snapshot.value as UploadStatus;

export const selectUploadName = (snapshot: UploadSnapshot): string => snapshot.context.file.name;

export const selectUploadSize = (snapshot: UploadSnapshot): number => snapshot.context.file.size;

export const selectUploadPercent = (snapshot: UploadSnapshot): number => snapshot.context.percent;

export const selectUploadError = (snapshot: UploadSnapshot): string | null =>
  snapshot.context.error;

/** Waiting or being sent: it can still be canceled. */
export const selectCanCancelUpload = (snapshot: UploadSnapshot): boolean =>
  snapshot.can({ type: 'upload.cancelRequested' });

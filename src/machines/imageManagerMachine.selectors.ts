import type { DocumentFile } from '../domain/documentFiles';
import type { ImageError, ImageManagerSnapshot } from './imageManagerMachine';

/** The context's own array: a stable reference until a file comes or goes. */
export const selectDocumentFiles = (snapshot: ImageManagerSnapshot): readonly DocumentFile[] =>
  snapshot.context.files;

export const selectIsLoadingImages = (snapshot: ImageManagerSnapshot): boolean =>
  snapshot.matches('loading');

/** Why the list could not be loaded, while it could not (Retry loads it again). */
export const selectImageLoadError = (snapshot: ImageManagerSnapshot): string | null =>
  snapshot.matches('failed') ? snapshot.context.loadError : null;

/** Files can be chosen once the list is there; while sending, they join the queue. */
export const selectCanUpload = (snapshot: ImageManagerSnapshot): boolean =>
  snapshot.matches('ready');

/** The name of the file being sent, if one is. */
export const selectUploadingName = (snapshot: ImageManagerSnapshot): string | null =>
  snapshot.matches({ ready: { uploads: 'uploading' } })
    ? (snapshot.context.queue[0]?.name ?? null)
    : null;

/** How many accepted files wait behind the one being sent. */
export const selectWaitingUploads = (snapshot: ImageManagerSnapshot): number =>
  Math.max(0, snapshot.context.queue.length - 1);

/** The context's own array: failed uploads and deletes not yet dismissed. */
export const selectImageErrors = (snapshot: ImageManagerSnapshot): readonly ImageError[] =>
  snapshot.context.errors;

/** The file whose delete is being confirmed or carried out. */
export const selectDeleteTarget = (snapshot: ImageManagerSnapshot): string | null =>
  snapshot.context.deleteTarget;

export const selectIsConfirmingDelete = (snapshot: ImageManagerSnapshot): boolean =>
  snapshot.matches({ ready: { removal: 'confirming' } });

export const selectIsDeleting = (snapshot: ImageManagerSnapshot): boolean =>
  snapshot.matches({ ready: { removal: 'deleting' } });

/** Delete is offered while no other delete is being confirmed or carried out. */
export const selectCanRequestDelete = (snapshot: ImageManagerSnapshot): boolean =>
  snapshot.matches({ ready: { removal: 'idle' } });

import type { DiskImage } from '../api/diskImages';
import type { DiskImagesSnapshot } from './diskImagesMachine';
import type { UploadQueueActorRef } from './uploadQueueMachine';

export const selectDiskImages = (s: DiskImagesSnapshot): readonly DiskImage[] => s.context.images;

export const selectIsDiskImageListLoading = (s: DiskImagesSnapshot): boolean =>
  s.matches({ list: 'loading' });

export const selectDiskImageListError = (s: DiskImagesSnapshot): string | null =>
  s.context.listError;

/** The image waiting for the delete confirmation (or being deleted). */
export const selectDiskImageDeleteCandidate = (s: DiskImagesSnapshot): string | null =>
  s.matches({ removal: 'confirming' }) ? s.context.deleteName : null;

export const selectIsDiskImageBusy = (s: DiskImagesSnapshot): boolean =>
  s.matches({ removal: 'deleting' }) || s.matches({ templating: 'creating' });

export const selectDiskImageActionError = (s: DiskImagesSnapshot): string | null =>
  s.context.actionError;

/** The upload queue child (invoked with id `uploads`). */
export const selectDiskImageUploads = (s: DiskImagesSnapshot): UploadQueueActorRef | undefined =>
  s.children.uploads as UploadQueueActorRef | undefined;

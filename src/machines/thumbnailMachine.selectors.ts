import type { ThumbnailSnapshot } from './thumbnailMachine';

/** The picture to show (an object URL), or null. */
export const selectThumbnailUrl = (snapshot: ThumbnailSnapshot): string | null =>
  snapshot.context.url;

/** What stands in for a missing picture: none yet, not allowed, or the last failure. */
export const selectThumbnailPlaceholder = (snapshot: ThumbnailSnapshot): string | null =>
  snapshot.matches('refused')
    ? 'Not allowed'
    : snapshot.context.url
      ? null
      : snapshot.context.error
        ? 'No picture'
        : 'No picture yet';

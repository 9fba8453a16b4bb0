import type { PagedSearchSnapshot } from './pagedSearchMachine';

/** The context's own array: a stable reference until a new page arrives. */
export const selectItems = <TItem>(snapshot: PagedSearchSnapshot<TItem>): readonly TItem[] =>
  snapshot.context.items;

export const selectSearchError = <TItem>(snapshot: PagedSearchSnapshot<TItem>): string | null =>
  snapshot.context.error;

export const selectIsSearchLoading = <TItem>(snapshot: PagedSearchSnapshot<TItem>): boolean =>
  snapshot.hasTag('loading');

/** Spec §5: the pager shows when skip + count >= take (a full page, or any page after the first). */
export const selectShowPager = <TItem>(snapshot: PagedSearchSnapshot<TItem>): boolean =>
  snapshot.context.skip + snapshot.context.items.length >= snapshot.context.take;

/** Spec §5: Next is disabled when count < take. */
export const selectCanNext = <TItem>(snapshot: PagedSearchSnapshot<TItem>): boolean =>
  snapshot.can({ type: 'search.nextRequested' });

export const selectCanPrevious = <TItem>(snapshot: PagedSearchSnapshot<TItem>): boolean =>
  snapshot.can({ type: 'search.previousRequested' });

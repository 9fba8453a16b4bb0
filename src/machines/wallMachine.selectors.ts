import {
  lastActivityText,
  timeLeftText,
  wallOrder,
  wallWorkspaces,
  type WallFilter,
  type WallSort,
} from '../domain/wall';
import type { WallEntry, WallSnapshot } from './wallMachine';

// The wall's snapshot changes every second (its clock). Selectors that tiles use return
// primitives or objects kept while their inputs are the same, so that a tick renders again only
// the countdowns whose text changed, and a refresh only the tiles whose entry changed.

/** One result per input, kept while the input is the same object. */
function memoByRef<I extends object, O>(compute: (input: I) => O): (input: I) => O {
  const kept = new WeakMap<I, O>();
  return (input) => {
    if (!kept.has(input)) kept.set(input, compute(input));
    return kept.get(input) as O;
  };
}

const byId = memoByRef((entries: WallEntry[]) => new Map(entries.map((e) => [e.gamespaceId, e])));

let lastOrder: {
  entries: WallEntry[];
  filter: WallFilter;
  sort: WallSort;
  pinned: string[];
  ids: string[];
} | null = null;

/** The ids of the gamespaces shown, in order: the same array until what decides it changes. */
export function selectWallIds(snapshot: WallSnapshot): string[] {
  const { entries, filter, sort, pinned } = snapshot.context;
  const o = lastOrder;
  if (o && o.entries === entries && o.filter === filter && o.sort === sort && o.pinned === pinned) {
    return o.ids;
  }
  const ids = wallOrder(entries, { filter, sort, pinned });
  // A refresh that changed no order keeps the array, and with it the grid's render.
  const same = o !== null && o.ids.length === ids.length && o.ids.every((id, i) => id === ids[i]);
  lastOrder = { entries, filter, sort, pinned, ids: same ? o.ids : ids };
  return lastOrder.ids;
}

export const selectWallEntry = (snapshot: WallSnapshot, id: string): WallEntry | undefined =>
  byId(snapshot.context.entries).get(id);

export const selectIsPinned = (snapshot: WallSnapshot, id: string): boolean =>
  snapshot.context.pinned.includes(id);

export const selectTimeLeft = (snapshot: WallSnapshot, id: string): string => {
  const entry = selectWallEntry(snapshot, id);
  return entry ? timeLeftText(entry, snapshot.context.now) : '';
};

export const selectLastActivity = (snapshot: WallSnapshot, id: string): string =>
  lastActivityText(selectWallEntry(snapshot, id)?.lastActivity ?? null, snapshot.context.now);

const workspacesOf = memoByRef(wallWorkspaces);

/** The workspaces on the wall, by name, for the workspace filter. */
export const selectWallWorkspaces = (snapshot: WallSnapshot) =>
  workspacesOf(snapshot.context.entries);

export const selectWallFilter = (snapshot: WallSnapshot): WallFilter => snapshot.context.filter;
export const selectWallSort = (snapshot: WallSnapshot): WallSort => snapshot.context.sort;
export const selectWallError = (snapshot: WallSnapshot): string | null => snapshot.context.error;
export const selectWallTotal = (snapshot: WallSnapshot): number => snapshot.context.entries.length;

/** Nothing to show yet: the first answer has not come. */
export const selectIsWallFirstLoading = (snapshot: WallSnapshot): boolean =>
  snapshot.context.loadedAt === null && snapshot.hasTag('loading');

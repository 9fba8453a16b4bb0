/**
 * The instructor wall's rules (GET /api/wall): which gamespaces a filter keeps, in which order
 * they are shown, and what a tile says of a team and of its time. Pinned gamespaces come first;
 * within pinned and unpinned, a raised hand comes before the rest (the longest waiting first),
 * since an instructor must not have to scroll to find who asks for help.
 */
import { sessionCountdown, sessionWindow, type SessionTimes } from './session';
import { clockText, countdownText, isUnsetDate } from './time';

export const WALL_SORTS = ['score', 'timeLeft', 'lastActivity'] as const;
export type WallSort = (typeof WALL_SORTS)[number];

export const isWallSort = (value: unknown): value is WallSort =>
  (WALL_SORTS as readonly unknown[]).includes(value);

/** What the rules read of a wall entry. */
export interface WallTile extends SessionTimes {
  gamespaceId: string;
  workspaceId: string;
  workspaceName: string;
  managerName: string;
  players: ReadonlyArray<{ name: string }>;
  score: number;
  lastActivity: string | null;
  machines: ReadonlyArray<{ name: string }>;
  /** Its open help request, if any. */
  help?: { raisedAt: string } | null;
}

export interface WallFilter {
  /** Only this workspace's gamespaces; null: every workspace's. */
  workspaceId: string | null;
  /** Words that must each appear in a player's, the manager's, the workspace's or a machine's name. */
  text: string;
}

export const NO_WALL_FILTER: WallFilter = { workspaceId: null, text: '' };

/** The player, or the team's players joined; the manager's name when it has no players. */
export function teamName(tile: Pick<WallTile, 'players' | 'managerName'>): string {
  return tile.players.length > 0
    ? tile.players.map((p) => p.name).join(', ')
    : tile.managerName || 'No players';
}

export function matchesWallFilter(tile: WallTile, filter: WallFilter): boolean {
  if (filter.workspaceId !== null && tile.workspaceId !== filter.workspaceId) return false;
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = [
    ...tile.players.map((p) => p.name),
    tile.managerName,
    tile.workspaceName,
    ...tile.machines.map((m) => m.name),
    tile.gamespaceId,
  ]
    .join('\n')
    .toLowerCase();
  return words.every((word) => haystack.includes(word));
}

const timeOf = (date: string | null | undefined): number | null =>
  isUnsetDate(date) ? null : Date.parse(date as string);

/** Missing values go last whichever way a sort runs. */
const byPresent = (a: number | null, b: number | null, descending: boolean): number => {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return descending ? b - a : a - b;
};

/**
 * Highest score first; least time left first (the time left of running gamespaces orders as their
 * expiry does, so the order does not move while the clock ticks; no expiry last); latest activity
 * first (none last). Ties by team name, then id, so that the order is stable between refreshes.
 */
function compareBy(sort: WallSort): (a: WallTile, b: WallTile) => number {
  const key = (tile: WallTile): number | null =>
    sort === 'score'
      ? tile.score
      : sort === 'timeLeft'
        ? timeOf(tile.expirationTime)
        : timeOf(tile.lastActivity);
  const descending = sort !== 'timeLeft';
  return (a, b) => {
    const primary = byPresent(key(a), key(b), descending);
    if (primary !== 0) return primary;
    const an = teamName(a).toLowerCase();
    const bn = teamName(b).toLowerCase();
    if (an !== bn) return an < bn ? -1 : 1;
    return a.gamespaceId < b.gamespaceId ? -1 : a.gamespaceId > b.gamespaceId ? 1 : 0;
  };
}

/** A raised hand first, the one raised longest ago before the others; then `then`. */
const handsFirst =
  (then: (a: WallTile, b: WallTile) => number) =>
  (a: WallTile, b: WallTile): number => {
    const raised = (tile: WallTile) => (tile.help ? (timeOf(tile.help.raisedAt) ?? 0) : null);
    const primary = byPresent(raised(a), raised(b), false);
    return primary !== 0 ? primary : then(a, b);
  };

/**
 * The ids of the tiles the filter keeps, pinned ones first; within each part raised hands first,
 * then the sort's order.
 */
export function wallOrder(
  tiles: readonly WallTile[],
  options: { filter: WallFilter; sort: WallSort; pinned: readonly string[] },
): string[] {
  const pinned = new Set(options.pinned);
  const compare = handsFirst(compareBy(options.sort));
  const kept = tiles.filter((tile) => matchesWallFilter(tile, options.filter));
  const first = kept.filter((t) => pinned.has(t.gamespaceId)).sort(compare);
  const rest = kept.filter((t) => !pinned.has(t.gamespaceId)).sort(compare);
  return [...first, ...rest].map((t) => t.gamespaceId);
}

/** The workspaces on the wall, by name, for its workspace filter. */
export function wallWorkspaces(
  tiles: readonly Pick<WallTile, 'workspaceId' | 'workspaceName'>[],
): Array<{ id: string; name: string }> {
  const byId = new Map(tiles.map((t) => [t.workspaceId, t.workspaceName]));
  return [...byId]
    .map(([id, name]) => ({ id, name }))
    .sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1));
}

/** A tile's time left as the play page counts it down (session.ts), 'No limit' without expiry. */
export function timeLeftText(times: SessionTimes, now: number): string {
  if (sessionWindow(times, now) === 'during' && timeOf(times.expirationTime) === null) {
    return 'No limit';
  }
  return clockText(sessionCountdown(times, now));
}

/** How long ago the latest activity was ('3m ago'), 'No activity yet' without any. */
export function lastActivityText(lastActivity: string | null, now: number): string {
  const at = timeOf(lastActivity);
  return at === null ? 'No activity yet' : `${countdownText(Math.max(0, now - at))} ago`;
}

/** `previous` entries kept where the next load has them unchanged, so that views keep theirs. */
export function reuseUnchanged<T extends { gamespaceId: string }>(
  previous: readonly T[],
  next: readonly T[],
): T[] {
  const before = new Map(previous.map((entry) => [entry.gamespaceId, entry]));
  return next.map((entry) => {
    const old = before.get(entry.gamespaceId);
    return old && JSON.stringify(old) === JSON.stringify(entry) ? old : entry;
  });
}

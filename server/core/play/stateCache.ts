import type { GamespaceTable, PlayerTable } from '../../store/schema';
import type { GameState } from '../gamespaces';
import type { TopologyNode } from '../gameTopology';

// The play page's read (GET /api/gamespace/{id}) is the hottest call of a competition: every
// player's page loads it, on every reload and reconnect. Building it takes five reads (the row,
// its players, the workspace's templates, the machines, the document), so the last one of each
// gamespace is kept, with the row and players it was built from, so that authorization needs no
// read either.
//
// When it is dropped:
// - on every hub message to the gamespace's group, which every change a player can see sends
//   (GameEvent on start, stop, complete, extend, players joining or leaving, grading, the
//   janitor ending it; VmEvent on every machine change and task end), and on every message to
//   its workspace's group (the guide saved or edited, templates changed). Messages reach every
//   server process through the backplane, so a change made through another server drops this
//   one's copy as well;
// - after STATE_CACHE_MS in any case (a change that sends nothing, such as a row edited by
//   hand), and at the gamespace's expiration, where isActive turns false.
// A read that began before a drop of its gamespace never stores what it read.
//
// A workspace's preview (the same read for a workspace id without an active gamespace of the
// caller's) keeps its topology the same way, dropped with its workspace's group: before a
// competition starts every player's page reads it.

/** The longest a kept game state is served without being read again. */
export const STATE_CACHE_MS = 1_000;
const MAX_STATES = 10_000;

export interface KeptState {
  row: GamespaceTable;
  players: PlayerTable[];
  state: GameState;
  until: number;
}

export function createStateCache(options: { ttlMs?: number; max?: number } = {}) {
  const ttl = options.ttlMs ?? STATE_CACHE_MS;
  const max = options.max ?? MAX_STATES;
  const kept = new Map<string, KeptState>();
  const previews = new Map<string, { topology: TopologyNode[]; until: number }>();
  // The kept gamespaces of each workspace: a message to a workspace's group (its guide saved,
  // its templates changed) drops them too.
  const byWorkspace = new Map<string, Set<string>>();
  // Every drop counts; `dropped` has the count at each group's last drop. A read stores its
  // result only if neither its gamespace nor its workspace was dropped since the read began.
  // When `dropped` grows too big it is cleared and `floor` refuses every read begun before.
  let epoch = 0;
  let floor = 0;
  const dropped = new Map<string, number>();

  function remove(id: string) {
    const entry = kept.get(id);
    if (!entry) return;
    kept.delete(id);
    const siblings = byWorkspace.get(entry.row.workspaceId ?? '');
    siblings?.delete(id);
    if (siblings?.size === 0) byWorkspace.delete(entry.row.workspaceId ?? '');
  }

  const droppedSince = (group: string | null, since: number) =>
    group !== null && (dropped.get(group) ?? -1) > since;

  return {
    /** The kept state of a gamespace id, while valid at `now`. */
    get(id: string, now: number): KeptState | undefined {
      const entry = kept.get(id);
      if (!entry) return undefined;
      if (now < entry.until) return entry;
      remove(id);
      return undefined;
    },

    /** Taken before reading, handed to `set`. */
    epoch: () => epoch,

    /** Keeps what a read found at `now`, unless its groups were dropped since `since`. */
    set(entry: Omit<KeptState, 'until'>, options: { now: number; since: number }): void {
      if (ttl <= 0) return;
      const { row } = entry;
      if (options.since < floor) return;
      if (droppedSince(row.id, options.since) || droppedSince(row.workspaceId, options.since)) {
        return;
      }
      const boundary = entry.state.isActive ? row.expirationTime : Infinity;
      remove(row.id);
      if (kept.size >= max) remove(kept.keys().next().value!);
      kept.set(row.id, { ...entry, until: Math.min(options.now + ttl, boundary) });
      const workspace = row.workspaceId ?? '';
      let siblings = byWorkspace.get(workspace);
      if (!siblings) byWorkspace.set(workspace, (siblings = new Set()));
      siblings.add(row.id);
    },

    /** The kept topology of a workspace's preview, while valid at `now`. */
    preview(workspaceId: string, now: number): TopologyNode[] | undefined {
      const entry = previews.get(workspaceId);
      if (entry && now < entry.until) return entry.topology;
      previews.delete(workspaceId);
      return undefined;
    },

    /** Keeps a workspace's preview topology read at `now`, unless dropped since `since`. */
    keepPreview(
      workspaceId: string,
      topology: TopologyNode[],
      options: { now: number; since: number },
    ): void {
      if (ttl <= 0 || options.since < floor || droppedSince(workspaceId, options.since)) return;
      previews.delete(workspaceId);
      if (previews.size >= max) previews.delete(previews.keys().next().value!);
      previews.set(workspaceId, { topology, until: options.now + ttl });
    },

    /**
     * A message to `group`: a gamespace's (its state) or a workspace's (its gamespaces', its
     * preview's).
     */
    forget(group: string): void {
      epoch++;
      remove(group);
      previews.delete(group);
      for (const id of byWorkspace.get(group) ?? []) remove(id);
      if (dropped.size >= max) {
        dropped.clear();
        floor = epoch;
      }
      dropped.set(group, epoch);
    },

    get size() {
      return kept.size;
    },
  };
}

export type StateCache = ReturnType<typeof createStateCache>;

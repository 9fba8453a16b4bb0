import type { UserTable } from '../store/schema';

// Every authenticated request reads its caller's user row (and whether the local sign-in is
// disabled): on a busy server the same few hundred rows, thousands of times a second. The last
// read of each is kept for CALLER_CACHE_MS, as the game states are (play/stateCache.ts):
// - every write to the users or their local accounts through this process's database connection
//   drops them all (store/writeWatch.ts): a role changed, a user disabled or deleted here counts
//   at once on this server;
// - a change made through another server process (or by hand in the database) counts within
//   CALLER_CACHE_MS.
// A read that began before a drop never stores what it read.

/** The longest a caller's row is used without being read again. */
export const CALLER_CACHE_MS = 1_000;
const MAX_CALLERS = 10_000;

export interface Caller {
  row: UserTable | null;
  signInDisabled: boolean;
}

export function createCallerCache(options: { ttlMs?: number; max?: number } = {}) {
  const ttl = options.ttlMs ?? CALLER_CACHE_MS;
  const max = options.max ?? MAX_CALLERS;
  const kept = new Map<string, { caller: Caller; until: number }>();
  let epoch = 0;

  return {
    /** The kept caller `id`, while valid at `now`. */
    get(id: string, now: number): Caller | undefined {
      const entry = kept.get(id);
      if (!entry) return undefined;
      if (now < entry.until) return entry.caller;
      kept.delete(id);
      return undefined;
    },

    /** Where a read begins: what it read is stored only if nothing was dropped since. */
    epoch: () => epoch,

    set(id: string, caller: Caller, since: number, now: number): void {
      if (ttl <= 0 || since !== epoch) return;
      if (kept.size >= max && !kept.has(id)) kept.delete(kept.keys().next().value!);
      kept.set(id, { caller, until: now + ttl });
    },

    /** Drops every kept caller. */
    clear(): void {
      epoch++;
      kept.clear();
    },

    get size() {
      return kept.size;
    },
  };
}

export type CallerCache = ReturnType<typeof createCallerCache>;

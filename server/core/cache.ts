import { realClock, type Clock } from '../clock';

// The distributed cache of the reference system: one-time tickets, invitation codes and locks.
// In memory for a single server; with REDIS_URL several servers share one (redisCache.ts).

export interface Cache {
  get(key: string): Promise<string | null>;
  /** Stores a value for ttlMs; a sliding entry's lifetime restarts on every get. */
  set(key: string, value: string, ttlMs: number, options?: { sliding?: boolean }): Promise<void>;
  /** Reads and deletes in one step, so a single-use value is used once even under races. */
  take(key: string): Promise<string | null>;
  delete(key: string): Promise<void>;
  /** Stores only when absent (a lock); true when this call stored it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  close(): Promise<void>;
}

interface Entry {
  value: string;
  expiresAt: number;
  ttlMs: number;
  sliding: boolean;
}

/** Entries expire on `clock`'s time. */
export function createMemoryCache(clock: Pick<Clock, 'now'> = realClock): Cache {
  const now = () => clock.now();
  const entries = new Map<string, Entry>();
  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  // Expired entries are dropped when read, and swept now and then so unread ones do not pile up.
  const sweep = setInterval(() => {
    const t = now();
    for (const [key, entry] of entries) if (entry.expiresAt <= t) entries.delete(key);
  }, 60_000);
  sweep.unref();

  return {
    async get(key) {
      const entry = live(key);
      if (!entry) return null;
      if (entry.sliding) entry.expiresAt = now() + entry.ttlMs;
      return entry.value;
    },
    async set(key, value, ttlMs, options) {
      entries.set(key, { value, ttlMs, expiresAt: now() + ttlMs, sliding: !!options?.sliding });
    },
    async take(key) {
      const entry = live(key);
      entries.delete(key);
      return entry ? entry.value : null;
    },
    async delete(key) {
      entries.delete(key);
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(key)) return false;
      entries.set(key, { value, ttlMs, expiresAt: now() + ttlMs, sliding: false });
      return true;
    },
    async close() {
      clearInterval(sweep);
      entries.clear();
    },
  };
}

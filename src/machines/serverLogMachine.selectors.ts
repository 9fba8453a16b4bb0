import type { ServerLogEntry } from '../api/admin';
import type { ServerLogSnapshot } from './serverLogMachine';

const newestFirstCache = new WeakMap<readonly ServerLogEntry[], ServerLogEntry[]>();

/** The entries newest first (the server lists them oldest first); the same array until they change. */
export const selectNewestFirst = (s: ServerLogSnapshot): readonly ServerLogEntry[] => {
  const entries = s.context.entries;
  let reversed = newestFirstCache.get(entries);
  if (!reversed) {
    reversed = [...entries].reverse();
    newestFirstCache.set(entries, reversed);
  }
  return reversed;
};
export const selectLogError = (s: ServerLogSnapshot) => s.context.error;
export const selectIsLoadingLog = (s: ServerLogSnapshot) => s.hasTag('loading');

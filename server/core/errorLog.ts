// The server's recent unexpected errors, for administrators (GET /api/admin/log, wire reference
// §0 and §1.8): the reference keeps the last 50 exceptions its middleware answered with 500 in
// memory, per process, and so do we. The full record, with the request's context, stays in the
// server's log; this ring only lets an admin see that something failed without shell access.

/** How many entries a process keeps (the reference's 50); older ones are dropped first. */
export const ERROR_LOG_CAPACITY = 50;

export interface ErrorLogEntry {
  /** When it happened, ISO 8601. */
  timestamp: string;
  /** Ours, not the reference's: 'error' for every entry today, so a client can tell kinds apart. */
  level: 'error';
  message: string;
  stackTrace: string;
  /** Ours: the failed request's id, which leads to its lines in the server's log. */
  requestId: string | null;
}

export interface ErrorLog {
  record(error: unknown, requestId?: string): void;
  /** Entries after `since` (epoch ms), oldest first; all of them when `since` is null. */
  since(since: number | null): ErrorLogEntry[];
}

export function createErrorLog(options: { now: () => number; capacity?: number }): ErrorLog {
  const { now, capacity = ERROR_LOG_CAPACITY } = options;
  const entries: { at: number; entry: ErrorLogEntry }[] = [];
  return {
    record(error, requestId) {
      const at = now();
      const failure = error instanceof Error ? error : new Error(String(error));
      entries.push({
        at,
        entry: {
          timestamp: new Date(at).toISOString(),
          level: 'error',
          message: failure.message || failure.name,
          stackTrace: failure.stack ?? '',
          requestId: requestId ?? null,
        },
      });
      if (entries.length > capacity) entries.splice(0, entries.length - capacity);
    },
    since(since) {
      return entries.filter(({ at }) => since === null || at > since).map(({ entry }) => entry);
    },
  };
}

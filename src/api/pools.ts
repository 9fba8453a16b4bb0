import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';

/** A launch scheduled ahead, for which the pool grows in time (docs/operations.md "Warm pools"). */
export const PoolSchedule = t.type({ count: t.number, at: t.string });
export type PoolSchedule = t.TypeOf<typeof PoolSchedule>;

/** A workspace's warm pool (GET admin/pools, ours): machine sets kept deployed ahead of launches. */
export const WarmPool = t.type({
  workspaceId: t.string,
  /** The workspace's name; null once the workspace is deleted (until the keeper drops the pool). */
  workspaceName: nullable(t.string),
  /** Sets to keep ready; 0: no pool. */
  size: t.number,
  /** What the keeper aims at now: the size, or a scheduled launch count near now. */
  target: t.number,
  ready: t.number,
  warming: t.number,
  failed: t.number,
  claimedLastHour: t.number,
  /** Launches that found no ready set and deployed from cold. */
  misses: t.number,
  schedules: t.array(PoolSchedule),
  /** Why the hypervisor cannot pool the workspace's machines, so none is kept; null when it can. */
  unpoolable: nullable(t.string),
});
export type WarmPool = t.TypeOf<typeof WarmPool>;

/** GET admin/pools: every workspace's pool that has a setting. */
export const listPools =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, WarmPool[]> =>
    http.request(t.array(WarmPool), { method: 'GET', path: 'admin/pools', signal });

/**
 * PUT admin/pools/{workspaceId} with `{ size }` (0 turns the pool off). Refused (400) when the
 * driver cannot keep pools, naming it, or when the size is beyond what the server allows.
 */
export const setPoolSize =
  (http: HttpClient) =>
  (
    request: { workspaceId: string; size: number },
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, WarmPool> =>
    http.request(WarmPool, {
      method: 'PUT',
      path: `admin/pools/${encodeURIComponent(request.workspaceId)}`,
      body: { size: request.size },
      signal,
    });

import { realClock, type Clock } from '../../clock';
import type { HypervisorDriver } from '../../hypervisor';
import type { Repositories } from '../../store/repositories';
import type { WorkspaceTable } from '../../store/schema';
import type { Cache } from '../cache';
import { isoDate, parseDate } from '../dto';
import { DomainError } from '../errors';
import { invalid, unknownArgument } from '../fields';
import { newId } from '../ids';
import { createPoolClaims } from './claims';
import { createKeeper, POOL_MAX_SIZE, SCHEDULE_TAIL_MS } from './keeper';
import { capsOf, demandOf, NO_DEMAND, setsThatFit } from './room';
import { pooledSpecs, unpoolableReason } from './sets';

// Warm pools: per workspace, an administrator sets how many gamespaces' machine sets to keep
// deployed ahead of launches, or schedules launches for which the pool grows in time. The keeper
// (keeper.ts) deploys pooled sets in the background under tags of their own; a launch claims a
// ready set (claims.ts) and has its machines retagged to the gamespace instead of deploying.
// What a set is made of, and the fingerprint that keeps a set made from templates since changed
// from being claimed, is sets.ts; a set's lifecycle is pooledSet.ts.
//
// Variants: a launch claims a set of its gamespace's variant, which is chosen (at random, or as
// the registration asks) before the claim as without a pool; the keeper spreads a pool over the
// variants. Builders' launches never claim (play/lifecycle.ts).

/** "Claimed in the last hour". */
export const CLAIM_WINDOW_MS = 3_600_000;

export interface PoolView {
  workspaceId: string;
  /** The workspace's name, so that a reader need not look it up; null once it is deleted. */
  workspaceName: string | null;
  size: number;
  /** What the keeper aims at now: the size, or a scheduled launch's count. */
  target: number;
  ready: number;
  warming: number;
  failed: number;
  claimedLastHour: number;
  misses: number;
  /** Scheduled launches not past yet, soonest first. */
  schedules: Array<{ count: number; at: string }>;
  /** Why the driver cannot pool the workspace's machines, so none is kept; null when it can. */
  unpoolable: string | null;
}

export type PoolRepositories = Pick<Repositories, 'pools' | 'templates' | 'workspaces'>;

export interface PoolOptions {
  driver: HypervisorDriver;
  cache: Cache;
  clock?: Clock;
  log?: { warn(obj: object, msg: string): void; info?(obj: object, msg: string): void };
  /** How a set's deploy waits for its machines (play's DEPLOY_POLL). */
  deployPoll?: { attempts: number; intervalMs: number };
  keepIntervalMs?: number;
}

export function createPoolService(repos: PoolRepositories, options: PoolOptions) {
  const { driver } = options;
  const clock = options.clock ?? realClock;
  const now = () => clock.now();
  const warn = (err: unknown, msg: string, fields: object = {}) =>
    options.log?.warn({ err, ...fields }, `pools: ${msg}`);

  /** Pools need machines handed from tag to tag, and guest settings changed after deploy. */
  const supported = () => driver.capabilities.retag === true && driver.capabilities.guestChange;

  const keeper = createKeeper({
    repos,
    driver,
    cache: options.cache,
    clock,
    warn,
    supported,
    deployPoll: options.deployPoll,
    keepIntervalMs: options.keepIntervalMs,
  });
  const claims = createPoolClaims({
    repos,
    driver,
    now,
    warn,
    info: (msg, fields) => options.log?.info?.(fields, `pools: ${msg}`),
    supported,
    keep: (workspaceId) => void keeper.keep(workspaceId),
  });

  function requireSupported(): void {
    if (supported()) return;
    throw new DomainError(
      'InvalidOperation',
      `Warm pools need a hypervisor driver that can hand machines from one isolation tag to ` +
        `another; the ${driver.capabilities.kind} driver cannot.`,
    );
  }

  async function requireWorkspace(workspaceId: string): Promise<WorkspaceTable> {
    const ws = await repos.workspaces.find(workspaceId);
    if (!ws) throw unknownArgument('id');
    return ws;
  }

  /** Why the driver cannot pool the workspace's machines, or null. */
  async function unpoolable(ws: WorkspaceTable): Promise<string | null> {
    const templates = await repos.templates.ofWorkspaceWithParentDetail(ws.id);
    return unpoolableReason(driver, ws, templates);
  }

  async function view(workspaceId: string, workspaceName: string | null): Promise<PoolView> {
    const t = now();
    const ws = await repos.workspaces.find(workspaceId);
    const setting = await repos.pools.setting(workspaceId);
    const counts = await repos.pools.counts(workspaceId, t - CLAIM_WINDOW_MS);
    const schedules = await repos.pools.schedulesOf(
      workspaceId,
      t - SCHEDULE_TAIL_MS,
      Number.MAX_SAFE_INTEGER,
    );
    return {
      workspaceId,
      workspaceName,
      size: setting?.size ?? 0,
      target: await keeper.targetOf(workspaceId, setting?.size ?? 0),
      ready: counts.ready,
      warming: counts.warming,
      failed: counts.failed,
      claimedLastHour: counts.claimed,
      misses: setting?.misses ?? 0,
      schedules: schedules.map((s) => ({ count: s.count, at: isoDate(s.at) })),
      unpoolable: ws ? await unpoolable(ws) : null,
    };
  }

  return {
    /** What the play service claims launches' machines through. */
    claims,
    supported,
    keep: keeper.keep,
    settled: keeper.settled,
    start: keeper.start,
    stop: keeper.stop,
    isPoolTag: keeper.isPoolTag,
    reclaim: keeper.reclaim,

    /** GET /api/admin/pools: every workspace's pool that has a setting. */
    async list(): Promise<PoolView[]> {
      const settings = await repos.pools.settings();
      // One query for the names of the pools' workspaces only: there may be thousands of
      // workspaces and a handful of pools. A setting outlives its deleted workspace.
      const ids = settings.map((s) => s.workspaceId);
      const names = new Map((await repos.workspaces.namesOf(ids)).map((w) => [w.id, w.name]));
      return Promise.all(ids.map((id) => view(id, names.get(id) ?? null)));
    },

    /** GET /api/admin/pools/{id}. */
    async get(workspaceId: string): Promise<PoolView> {
      const ws = await requireWorkspace(workspaceId);
      return view(workspaceId, ws.name);
    },

    /**
     * PUT /api/admin/pools/{id}: the pool's size, 0..POOL_MAX_SIZE, refused when the driver
     * cannot run pools, cannot pool the workspace's machines (the view's `unpoolable`), or could
     * never run that many sets and one launch beside them (room.ts); the keeper starts on it at
     * once.
     */
    async setSize(workspaceId: string, size: unknown): Promise<PoolView> {
      const ws = await requireWorkspace(workspaceId);
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
        throw invalid('size', 'must be a whole number, 0 or more');
      }
      if (size > POOL_MAX_SIZE) throw invalid('size', `must be at most ${POOL_MAX_SIZE}`);
      if (size > 0) {
        requireSupported();
        const refusal = await unpoolable(ws);
        if (refusal) throw invalid('size', refusal);
        const templates = await repos.templates.ofWorkspaceWithParentDetail(ws.id);
        const demand = demandOf(pooledSpecs(ws, templates, 0, ''), !!ws.hostAffinity);
        const status = await driver.status();
        if (setsThatFit(status, demand, NO_DEMAND) < size) {
          throw invalid(
            'size',
            `${size} sets of ${demand.machines} machines (${demand.memoryMiB} MiB), and room for ` +
              `one launch beside them, exceed the ${capsOf(status)} the hypervisor may run`,
          );
        }
      }
      await repos.pools.setSize(workspaceId, size, now());
      await keeper.keep(workspaceId);
      return view(workspaceId, ws.name);
    },

    /**
     * POST /api/admin/pools/{id}/schedule: `count` launches at `at`; the pool's target is
     * raised to `count` around that time (keeper.ts SCHEDULE_LEAD_MS, SCHEDULE_TAIL_MS).
     */
    async schedule(workspaceId: string, count: unknown, at: unknown): Promise<PoolView> {
      const ws = await requireWorkspace(workspaceId);
      requireSupported();
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
        throw invalid('count', 'must be a whole number, 1 or more');
      }
      const when = parseDate(at);
      if (when <= 0) throw invalid('at', 'must be a date');
      if (when < now() - SCHEDULE_TAIL_MS) throw invalid('at', 'is past');
      await repos.pools.addSchedule({ id: newId(), workspaceId, count, at: when, created: now() });
      // The pool is kept from now on, if it was not (its size stays 0 unless set).
      if (!(await repos.pools.setting(workspaceId))) {
        await repos.pools.setSize(workspaceId, 0, now());
      }
      await keeper.keep(workspaceId);
      return view(workspaceId, ws.name);
    },

    /**
     * A template was added, changed or removed (of any workspace: the store says which table,
     * not which row): every pool has a round, which drains the sets its templates no longer
     * make. Claims never take such a set meanwhile (their fingerprint differs).
     */
    templatesChanged(): void {
      if (supported()) keeper.keepAllLater();
    },
  };
}

export type PoolService = ReturnType<typeof createPoolService>;

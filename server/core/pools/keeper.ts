import { every, type Clock, type Timer } from '../../clock';
import type { HypervisorDriver, MachineSpec } from '../../hypervisor';
import type { Repositories } from '../../store/repositories';
import type { TemplateWithParentDetail } from '../../store/repositories/templates';
import type { PooledSetTable, WorkspaceTable } from '../../store/schema';
import type { Cache } from '../cache';
import { newId, newToken } from '../ids';
import { deployAndWait, DEPLOY_POLL } from '../play/deploy';
import { leavesFrom } from './pooledSet';
import { demandOf, inUseOf, plus, setsThatFit, type Demand } from './room';
import { fingerprintsOf, pooledSpecs, unpoolableReason } from './sets';
import { MAX_POOL_SIZE } from '../../../src/domain/pools';

// The pool keeper: rounds that keep each workspace's pool at its target. A round drains the sets
// made from templates since changed and those beyond the target, and warms what is missing, each
// new set deployed in the background under its own tag (its id) until ready or failed.
//
// - Target: the size, raised to a scheduled launch's count from SCHEDULE_LEAD_MS before its time
//   until SCHEDULE_TAIL_MS after, capped at POOL_MAX_SIZE.
// - Refills wait until claims have paused for REFILL_SETTLE_MS (the claimed sets' machines first).
// - Room: a set is warmed only when, beside what the driver counts against its caps (running
//   machines, room reserved for deploys under way) and the sets this process is deploying, one
//   launch's room is left (room.ts). Room is decided one round at a time in a process.
// - Machines the driver cannot pool (sets.ts unpoolableReason: on qemu, a template with guest
//   settings on an image without the agent): no set is warmed and the pool's sets are drained; a
//   set whose wait for usable machines taught the driver so fails.
// - Variants: the keeper spreads a pool over the workspace's variants evenly.
// - One round per workspace at a time across servers: a lock in the shared cache (as the
//   janitor's); a server that finds it held leaves that round to the holder, and its own next
//   round catches up. In one process a round asked for while one runs follows it.
// - The janitor reclaims stale and failed sets (reclaim), and leaves pool tags out of its
//   orphaned machines (isPoolTag).

/** The most sets one pool keeps, whatever its size or schedule asks (src/domain/pools.ts). */
export const POOL_MAX_SIZE = MAX_POOL_SIZE;
/**
 * How long claims must have paused before a pool is refilled: the claimed machines and their
 * players' first look at them get the host's cores first (a restore or a boot is heavy work; on a
 * small host it doubled the time to a claimed machine shown running in the browser).
 */
export const REFILL_SETTLE_MS = 5_000;
/** How often every pool is looked after, besides the rounds a claim or a change asks for. */
export const POOL_KEEP_INTERVAL_MS = 15_000;
/** How long one round may hold a workspace's lock before another server may take over. */
export const POOL_LOCK_TTL_MS = 60_000;
/** A scheduled launch raises its pool's target this long before its time... */
export const SCHEDULE_LEAD_MS = 15 * 60_000;
/** ...until this long after. */
export const SCHEDULE_TAIL_MS = 30 * 60_000;
/** A set warming this long is taken for failed (its server went away mid-deploy). */
export const WARMING_STALE_MS = 20 * 60_000;
/** A set drained this long still has its row: its removal was cut short, and is done again. */
export const DRAINED_STALE_MS = 10 * 60_000;
/** Claimed sets are kept for the pool's counts this long. */
export const CLAIMED_KEPT_MS = 86_400_000;

const LOCK_KEY = 'pool:lock:';

export interface KeeperDeps {
  repos: Pick<Repositories, 'pools' | 'templates' | 'workspaces'>;
  driver: HypervisorDriver;
  cache: Cache;
  clock: Clock;
  warn(err: unknown, msg: string, fields?: object): void;
  /** Whether the driver can run pools at all. */
  supported(): boolean;
  /** How a set's deploy waits for its machines (play's DEPLOY_POLL). */
  deployPoll?: { attempts: number; intervalMs: number };
  keepIntervalMs?: number;
}

export function createKeeper(deps: KeeperDeps) {
  const { repos, driver, cache, clock, warn } = deps;
  const now = () => clock.now();
  const background = new Set<Promise<unknown>>();
  /** Workspaces whose round runs in this process, and those asked for again meanwhile. */
  const rounds = new Map<string, Promise<void>>();
  const again = new Set<string>();
  let stopTicks: (() => void) | null = null;
  /** Rounds put off until claims have paused (REFILL_SETTLE_MS), by workspace. */
  const deferred = new Map<string, Timer>();
  let stopped = false;

  function track(work: Promise<unknown>): void {
    const settled = work.catch((err: unknown) => warn(err, 'background work failed'));
    background.add(settled);
    void settled.finally(() => background.delete(settled));
  }

  /** Resolves once no background work of the pools is left. */
  async function settled(): Promise<void> {
    while (background.size) await Promise.all(background);
  }

  /** The size, or the count of a scheduled launch near now, capped. */
  async function targetOf(workspaceId: string, size: number): Promise<number> {
    const t = now();
    const scheduled = await repos.pools.schedulesOf(
      workspaceId,
      t - SCHEDULE_TAIL_MS,
      t + SCHEDULE_LEAD_MS,
    );
    return Math.min(POOL_MAX_SIZE, Math.max(size, ...scheduled.map((s) => s.count)));
  }

  /**
   * Sets being deployed by this process, with what they will run: the driver may not count them
   * yet. Dropped once their deploy has ended (their machines run, or the driver reserves them).
   */
  const deploying = new Map<string, Demand>();
  /** Room is decided one round at a time: two rounds never both take the last room. */
  let roomQueue: Promise<unknown> = Promise.resolve();
  function withRoom(work: () => Promise<void>): Promise<void> {
    const result = roomQueue.then(work);
    roomQueue = result.catch(() => undefined);
    return result;
  }

  /** Deletes a drained set's machines, then forgets it. */
  async function removeSet(id: string): Promise<void> {
    await driver.deleteAll(id);
    await repos.pools.remove(id);
  }

  /** Drains the workspace's sets not claimed (all, or those of `ids`); their machines go. */
  async function drain(workspaceId: string, ids?: string[]): Promise<void> {
    const drained = await repos.pools.drain(workspaceId, leavesFrom('set.drained'), now(), ids);
    for (const set of drained) track(removeSet(set.id));
  }

  /** Deploys a new set under its own tag; ready once every machine is usable, else failed. */
  async function warm(
    ws: WorkspaceTable,
    templatesOfSet: readonly TemplateWithParentDetail[],
    specs: MachineSpec[],
    set: PooledSetTable,
  ) {
    try {
      const { complete } = await deployAndWait(
        driver,
        { gamespaceId: set.id, hostAffinity: !!ws.hostAffinity, privileged: false },
        specs,
        deps.deployPoll ?? DEPLOY_POLL,
        clock,
      ).finally(() => deploying.delete(set.id));
      if (!complete) throw new Error('the machines of a pooled set never all appeared');
      // Ready when a player could use it: booted, not merely started.
      await driver.untilUsable?.(set.id);
      // The wait may have taught the driver that a claim could not hand these machines over.
      const refusal = await unpoolableReason(driver, ws, templatesOfSet);
      if (refusal) throw new Error(refusal);
      const { from, to } = leavesFrom('set.warmed');
      // Drained while it deployed: what the deploy made goes too.
      if (!(await repos.pools.move(set.id, from, to, now()))) await removeSet(set.id);
    } catch (err) {
      warn(err, 'a pooled set failed to deploy', { workspaceId: ws.id, set: set.id });
      const { from, to } = leavesFrom('set.failed');
      if (!(await repos.pools.move(set.id, from, to, now()))) await removeSet(set.id);
    }
  }

  /** One round for a workspace: drain what no longer fits, warm what is missing. */
  async function keepOnce(workspaceId: string): Promise<void> {
    const ws = await repos.workspaces.find(workspaceId);
    if (!ws || !deps.supported()) {
      await drain(workspaceId);
      // A deleted workspace's pool goes with it.
      if (!ws) await repos.pools.removeSetting(workspaceId);
      return;
    }
    const setting = await repos.pools.setting(workspaceId);
    const templates = await repos.templates.ofWorkspaceWithParentDetail(ws.id);
    // Machines the driver cannot pool: none is kept (the pool's view says why).
    if (await unpoolableReason(driver, ws, templates)) {
      await drain(workspaceId);
      return;
    }
    const prints = fingerprintsOf(ws, templates);
    const all = await repos.pools.setsOf(workspaceId);
    const live = all.filter((s) => s.state === 'warming' || s.state === 'ready');
    // Made from templates since changed (or of a variant the workspace no longer has).
    const outdated = live.filter((s) => prints[s.variant] !== s.fingerprint);
    const current = live.filter((s) => !outdated.includes(s));
    const target = await targetOf(workspaceId, setting?.size ?? 0);
    // Beyond the target: the newest go first, those still warming before those ready.
    const byKeep = [...current].sort(
      (a, b) =>
        Number(a.state === 'warming') - Number(b.state === 'warming') || a.created - b.created,
    );
    const excess = byKeep.slice(target);
    if (outdated.length + excess.length > 0) {
      await drain(
        workspaceId,
        [...outdated, ...excess].map((s) => s.id),
      );
    }
    const missing = target - (current.length - excess.length);
    const perSet = pooledSpecs(ws, templates, 0, '').length;
    if (missing <= 0 || perSet === 0) return;
    const lastClaim = Math.max(
      0,
      ...all.filter((s) => s.state === 'claimed').map((s) => s.claimedAt),
    );
    const settling = lastClaim + REFILL_SETTLE_MS - now();
    if (settling > 0) {
      deferRound(workspaceId, settling);
      return;
    }
    const perVariant = prints.map((_, v) => current.filter((s) => s.variant === v).length);
    await withRoom(async () => {
      const status = await driver.status();
      let inUse = [...deploying.values()].reduce(plus, inUseOf(status));
      for (let i = 0; i < missing; i++) {
        // The variant with the fewest sets: a pool serves every variant alike.
        const variant = perVariant.indexOf(Math.min(...perVariant));
        const id = newId();
        const specs = pooledSpecs(ws, templates, variant, id);
        const demand = demandOf(specs, !!ws.hostAffinity);
        if (setsThatFit(status, demand, inUse) < 1) return;
        perVariant[variant]! += 1;
        if (specs.length === 0) continue;
        inUse = plus(inUse, demand);
        const set: PooledSetTable = {
          id,
          workspaceId,
          variant,
          fingerprint: prints[variant]!,
          state: 'warming',
          created: now(),
          changed: now(),
          claimedAt: 0,
          claimedBy: '',
        };
        await repos.pools.addSet(set);
        deploying.set(set.id, demand);
        track(warm(ws, templates, specs, set));
      }
    });
  }

  /** Asks for a round of the workspace in `ms`, unless one is put off already. */
  function deferRound(workspaceId: string, ms: number): void {
    if (stopped || deferred.has(workspaceId)) return;
    const timer = clock.setTimeout(() => {
      deferred.delete(workspaceId);
      if (!stopped) void keep(workspaceId);
    }, ms);
    deferred.set(workspaceId, timer);
  }

  /** A round under the workspace's lock; none when another server holds it. */
  async function lockedRound(workspaceId: string): Promise<void> {
    const key = LOCK_KEY + workspaceId;
    const token = newToken();
    if (!(await cache.setIfAbsent(key, token, POOL_LOCK_TTL_MS))) return;
    try {
      await keepOnce(workspaceId);
    } finally {
      // Released only if still ours: a round that outlived the TTL must not free another's lock.
      if ((await cache.get(key)) === token) await cache.delete(key);
    }
  }

  /**
   * Asks for a round of the workspace's pool, in the background; resolves when it is over.
   * Rounds of one workspace run one at a time in this process; one asked for while another runs
   * follows it, so that no claim or change goes unseen.
   */
  function keep(workspaceId: string): Promise<void> {
    const running = rounds.get(workspaceId);
    if (running) {
      again.add(workspaceId);
      return running;
    }
    const round = (async () => {
      do {
        again.delete(workspaceId);
        await lockedRound(workspaceId).catch((err: unknown) =>
          warn(err, 'keeping a pool failed', { workspaceId }),
        );
      } while (again.has(workspaceId));
    })().finally(() => rounds.delete(workspaceId));
    rounds.set(workspaceId, round);
    track(round);
    return round;
  }

  /** A round for every workspace with a pool or a scheduled launch. */
  async function keepAll(): Promise<void> {
    const ids = new Set([
      ...(await repos.pools.settings()).map((s) => s.workspaceId),
      ...(await repos.pools.scheduledWorkspaces(now() - SCHEDULE_TAIL_MS)),
    ]);
    await Promise.all([...ids].map(keep));
  }

  return {
    keep,
    keepAll,
    targetOf,
    settled,
    /** keepAll in the background (a change that may concern any pool). */
    keepAllLater: () => track(keepAll()),

    /** The janitor: whether an isolation tag is a pooled set's (not an orphan). */
    isPoolTag: async (tag: string): Promise<boolean> => (await repos.pools.set(tag)) !== undefined,

    /**
     * The janitor: sets warming too long fail, failed sets are drained, drained sets whose
     * removal was cut short are removed again, and old claims and schedules are forgotten.
     */
    async reclaim(): Promise<void> {
      const t = now();
      const failing = leavesFrom('set.failed');
      for (const set of await repos.pools.changedBefore(['warming'], t - WARMING_STALE_MS)) {
        await repos.pools.move(set.id, failing.from, failing.to, t);
      }
      const failed = await repos.pools.changedBefore(['failed'], t + 1);
      for (const workspaceId of new Set(failed.map((s) => s.workspaceId))) {
        const ids = failed.filter((s) => s.workspaceId === workspaceId).map((s) => s.id);
        await drain(workspaceId, ids);
      }
      for (const set of await repos.pools.changedBefore(['drained'], t - DRAINED_STALE_MS)) {
        await removeSet(set.id);
      }
      await repos.pools.removeClaimedBefore(t - CLAIMED_KEPT_MS);
      await repos.pools.removeSchedulesBefore(t - SCHEDULE_TAIL_MS);
    },

    /** Starts the rounds every keepIntervalMs. */
    start() {
      stopped = false;
      stopTicks ??= every(clock, deps.keepIntervalMs ?? POOL_KEEP_INTERVAL_MS, () =>
        track(keepAll()),
      );
    },

    /** Stops the rounds and waits for the work under way (deploys of sets, removals). */
    async stop() {
      stopTicks?.();
      stopTicks = null;
      stopped = true;
      for (const timer of deferred.values()) clock.clearTimeout(timer);
      deferred.clear();
      await settled();
    },
  };
}

export type Keeper = ReturnType<typeof createKeeper>;

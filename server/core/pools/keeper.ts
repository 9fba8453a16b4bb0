import { parseChallengeText, type ChallengeSpec } from '../../../src/domain/challenge';
import { every, realClock, type Clock } from '../../clock';
import { vmName, type HypervisorDriver, type MachineSpec } from '../../hypervisor';
import type { Repositories } from '../../store/repositories';
import type { PoolCounts } from '../../store/repositories/pools';
import type { TemplateWithParentDetail } from '../../store/repositories/templates';
import type { GamespaceTable, PooledSetTable, WorkspaceTable } from '../../store/schema';
import type { Cache } from '../cache';
import { isoDate, parseDate } from '../dto';
import { DomainError } from '../errors';
import { invalid, unknownArgument } from '../fields';
import { newId, newToken, sha256Hex } from '../ids';
import { toMachineSpec } from '../machineSpecs';
import type { PoolClaims } from '../play/context';
import { deployAndWait, DEPLOY_POLL, gamespaceTemplates, templatesOfVariant } from '../play/deploy';
import { leavesFrom } from './pooledSet';

// Warm pools: per workspace, an administrator sets how many gamespaces' machine sets to keep
// deployed ahead of launches. The keeper deploys pooled sets in the background under a pool tag
// of their own (the set's id), and a launch claims a ready set (one conditional UPDATE: no set
// goes to two launches) and has its machines retagged to the gamespace instead of deploying.
//
// - What a set is made of: the workspace's templates of one variant, for one player, with the
//   templates' own guest settings; the gamespace's (its transforms resolved) are delivered at the
//   claim through the driver's configuration change. A set keeps a fingerprint of what it was
//   made from, so a launch claims only a set made from the templates as they are now, and the
//   keeper drains the others: any template change of the workspace drains its pool.
// - Variants: a launch claims a set of its gamespace's variant (chosen, at random or as asked,
//   before the claim as without a pool); the keeper spreads a pool over the variants evenly.
// - Target: the size, raised to a scheduled launch's count from SCHEDULE_LEAD_MS before its time
//   until SCHEDULE_TAIL_MS after, capped at POOL_MAX_SIZE and, where the driver caps running
//   machines, by the room left.
// - One keeper per workspace at a time across servers: a lock in the shared cache (as the
//   janitor's); a server that finds it held leaves that round to the holder, and its own next
//   round catches up.
// - Stale and failed sets are reclaimed by the janitor (reclaim), which also leaves pool tags out
//   of its orphaned machines.

/** The most sets one pool keeps, whatever its size or schedule asks. */
export const POOL_MAX_SIZE = 50;
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
/** "Claimed in the last hour". */
export const CLAIM_WINDOW_MS = 3_600_000;

const LOCK_KEY = 'pool:lock:';

export interface PoolView {
  workspaceId: string;
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
}

export type PoolRepositories = Pick<Repositories, 'pools' | 'templates' | 'workspaces'>;

export interface PoolOptions {
  driver: HypervisorDriver;
  cache: Cache;
  clock?: Clock;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** How a set's deploy waits for its machines (play's DEPLOY_POLL). */
  deployPoll?: { attempts: number; intervalMs: number };
  keepIntervalMs?: number;
}

type ChallengeIso = ChallengeSpec['challenge'];

/**
 * What a workspace's sets of a variant are made from, as a hash: the templates of the variant,
 * the workspace's settings that shape its machines, and the challenge ISO of the variant.
 */
export function fingerprintOf(
  ws: Pick<WorkspaceTable, 'hostAffinity' | 'useUplinkSwitch'>,
  templates: readonly TemplateWithParentDetail[],
  variant: number,
  challenge: ChallengeIso,
): string {
  const rows = templatesOfVariant(templates, variant).sort((a, b) => (a.id < b.id ? -1 : 1));
  return sha256Hex(
    JSON.stringify({
      hostAffinity: ws.hostAffinity,
      useUplinkSwitch: ws.useUplinkSwitch,
      iso: challenge?.iso ?? null,
      templates: rows,
    }),
  );
}

export function createPoolService(repos: PoolRepositories, options: PoolOptions) {
  const { driver, cache } = options;
  const clock = options.clock ?? realClock;
  const now = () => clock.now();
  const log = options.log;
  const background = new Set<Promise<unknown>>();
  /** Workspaces whose round runs in this process, and those asked for again meanwhile. */
  const rounds = new Map<string, Promise<void>>();
  const again = new Set<string>();
  let stopTicks: (() => void) | null = null;

  const warn = (err: unknown, msg: string, fields: object = {}) =>
    log?.warn({ err, ...fields }, `pools: ${msg}`);

  function track(work: Promise<unknown>): void {
    const settled = work.catch((err: unknown) => warn(err, 'background work failed'));
    background.add(settled);
    void settled.finally(() => background.delete(settled));
  }

  /** Pools need machines handed from tag to tag, and guest settings changed after deploy. */
  const supported = () => driver.capabilities.retag === true && driver.capabilities.guestChange;

  function requireSupported(): void {
    if (supported()) return;
    throw new DomainError(
      'InvalidOperation',
      `Warm pools need a hypervisor driver that can hand machines from one isolation tag to ` +
        `another; the ${driver.capabilities.kind} driver cannot.`,
    );
  }

  /** The machine specs of a pooled set: the gamespace's for one player, untransformed. */
  function setSpecs(
    id: string,
    ws: WorkspaceTable,
    templates: readonly TemplateWithParentDetail[],
    variant: number,
  ): MachineSpec[] {
    const challenge = parseChallengeText(ws.challenge).variants[variant] ?? null;
    return gamespaceTemplates({ id, variant, playerCount: 1 }, ws, templates, {
      transforms: [],
      challenge,
    }).map(toMachineSpec);
  }

  const variantsOf = (ws: WorkspaceTable) =>
    Math.max(1, parseChallengeText(ws.challenge).variants.length);

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

  /** How many more sets of `perSet` machines the driver has room for. */
  async function roomFor(perSet: number): Promise<number> {
    const status = await driver.status();
    if (status.maxRunning === null) return Number.POSITIVE_INFINITY;
    return Math.floor(Math.max(0, status.maxRunning - status.running) / Math.max(1, perSet));
  }

  /** Deletes a drained set's machines, then forgets it. */
  async function removeSet(id: string): Promise<void> {
    await driver.deleteAll(id);
    await repos.pools.remove(id);
  }

  async function drain(workspaceId: string, ids?: string[]): Promise<number> {
    const drained = await repos.pools.drain(workspaceId, leavesFrom('set.drained'), now(), ids);
    for (const set of drained) track(removeSet(set.id));
    return drained.length;
  }

  /** Deploys a new set under its own tag; ready once every machine exists, else failed. */
  async function warm(ws: WorkspaceTable, specs: MachineSpec[], set: PooledSetTable) {
    try {
      const { complete } = await deployAndWait(
        driver,
        { gamespaceId: set.id, hostAffinity: !!ws.hostAffinity, privileged: false },
        specs,
        options.deployPoll ?? DEPLOY_POLL,
        clock,
      );
      if (!complete) throw new Error('the machines of a pooled set never all appeared');
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
    const setting = await repos.pools.setting(workspaceId);
    if (!ws || !supported()) {
      await drain(workspaceId);
      // A deleted workspace's pool goes with it.
      if (!ws) await repos.pools.removeSetting(workspaceId);
      return;
    }
    const templates = await repos.templates.ofWorkspaceWithParentDetail(ws.id);
    const variants = variantsOf(ws);
    const prints = Array.from({ length: variants }, (_, v) =>
      fingerprintOf(ws, templates, v, parseChallengeText(ws.challenge).variants[v] ?? null),
    );
    const sets = await repos.pools.setsOf(workspaceId);
    const live = sets.filter((s) => s.state === 'warming' || s.state === 'ready');
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
    if (missing <= 0) return;
    const perVariant = prints.map(
      (print, v) => current.filter((s) => s.variant === v && s.fingerprint === print).length,
    );
    const specsOf = (variant: number, id: string) => setSpecs(id, ws, templates, variant);
    if (specsOf(0, '').length === 0) return;
    const count = Math.min(missing, await roomFor(specsOf(0, '').length));
    for (let i = 0; i < count; i++) {
      // The variant with the fewest sets: a pool serves every variant alike.
      const variant = perVariant.indexOf(Math.min(...perVariant));
      perVariant[variant]! += 1;
      const set: PooledSetTable = {
        id: newId(),
        workspaceId,
        variant,
        fingerprint: prints[variant]!,
        state: 'warming',
        created: now(),
        changed: now(),
        claimedAt: 0,
        claimedBy: '',
      };
      const specs = specsOf(variant, set.id);
      if (specs.length === 0) continue;
      await repos.pools.addSet(set);
      track(warm(ws, specs, set));
    }
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
   * Asks for a round of the workspace's pool, in the background. Rounds of one workspace run one
   * at a time in this process; one asked for while another runs follows it, so that no claim or
   * change goes unseen.
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

  /** A round for every workspace with a pool, a set or a scheduled launch. */
  async function keepAll(): Promise<void> {
    const ids = new Set([
      ...(await repos.pools.settings()).map((s) => s.workspaceId),
      ...(await repos.pools.scheduledWorkspaces(now() - SCHEDULE_TAIL_MS)),
    ]);
    await Promise.all([...ids].map(keep));
  }

  async function view(workspaceId: string): Promise<PoolView> {
    const t = now();
    const setting = await repos.pools.setting(workspaceId);
    const counts: PoolCounts = await repos.pools.counts(workspaceId, t - CLAIM_WINDOW_MS);
    const schedules = await repos.pools.schedulesOf(
      workspaceId,
      t - SCHEDULE_TAIL_MS,
      Number.MAX_SAFE_INTEGER,
    );
    return {
      workspaceId,
      size: setting?.size ?? 0,
      target: await targetOf(workspaceId, setting?.size ?? 0),
      ready: counts.ready,
      warming: counts.warming,
      failed: counts.failed,
      claimedLastHour: counts.claimed,
      misses: setting?.misses ?? 0,
      schedules: schedules.map((s) => ({ count: s.count, at: isoDate(s.at) })),
    };
  }

  async function requireWorkspace(workspaceId: string): Promise<WorkspaceTable> {
    const ws = await repos.workspaces.find(workspaceId);
    if (!ws) throw unknownArgument('id');
    return ws;
  }

  /** Hands a claimed set's machines to the gamespace, with the gamespace's guest settings. */
  async function handOver(set: PooledSetTable, g: GamespaceTable, specs: readonly MachineSpec[]) {
    const machines = await driver.retag(set.id, g.id);
    const byName = new Map(machines.map((m) => [m.name, m]));
    for (const spec of specs) {
      const machine = byName.get(vmName(spec.name, g.id));
      if (!machine) throw new Error(`pooled set ${set.id} has no machine ${spec.name}`);
      for (const { key, value } of spec.guestSettings) {
        await driver.changeConfiguration(machine.id, { kind: 'guest', key, value }, false);
      }
    }
  }

  /** PoolClaims.claim, which may fail: the caller has it answer false instead. */
  const claimOrMiss: PoolClaims['claim'] = async (g, ws, templates, specs) => {
    if (!supported()) return false;
    const setting = await repos.pools.setting(ws.id);
    if (!setting) return false;
    // A gamespace started again after a stop has machines of its own only if they were kept.
    if ((await driver.machinesOf(g.id)).length > 0) return false;
    const challenge = parseChallengeText(g.challenge).challenge;
    // Sets are made for one player: a launch whose machines differ (replicas per player)
    // cannot use one.
    const names = (list: readonly MachineSpec[]) => list.map((s) => s.name).sort();
    const pooled = names(setSpecs('', ws, templates, g.variant));
    const fits = JSON.stringify(pooled) === JSON.stringify(names(specs));
    const set = fits
      ? await repos.pools.claim(
          ws.id,
          g.variant,
          fingerprintOf(ws, templates, g.variant, challenge),
          g.id,
          now(),
        )
      : undefined;
    // Claimed or missed, the pool is looked after again: refilled after a claim.
    void keep(ws.id);
    if (!set) {
      await repos.pools.countMiss(ws.id);
      return false;
    }
    try {
      await handOver(set, g, specs);
      return true;
    } catch (err) {
      // Whatever the set left under either tag goes; the launch deploys afresh.
      warn(err, 'handing a pooled set over failed', { set: set.id, gamespaceId: g.id });
      await driver.deleteAll(set.id).catch(() => undefined);
      await driver.deleteAll(g.id).catch(() => undefined);
      return false;
    }
  };

  const claims: PoolClaims = {
    // A pool that fails (its store, its driver) costs a launch its head start, never the launch.
    claim: (g, ws, templates, specs) =>
      claimOrMiss(g, ws, templates, specs).catch((err: unknown) => {
        warn(err, 'claiming a pooled set failed', { workspaceId: ws.id, gamespaceId: g.id });
        return false;
      }),
  };

  return {
    claims,
    supported,
    keep,
    keepAll,

    /** GET /api/admin/pools: every workspace's pool that has a setting. */
    async list(): Promise<PoolView[]> {
      const settings = await repos.pools.settings();
      return Promise.all(settings.map((s) => view(s.workspaceId)));
    },

    /** GET /api/admin/pools/{id}. */
    async get(workspaceId: string): Promise<PoolView> {
      await requireWorkspace(workspaceId);
      return view(workspaceId);
    },

    /**
     * PUT /api/admin/pools/{id}: the pool's size, 0..POOL_MAX_SIZE, refused when the driver
     * cannot run pools or could never run that many sets; the keeper starts on it at once.
     */
    async setSize(workspaceId: string, size: unknown): Promise<PoolView> {
      const ws = await requireWorkspace(workspaceId);
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
        throw invalid('size', 'must be a whole number, 0 or more');
      }
      if (size > POOL_MAX_SIZE) throw invalid('size', `must be at most ${POOL_MAX_SIZE}`);
      if (size > 0) {
        requireSupported();
        const perSet = setSpecs(
          '',
          ws,
          await repos.templates.ofWorkspaceWithParentDetail(ws.id),
          0,
        ).length;
        const { maxRunning } = await driver.status();
        if (maxRunning !== null && size * Math.max(1, perSet) > maxRunning) {
          throw invalid(
            'size',
            `${size} sets of ${perSet} machines exceed the ${maxRunning} machines the hypervisor may run`,
          );
        }
      }
      await repos.pools.setSize(workspaceId, size, now());
      await keep(workspaceId);
      return view(workspaceId);
    },

    /**
     * POST /api/admin/pools/{id}/schedule: `count` launches at `at`; the pool's target is
     * raised to `count` around that time (SCHEDULE_LEAD_MS before, SCHEDULE_TAIL_MS after).
     */
    async schedule(workspaceId: string, count: unknown, at: unknown): Promise<PoolView> {
      await requireWorkspace(workspaceId);
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
      await keep(workspaceId);
      return view(workspaceId);
    },

    /**
     * A template was added, changed or removed (of any workspace: the store says which table,
     * not which row): every pool has a round, which drains the sets its templates no longer
     * make. Claims never take such a set meanwhile (their fingerprint differs).
     */
    templatesChanged(): void {
      if (supported()) track(keepAll());
    },

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
      stopTicks ??= every(clock, options.keepIntervalMs ?? POOL_KEEP_INTERVAL_MS, () =>
        track(keepAll()),
      );
    },

    /** Stops the rounds and waits for the work under way (deploys of sets, removals). */
    async stop() {
      stopTicks?.();
      stopTicks = null;
      await settled();
    },

    settled,
  };

  /** Resolves once no background work of the pools is left. */
  async function settled(): Promise<void> {
    while (background.size) await Promise.all(background);
  }
}

export type PoolService = ReturnType<typeof createPoolService>;

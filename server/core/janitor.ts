import { realClock, type Clock, type Timer } from '../clock';
import type { Repositories } from '../store/repositories';
import { EMPTY_TAG, tagOf, untagged, type HypervisorDriver } from '../hypervisor';
import type { Cache } from './cache';
import { isoDate } from './dto';
import { invalid } from './fields';
import type { GameEventLog } from './gameEvents';
import { newToken } from './ids';
import type { PoolService } from './pools/service';
import { PERMISSION } from './workspaces';

// The janitor (wire reference §4.6): a background job that ends gamespaces past their expiration
// (plus the player's grace), deletes the machines of ended gamespaces once, and now and then
// reports idle workspace machines and forgotten workspaces. With each run it also asks the driver
// to remove its orphans (hypervisor processes whose machine is gone, base images a save
// replaced), when the driver has any, and reconciles the driver's machines and networks with the
// database (orphaned tags, reported then removed after a grace). Several servers may run it; a lock in
// the shared cache lets one of them work at a time, and each gamespace's cleanup is claimed in
// the database so its machines are deleted once even if two runs overlap.

/** JanitorOptions (wire reference §2.6); timespans are N plus one of y/w/d/h/m/s. */
export interface JanitorOptions {
  /** Report idle workspace machines without deleting them (the reference's default). */
  dryRun: boolean;
  idleWorkspaceVmsExpiration: string;
  inactiveWorkspaceExpiration: string;
  unpublishedWorkspaceTimeout: string;
}

export const DEFAULT_JANITOR_OPTIONS: JanitorOptions = {
  dryRun: true,
  idleWorkspaceVmsExpiration: '1d',
  inactiveWorkspaceExpiration: '1y',
  unpublishedWorkspaceTimeout: '1w',
};

/**
 * The reference's reasons, and one of ours: `OrphanedVms`, machines or networks under an
 * isolation tag that is no workspace's and no gamespace's (a gamespace deleted while its cluster
 * was out of reach, a server killed in the middle of a launch).
 */
export type JanitorReason =
  'IdleWorkspaceVms' | 'UnpublishedWorkspace' | 'InactiveWorkspace' | 'OrphanedVms';

/** How long an orphaned tag is reported before its machines and networks are removed. */
export const DEFAULT_ORPHAN_GRACE_MS = 30 * 60_000;
const ORPHAN_KEY = 'janitor:orphan:';
/** First-seen marks outlive any grace an admin would set, then go on their own. */
const ORPHAN_MARK_TTL_MS = 7 * 86_400_000;

/** JanitorReport (wire reference §2.6); `age` is the workspace's last activity. */
export interface JanitorReport {
  id: string;
  name: string;
  reason: JanitorReason;
  age: string;
  ownerName: string;
  vmCount: number;
}

const UNIT_MS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
};

/** "1d", "12h", "2w" as milliseconds; 400 InvalidPropertyValue for anything else. */
export function parseTimespan(text: string, field: string): number {
  const match = /^\s*(\d+)\s*([smhdwy])\s*$/i.exec(text);
  if (!match) throw invalid(field, 'must be N followed by one of y, w, d, h, m, s');
  return Number(match[1]) * UNIT_MS[match[2]!.toLowerCase()]!;
}

/** A request's JanitorOptions: missing fields take the reference's defaults. */
export function janitorOptions(input: Partial<JanitorOptions> | null | undefined): JanitorOptions {
  const options = { ...DEFAULT_JANITOR_OPTIONS };
  for (const key of Object.keys(options) as Array<keyof JanitorOptions>) {
    const value = input?.[key];
    if (value !== undefined && value !== null) (options as Record<string, unknown>)[key] = value;
  }
  for (const key of [
    'idleWorkspaceVmsExpiration',
    'inactiveWorkspaceExpiration',
    'unpublishedWorkspaceTimeout',
  ] as const) {
    parseTimespan(options[key], key);
  }
  return options;
}

/** Inclusive bounds of a randomized delay. */
export type Range = readonly [min: number, max: number];

export interface JanitorSchedule {
  /** Delay of the first run after start-up (the reference: 30–60 s). */
  startMs: Range;
  /** Delay between runs (60–90 s). */
  intervalMs: Range;
  /** The workspace report runs every this many runs (60–90, roughly hourly). */
  cleanupEveryTicks: Range;
}

export const DEFAULT_JANITOR_SCHEDULE: JanitorSchedule = {
  startMs: [30_000, 60_000],
  intervalMs: [60_000, 90_000],
  cleanupEveryTicks: [60, 90],
};

/** How long one run may hold the lock before another server may take over. */
export const JANITOR_LOCK_TTL_MS = 5 * 60_000;
/** How long a run asked for (POST /api/admin/janitor) waits before it tries the lock again. */
export const JANITOR_LOCK_RETRY_MS = 200;
const LOCK_KEY = 'janitor:lock';

export interface JanitorDeps {
  repositories: Pick<Repositories, 'gamespaces' | 'workspaces'>;
  driver: Pick<
    HypervisorDriver,
    'machinesOf' | 'deleteAll' | 'removeOrphans' | 'find' | 'networkTags'
  >;
  /** How long orphaned machines are reported before they are removed. */
  orphanGraceMs?: number;
  cache: Cache;
  /** Failures are warnings; how many orphans a run removed is information. */
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /**
   * Told of each gamespace it ended or whose machines it deleted, after the change is stored:
   * the players' pages (and kept game states on every server) learn of it at once.
   */
  changed?: (gamespaceId: string) => Promise<void>;
  schedule?: JanitorSchedule;
  /** Told how each background run ended (the metrics). */
  ran?: (outcome: 'ok' | 'failed') => void;
  /**
   * Warm pools (pools/keeper.ts): their stale and failed sets are reclaimed with each run, and
   * their sets' tags are no orphans.
   */
  pools?: Pick<PoolService, 'reclaim' | 'isPoolTag'>;
  /** Games it ends (their time ran out) go into their gamespace's event log. */
  gameEvents?: Pick<GameEventLog, 'record'>;
  /** What the runs wait on, and the time expiry and idleness are measured at. */
  clock?: Clock;
  random?: () => number;
  /** Console recordings: those past their retention are removed with each run. */
  recordings?: { expire(): Promise<number> };
}

export function createJanitor(deps: JanitorDeps) {
  const { driver, cache, log } = deps;
  const repos = deps.repositories;
  const clock = deps.clock ?? realClock;
  const now = () => clock.now();
  const random = deps.random ?? Math.random;
  const schedule = deps.schedule ?? DEFAULT_JANITOR_SCHEDULE;
  const pick = ([min, max]: Range) => min + Math.floor(random() * (max - min + 1));

  /** Sets endTime = expirationTime on unended gamespaces past expiration plus grace. */
  const endExpired = (): Promise<string[]> => repos.gamespaces.endExpired(now());

  /**
   * Deletes the machines of ended gamespaces not cleaned yet. Each one is claimed first
   * (cleaned 0 -> 1 in one statement), so only one run deletes its machines; a failed delete
   * gives the claim back for the next run.
   */
  async function cleanupEnded(): Promise<string[]> {
    const cleaned: string[] = [];
    for (const id of await repos.gamespaces.endedUncleaned()) {
      if (!(await repos.gamespaces.claimCleanup(id))) continue;
      try {
        await driver.deleteAll(id);
        cleaned.push(id);
      } catch (err) {
        log.warn({ err, gamespaceId: id }, 'janitor: deleting gamespace machines failed');
        await repos.gamespaces.releaseCleanup(id);
      }
    }
    return cleaned;
  }

  /**
   * Removes the driver's orphans: a server killed in the middle of a delete, or a machine deleted
   * while its process could not be reached, leaves a process that holds memory and counts against
   * the caps, yet that no gamespace will ever delete. How many is logged (the run's answer is the
   * reference's report, which has no place for it). A failure is logged and leaves the rest of the
   * run be, like a failed gamespace delete.
   */
  async function removeOrphans(): Promise<number> {
    try {
      const removed = (await driver.removeOrphans?.()) ?? 0;
      if (removed > 0) log.info({ orphans: removed }, 'janitor: removed orphan machines');
      return removed;
    } catch (err) {
      log.warn({ err }, 'janitor: removing orphan machines failed');
      return 0;
    }
  }

  /**
   * Machines and networks the driver holds under tags that are no workspace's and no
   * gamespace's: reported from the run that first sees them, and removed (deleteAll) by a run
   * past the grace when `remove` is set. The first sighting is kept in the shared cache, so the
   * grace counts from it whichever server runs.
   */
  async function orphanedTags(remove: boolean): Promise<JanitorReport[]> {
    const machines = await driver.find('');
    const byTag = new Map<string, string[]>();
    for (const m of machines) {
      const tag = tagOf(m.name);
      if (tag) byTag.set(tag, [...(byTag.get(tag) ?? []), untagged(m.name)]);
    }
    for (const tag of (await driver.networkTags?.()) ?? []) if (!byTag.has(tag)) byTag.set(tag, []);
    byTag.delete(EMPTY_TAG);
    const grace = deps.orphanGraceMs ?? DEFAULT_ORPHAN_GRACE_MS;
    const reports: JanitorReport[] = [];
    for (const [tag, names] of byTag) {
      if ((await repos.workspaces.exists(tag)) || (await repos.gamespaces.exists(tag))) continue;
      if (await deps.pools?.isPoolTag(tag)) continue;
      const key = ORPHAN_KEY + tag;
      await cache.setIfAbsent(key, String(now()), ORPHAN_MARK_TTL_MS);
      const since = Number((await cache.get(key)) ?? now());
      if (remove && now() - since >= grace) {
        await driver.deleteAll(tag);
        await cache.delete(key);
        log.info({ tag, machines: names.length }, 'janitor: removed orphaned machines');
      }
      reports.push({
        id: tag,
        name: names.join(', '),
        reason: 'OrphanedVms',
        age: isoDate(since),
        ownerName: '',
        vmCount: names.length,
      });
    }
    return reports;
  }

  /** Each workspace's first manager by name. */
  async function ownerNames(ids: string[]): Promise<Map<string, string>> {
    const managers = await repos.workspaces.workersWith(ids, PERMISSION.manager);
    const names = new Map<string, string>();
    for (const m of managers)
      if (!names.has(m.workspaceId)) names.set(m.workspaceId, m.subjectName);
    return names;
  }

  /** The workspace's builder machines (tagged with its id). */
  const workspaceVms = (id: string) => driver.machinesOf(id);

  /**
   * Workspaces idle between one and two expirations that still have machines: reported, and
   * their machines deleted unless dryRun.
   */
  async function idleWorkspaceVms(options: JanitorOptions): Promise<JanitorReport[]> {
    const t = now();
    const exp = parseTimespan(options.idleWorkspaceVmsExpiration, 'idleWorkspaceVmsExpiration');
    const rows = await repos.workspaces.lastActiveBetween(t - 2 * exp, t - exp);
    const owners = await ownerNames(rows.map((r) => r.id));
    const reports: JanitorReport[] = [];
    for (const w of rows) {
      const vms = await workspaceVms(w.id);
      if (vms.length === 0) continue;
      if (!options.dryRun) await driver.deleteAll(w.id);
      reports.push(report(w, 'IdleWorkspaceVms', owners, vms.length));
    }
    return reports;
  }

  /**
   * Unpublished workspaces without an audience idle beyond the timeout, and published ones idle
   * beyond the expiration: reported only. The reference forces their deletion to a dry run, and
   * so do we: deleting an author's work is for people to decide.
   */
  async function staleWorkspaces(options: JanitorOptions): Promise<JanitorReport[]> {
    const t = now();
    const unpublished =
      t - parseTimespan(options.unpublishedWorkspaceTimeout, 'unpublishedWorkspaceTimeout');
    const inactive =
      t - parseTimespan(options.inactiveWorkspaceExpiration, 'inactiveWorkspaceExpiration');
    const rows = await repos.workspaces.idle({
      unpublishedBefore: unpublished,
      publishedBefore: inactive,
    });
    const owners = await ownerNames(rows.map((r) => r.id));
    const reports: JanitorReport[] = [];
    for (const w of rows) {
      const reason = w.isPublished ? 'InactiveWorkspace' : 'UnpublishedWorkspace';
      reports.push(report(w, reason, owners, (await workspaceVms(w.id)).length));
    }
    return reports;
  }

  function report(
    w: { id: string; name: string; author: string; lastActivity: number },
    reason: JanitorReason,
    owners: Map<string, string>,
    vmCount: number,
  ): JanitorReport {
    const ownerName = owners.get(w.id) ?? w.author;
    return { id: w.id, name: w.name, reason, age: isoDate(w.lastActivity), ownerName, vmCount };
  }

  /** Runs `work` holding the cache lock; null when another run holds it. */
  async function withLock<T>(work: () => Promise<T>): Promise<T | null> {
    const token = newToken();
    if (!(await cache.setIfAbsent(LOCK_KEY, token, JANITOR_LOCK_TTL_MS))) return null;
    try {
      return await work();
    } finally {
      // Released only if still ours: a run that outlived the TTL must not free another's lock.
      if ((await cache.get(LOCK_KEY)) === token) await cache.delete(LOCK_KEY);
    }
  }

  /** Waits for the lock (another server's run is short), then runs. */
  async function whenLocked<T>(work: () => Promise<T>, patienceMs = 30_000): Promise<T> {
    const deadline = now() + patienceMs;
    for (;;) {
      const result = await withLock(async () => ({ value: await work() }));
      if (result) return result.value;
      if (now() > deadline) return work();
      await new Promise<void>((resolve) => clock.setTimeout(resolve, JANITOR_LOCK_RETRY_MS));
    }
  }

  /** Orphaned tags, their failure logged like a failed gamespace delete. */
  const reconcile = (remove: boolean): Promise<JanitorReport[]> =>
    orphanedTags(remove).catch((err: unknown) => {
      log.warn({ err }, 'janitor: looking for orphaned machines failed');
      return [];
    });

  const gamespaces = async () => {
    const ended = await endExpired();
    for (const id of ended) {
      void deps.gameEvents?.record({ gamespaceId: id, kind: 'complete', detail: 'Time ran out' });
    }
    const cleaned = await cleanupEnded();
    await removeOrphans();
    await deps.pools
      ?.reclaim()
      .catch((err: unknown) => log.warn({ err }, 'janitor: reclaiming pooled sets failed'));
    await deps.recordings
      ?.expire()
      .catch((err: unknown) => log.warn({ err }, 'janitor: removing expired recordings failed'));
    for (const id of new Set([...ended, ...cleaned])) {
      await deps
        .changed?.(id)
        .catch((err: unknown) =>
          log.warn({ err, gamespaceId: id }, 'janitor: announcing a change failed'),
        );
    }
  };
  const cleanup = async (options: JanitorOptions) => [
    ...(await idleWorkspaceVms(options)),
    ...(await staleWorkspaces(options)),
  ];

  let timer: Timer | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let ticks = 0;
  let nextCleanup = pick(schedule.cleanupEveryTicks);

  /** One background run: always the gamespaces, the workspace report every so many runs. */
  async function tick(): Promise<void> {
    ticks += 1;
    const withCleanup = ticks >= nextCleanup;
    await withLock(async () => {
      await gamespaces();
      // Orphans go once their grace is over, whatever the report's dry run says.
      await reconcile(true);
      if (withCleanup) {
        ticks = 0;
        nextCleanup = pick(schedule.cleanupEveryTicks);
        await cleanup(DEFAULT_JANITOR_OPTIONS);
      }
    });
  }

  function arm(delay: number) {
    timer = clock.setTimeout(() => {
      running = tick()
        .then(
          () => deps.ran?.('ok'),
          (err: unknown) => {
            deps.ran?.('failed');
            log.warn({ err }, 'janitor run failed');
          },
        )
        .finally(() => {
          if (timer) arm(pick(schedule.intervalMs));
        });
    }, delay);
  }

  return {
    endExpired,
    cleanupEnded,
    tick,
    /**
     * POST api/admin/janitor: ends and cleans gamespaces, then reports workspaces and orphaned
     * machines (removing those past their grace unless it is a dry run).
     */
    run: (options: JanitorOptions) =>
      whenLocked(async () => {
        await gamespaces();
        return [...(await cleanup(options)), ...(await reconcile(!options.dryRun))];
      }),
    /** POST api/admin/janitor/idlewsvms: the idle workspace machines only. */
    idleWorkspaceVms: (options: JanitorOptions) => whenLocked(() => idleWorkspaceVms(options)),
    /** Starts the background runs (first after `startMs`, then every `intervalMs`). */
    start() {
      if (!timer) arm(pick(schedule.startMs));
    },
    /** Stops the background runs and waits for one in progress. */
    async stop() {
      if (timer) clock.clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}

export type Janitor = ReturnType<typeof createJanitor>;

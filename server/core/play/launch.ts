import { every } from '../../clock';
import { inStateOrder } from '../../store/repositories/players';
import type { GamespaceTable, PlayerTable, WorkspaceTable } from '../../store/schema';
import { parseDate } from '../dto';
import { DomainError, forbidden } from '../errors';
import { integer, unknownArgument } from '../fields';
import { aboveCut, readDocument, type GameState } from '../gamespaces';
import { topologyOfTemplates, type TopologyNode } from '../gameTopology';
import { newId, newToken, sha256Hex } from '../ids';
import type { Actor } from '../actor';
import { PERMISSION } from '../workspaces';
import { asId, type PlayContext } from './context';
import {
  cloneChallenge,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_POINTS,
  expirationOf,
  LAUNCH_LOCK_MS,
  maxDuration,
} from './registration';

// Launching a workspace as a gamespace (wire reference §1.2, §4.2), and what a player reads
// before and while playing: the preview of a workspace and the game state of a gamespace.

export interface Registration {
  resourceId: string;
  graderKey?: string | null;
  graderUrl?: string | null;
  variant?: number | null;
  playerCount?: number | null;
  maxAttempts?: number | null;
  maxMinutes?: number | null;
  points?: number | null;
  allowReset?: boolean | null;
  allowPreview?: boolean | null;
  startGamespace?: boolean | null;
  expirationTime?: string | null;
  players?: Array<{ subjectId?: string | null; subjectName?: string | null }> | null;
}

/** Where the request came from: to make the launchpoint and grader addresses absolute. */
export interface RequestOrigin {
  /** `{scheme}://{host}` */
  origin: string;
}

type Deploy = (g: GamespaceTable, actor: Actor, ws?: WorkspaceTable) => Promise<GamespaceTable>;

/**
 * The empty GameState of a preview: the name, the document above the cut and the topology of the
 * workspace's visible templates.
 */
function previewState(name: string, markdown: string, topology: TopologyNode[]): GameState {
  const unset = '0001-01-01T00:00:00+00:00';
  return {
    id: null,
    workspaceId: null,
    name,
    slug: '',
    managerId: null,
    managerName: null,
    markdown,
    audience: null,
    launchpointUrl: null,
    players: [],
    whenCreated: unset,
    startTime: unset,
    endTime: unset,
    expirationTime: unset,
    isActive: false,
    vms: [],
    challenge: null,
    variant: 0,
    topology,
  };
}

/** IsBelowGamespaceLimit: gamespaces the actor manages that started and did not end. */
export async function isBelowLimit(context: PlayContext, actor: Actor): Promise<boolean> {
  if (actor.gamespaceLimit <= 0) return true;
  return (await context.repos.gamespaces.countRunningManagedBy(actor.id)) < actor.gamespaceLimit;
}

/** Per play service: the tail of each actor's queue of launches in this process. */
const actorQueues = new WeakMap<PlayContext, Map<string, Promise<void>>>();

/**
 * The launches and starts of one actor with a gamespace limit, one at a time: the limit counts
 * the gamespaces that *started*, and a launch starts its gamespace only after its deploy, so a
 * check that did not also hold the creation and the start let two launches of different
 * workspaces both count one below the limit and both start (the reference's check races the
 * same way). The window from the count to the start is held per actor, so other actors'
 * launches (and their batched statements, store/batch.ts) go on beside it; an actor without a
 * limit (0) is not held at all. Every start that adds to the actor's count (a launch with
 * startGamespace, the start of a registered gamespace, lifecycle.ts) goes through here.
 *
 * In this process the actor's launches queue on a promise; across processes the holder keeps
 * a lock in the shared cache (Redis with REDIS_URL, as the launch lock and the janitor's; in
 * memory for one server), renewed while its deploy runs so that it does not lapse under it.
 * A waiter polls the lock until its holder is done, and after LAUNCH_LOCK_MS without it is
 * refused with ResourceIsLocked, so one actor's stuck launch holds up only that actor.
 */
export async function oneLaunchOfActor<T>(
  context: PlayContext,
  actor: Actor,
  work: () => Promise<T>,
): Promise<T> {
  if (actor.gamespaceLimit <= 0) return work();
  let queues = actorQueues.get(context);
  if (!queues) actorQueues.set(context, (queues = new Map()));
  const previous = queues.get(actor.id) ?? Promise.resolve();
  let done!: () => void;
  const tail = new Promise<void>((resolve) => (done = resolve));
  queues.set(actor.id, tail);
  try {
    await previous;
    return await underSharedLock(context, `:lim:${actor.id}`, work);
  } finally {
    done();
    if (queues.get(actor.id) === tail) queues.delete(actor.id);
  }
}

async function underSharedLock<T>(
  context: PlayContext,
  key: string,
  work: () => Promise<T>,
): Promise<T> {
  const { cache } = context.options;
  const token = newId();
  const giveUp = context.now() + LAUNCH_LOCK_MS;
  for (let pause = 5; !(await cache.setIfAbsent(key, token, LAUNCH_LOCK_MS));) {
    if (context.now() >= giveUp) throw new DomainError('ResourceIsLocked');
    await new Promise<void>((resolve) => context.clock.setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 100);
  }
  let renewed: Promise<void> = Promise.resolve();
  const stopRenewing = every(context.clock, LAUNCH_LOCK_MS / 3, () => {
    renewed = cache.set(key, token, LAUNCH_LOCK_MS).catch(() => undefined);
  });
  try {
    return await work();
  } finally {
    // A renewal under way must not store the lock again after it is released.
    stopRenewing();
    await renewed;
    if ((await cache.get(key)) === token) await cache.delete(key);
  }
}

/** `deploy` starts a gamespace registered with `startGamespace` (the lifecycle's). */
export function createLaunch(context: PlayContext, deploy: Deploy) {
  const { options, repos, now, state } = context;

  /** The player's active gamespace of the workspace, the newest (see the repository). */
  const activeGamespaceOf = (workspaceId: string, playerId: string) =>
    repos.gamespaces.activeOf(workspaceId, playerId, now());

  /**
   * Starts a gamespace just made; when its machines cannot be had (the hypervisor has no room),
   * the gamespace and whatever machines it got go again, so that the player is told why and a
   * later launch starts afresh rather than finding an empty game.
   */
  async function deployOrUndo(
    g: GamespaceTable,
    actor: Actor,
    ws: WorkspaceTable,
  ): Promise<GamespaceTable> {
    try {
      return await deploy(g, actor, ws);
    } catch (error) {
      await options.deleteMachines(g.id).catch(() => undefined);
      await repos.gamespaces.remove(g.id);
      throw error;
    }
  }

  /** The topology of a workspace's preview, kept a while (see stateCache.ts). */
  async function previewTopology(workspaceId: string): Promise<TopologyNode[]> {
    const t = now();
    const kept = options.stateCache?.preview(workspaceId, t);
    if (kept) return kept;
    const since = options.stateCache?.epoch() ?? 0;
    const templates = await repos.templates.visibilityInWorkspace(workspaceId);
    const topology = topologyOfTemplates(templates, null);
    options.stateCache?.keepPreview(workspaceId, topology, { now: t, since });
    return topology;
  }

  async function create(
    actor: Actor,
    ws: WorkspaceTable,
    request: Registration,
    players: Array<{ subjectId: string; subjectName: string }>,
    graderKey: string,
    graderUrl: string,
  ): Promise<{ row: GamespaceTable; players: PlayerTable[] }> {
    const t = now();
    const max = maxDuration(actor.gamespaceMaxMinutes, ws.durationMinutes);
    const expirationTime = expirationOf(t, max, {
      maxMinutes: integer(request.maxMinutes, 'maxMinutes'),
      expirationTime: parseDate(request.expirationTime),
    });
    const id = newId();
    const challenge = cloneChallenge(ws.challenge, {
      requestedVariant: integer(request.variant, 'variant'),
      maxPoints: integer(request.points, 'points', { fallback: DEFAULT_POINTS }),
      maxAttempts: integer(request.maxAttempts, 'maxAttempts', { fallback: DEFAULT_MAX_ATTEMPTS }),
      context: { gamespaceId: id, graderUrl, graderKey },
      random: context.random,
    });
    const requestedCount = integer(request.playerCount, 'playerCount');
    const row: GamespaceTable = {
      id,
      name: ws.name,
      managerId: actor.id,
      managerName: actor.name,
      graderKey: sha256Hex(graderKey),
      whenCreated: t,
      startTime: 0,
      endTime: 0,
      expirationTime,
      cleanupGraceMinutes: actor.gamespaceCleanupGraceMinutes,
      cleaned: 0,
      allowReset: request.allowReset ? 1 : 0,
      challenge: challenge.text,
      workspaceId: ws.id,
      variant: challenge.variant,
      playerCount: requestedCount > 0 ? requestedCount : players.length,
    };
    // The first player manages the gamespace with its launcher.
    const unique = [...new Map(players.map((p) => [p.subjectId, p])).values()];
    const rows: PlayerTable[] = unique.map((p, i) => ({
      gamespaceId: id,
      subjectId: p.subjectId,
      subjectName: p.subjectName,
      permission: i === 0 ? PERMISSION.manager : PERMISSION.none,
    }));
    await repos.gamespaces.create(row, rows);
    return { row, players: rows };
  }

  return {
    /** GET /api/preview/{id}: the name and the document above the cut (or a title). */
    async preview(actor: Actor, workspaceId: unknown): Promise<GameState> {
      const ws = await context.findWorkspace(workspaceId);
      if (!ws) throw unknownArgument('id');
      if (!(await context.hasValidUserScope(actor, ws))) throw forbidden();
      const markdown = aboveCut(await readDocument(options.docsDir, ws.id, now()));
      return previewState(
        ws.name,
        markdown.trim() ? markdown : `# ${ws.name}`,
        await previewTopology(ws.id),
      );
    },

    /**
     * GET /api/gamespace/{id}: a gamespace (its grader key, its manager and players, admins), or
     * for a workspace id the actor's active gamespace of it, else its preview (id null). The
     * state is the same for every caller (and kept as it is, see stateCache.ts); whether this
     * caller may manage it comes beside it.
     */
    async load(actor: Actor, id: unknown): Promise<{ state: GameState; canManage: boolean }> {
      const key = asId(id);
      const t = now();
      const kept = key ? options.stateCache?.get(key, t) : undefined;
      if (kept) {
        if (!context.interacts(actor, kept.row, kept.players)) throw forbidden();
        return { state: kept.state, canManage: context.manages(actor, kept.row, kept.players) };
      }
      const since = options.stateCache?.epoch() ?? 0;
      const g = await context.findGamespace(id);
      if (g) {
        // The players are read once: for gs.CanInteract, gs.CanManage and for the state.
        const players = await repos.players.of(g.id);
        if (!context.interacts(actor, g, players)) throw forbidden();
        const result = await state(g, { players });
        options.stateCache?.set({ row: g, players, state: result }, { now: t, since });
        return { state: result, canManage: context.manages(actor, g, players) };
      }
      const ws = await context.findWorkspace(id);
      if (!ws) throw unknownArgument('id');
      const active = await activeGamespaceOf(ws.id, actor.id);
      if (active) {
        const players = await repos.players.of(active.id);
        return {
          state: await state(active, { players }),
          canManage: context.manages(actor, active, players),
        };
      }
      // Not the reference's check, which has none here: without it anyone could read any
      // workspace's document above the cut by its id.
      if (!(await context.hasValidUserScope(actor, ws))) throw forbidden();
      return {
        state: previewState(
          ws.name,
          aboveCut(await readDocument(options.docsDir, ws.id, now())),
          await previewTopology(ws.id),
        ),
        canManage: false,
      };
    },

    /**
     * POST /api/gamespace. Stricter than the reference, which lets anyone who may play the
     * workspace name any players, answers the first one's active gamespace and mints a launch
     * ticket for them (a way to become any user): only admins and accounts allowed to register
     * others (`isRegistrar`: the service accounts of Gameboard or the Moodle plugin) may name
     * anyone but themselves. The launch ticket reaches only the new gamespace (grants.ts).
     */
    async register(actor: Actor, request: Registration, origin: RequestOrigin): Promise<GameState> {
      const ws = await context.findWorkspace(request.resourceId);
      if (!ws) throw unknownArgument('resourceId');
      if (!(await context.hasValidUserScope(actor, ws))) throw forbidden();
      const requested = (request.players ?? [])
        .filter((p) => typeof p?.subjectId === 'string' && p.subjectId)
        .map((p) => ({ subjectId: p.subjectId!, subjectName: p.subjectName ?? '' }));
      if (!actor.isRegistrar && requested.some((p) => p.subjectId !== actor.id)) {
        throw forbidden();
      }
      const playerId = requested[0]?.subjectId ?? actor.id;

      let g = await activeGamespaceOf(ws.id, playerId);
      // The players of a gamespace made here, for its state without reading them back.
      let created: PlayerTable[] | undefined;
      if (!g) {
        g = await oneLaunchOfActor(context, actor, async () => {
          // One launch at a time per player and workspace, across servers (the lock is in the
          // shared cache): a double click must not make two gamespaces.
          const lock = `:lck:${playerId}${ws.id}`;
          if (!(await options.cache.setIfAbsent(lock, actor.id, LAUNCH_LOCK_MS))) {
            throw new DomainError('ResourceIsLocked');
          }
          try {
            // A launch that finished while this one waited for a lock is reused.
            const active = await activeGamespaceOf(ws.id, playerId);
            if (active) return active;
            // Counted while this actor's launches are held (oneLaunchOfActor): exact.
            if (!(await isBelowLimit(context, actor)))
              throw new DomainError('ClientGamespaceLimitReached');
            const graderUrl = request.graderUrl || `${origin.origin}/api/gamespace/grade`;
            const graderKey = request.graderKey || newId();
            const players = requested.length
              ? requested
              : [{ subjectId: actor.id, subjectName: actor.name }];
            const made = await create(actor, ws, request, players, graderKey, graderUrl);
            created = [...made.players].sort(inStateOrder);
            return request.startGamespace ? deployOrUndo(made.row, actor, ws) : made.row;
          } finally {
            await options.cache.delete(lock);
          }
        });
      }

      const token = newToken();
      const first = requested[0];
      if (first) {
        await context.grantTicket(token, {
          id: first.subjectId,
          name: first.subjectName,
          gamespaceId: g.id,
        });
      }
      const players = created ?? (await repos.players.of(g.id));
      const result = await state(g, {
        preview: !!request.allowPreview,
        launchpointUrl: `${origin.origin}/lp?t=${token}&g=${g.id}`,
        players,
      });
      return { ...result, canManage: context.manages(actor, g, players) };
    },
  };
}

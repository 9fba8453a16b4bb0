import { parseChallengeText } from '../../../src/domain/challenge';
import type { Random } from '../../../src/domain/transforms';
import { ticketKey, ticketValue } from '../../auth/authenticate';
import type { HypervisorDriver } from '../../hypervisor/driver';
import { isUniqueViolation, type Db } from '../../store/db';
import type { GamespaceTable, PlayerTable, WorkspaceTable } from '../../store/schema';
import type { Cache } from '../cache';
import { hasAnyToken, parseDate } from '../dto';
import { DomainError, forbidden } from '../errors';
import { createFavorites } from '../favorites';
import { actorRef, integer, unknownArgument, type EventPayload } from '../fields';
import {
  aboveCut,
  gameState,
  playerDto,
  playersOf,
  readDocument,
  type GameState,
  type PlayerDto,
} from '../gamespaces';
import { EMPTY_GUID, newId, newToken, sha256Hex } from '../ids';
import type { VmPublisher } from '../vms';
import { NO_REVOKER, type ListenerRevoker } from '../membership';
import { PERMISSION } from '../workspaces';
import type { Actor } from '../users';
import { deployAndWait, DEPLOY_POLL, gamespaceTemplates, workspaceTemplates } from './deploy';
import { createInvitations } from './invitations';
import type { StateCache } from './stateCache';
import {
  cloneChallenge,
  cryptoRandom,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_POINTS,
  expirationOf,
  LAUNCH_LOCK_MS,
  maxDuration,
} from './registration';

// Playing a workspace (wire reference §1.2, §4.2, §4.5, §4.7): launching a gamespace, deploying
// its machines, starting, stopping, completing and deleting it, and the players who share it.
// Authorization follows the reference's predicates: gs.CanInteract (the manager or any player),
// gs.CanManage (the manager or a player with Manager permission), admins always pass, and the
// grader key's agent (whose id is the gamespace id) may read its own gamespace.

/** Who the janitor's changes are announced as. */
const JANITOR_ACTOR = { id: EMPTY_GUID, name: 'Janitor' };

/** How long a launch ticket lasts (sliding), as the reference caches it. */
export const LAUNCH_TICKET_MS = 180_000;

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

export interface GameEventPublisher {
  publish(group: string, event: 'GameEvent', payload: EventPayload): void;
}

export interface PlayServiceOptions {
  driver: HypervisorDriver;
  cache: Cache;
  publisher: GameEventPublisher;
  /** VM.DEPLOY for each new machine, to the gamespace's group. */
  vmPublisher: VmPublisher;
  /** Removes a gamespace's machines and announces it (the VM service's deleteAll). */
  deleteMachines(gamespaceId: string): Promise<void>;
  docsDir?: string;
  now?: () => number;
  random?: Random;
  deployPoll?: { attempts: number; intervalMs: number };
  /** Kept game states for GET /api/gamespace/{id} (see stateCache.ts). */
  stateCache?: StateCache;
  /** Players removed and gamespaces deleted stop receiving the gamespace's hub events. */
  listeners?: ListenerRevoker;
}

const asId = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= 64 ? value : null;

/** The empty GameState of a preview: just the name and the document above the cut. */
function previewState(name: string, markdown: string): GameState {
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
  };
}

export function createPlayService(db: Db, options: PlayServiceOptions) {
  const now = options.now ?? Date.now;
  const random = options.random ?? cryptoRandom;
  const invitations = createInvitations(options.cache);
  const favorites = createFavorites(db, 'gamespaceFavorites', now);
  const listeners = options.listeners ?? NO_REVOKER;

  const state = (
    g: GamespaceTable,
    extra: { preview?: boolean; launchpointUrl?: string | null; players?: PlayerTable[] } = {},
  ) =>
    gameState(g, {
      db,
      driver: options.driver,
      docsDir: options.docsDir,
      now: now(),
      ...extra,
    });

  async function findGamespace(id: unknown): Promise<GamespaceTable | undefined> {
    const key = asId(id);
    if (!key) return undefined;
    return db.selectFrom('gamespaces').selectAll().where('id', '=', key).executeTakeFirst();
  }

  /** The gamespace, or 400 ResourceNotFound naming the argument (before authorization). */
  async function existing(id: unknown, argument = 'id'): Promise<GamespaceTable> {
    const g = await findGamespace(id);
    if (!g) throw unknownArgument(argument);
    return g;
  }

  async function findWorkspace(id: unknown): Promise<WorkspaceTable | undefined> {
    const key = asId(id);
    if (!key) return undefined;
    return db.selectFrom('workspaces').selectAll().where('id', '=', key).executeTakeFirst();
  }

  async function permissionOf(actorId: string, gamespaceId: string): Promise<number | null> {
    const p = await db
      .selectFrom('players')
      .select('permission')
      .where('gamespaceId', '=', gamespaceId)
      .where('subjectId', '=', actorId)
      .executeTakeFirst();
    return p ? p.permission : null;
  }

  /** gs.CanInteract: the manager or any player (admins pass every check). */
  async function canInteract(actor: Actor, g: GamespaceTable): Promise<boolean> {
    if (actor.isAdmin || g.managerId === actor.id) return true;
    return (await permissionOf(actor.id, g.id)) !== null;
  }

  /** gs.CanInteract from rows at hand, or the grader key's agent of this gamespace. */
  const interacts = (
    actor: Actor,
    g: Pick<GamespaceTable, 'id' | 'managerId'>,
    players: readonly Pick<PlayerTable, 'subjectId'>[],
  ) =>
    actor.isAdmin ||
    actor.id === g.id ||
    g.managerId === actor.id ||
    players.some((p) => p.subjectId === actor.id);

  /** gs.CanManage: the manager or a player with Manager permission. */
  async function canManage(actor: Actor, g: GamespaceTable): Promise<boolean> {
    if (actor.isAdmin || g.managerId === actor.id) return true;
    return (await permissionOf(actor.id, g.id)) === PERMISSION.manager;
  }

  async function assertManage(actor: Actor, id: unknown): Promise<GamespaceTable> {
    const g = await existing(id);
    if (!(await canManage(actor, g))) throw forbidden();
    return g;
  }

  /**
   * HasValidUserScope: the workspace's audience shares a token with the actor's scope plus
   * "everyone", or the actor works on it, or is an admin. The audience is what publishes a
   * workspace here: `isPublished` is a column no route sets (as in the reference, where the
   * check reads only the audience). A grader key's agent never launches anything.
   */
  async function hasValidUserScope(actor: Actor, ws: WorkspaceTable): Promise<boolean> {
    if (actor.isAgent) return false;
    if (actor.isAdmin) return true;
    if (hasAnyToken(ws.audience, `${actor.scope} everyone`)) return true;
    const worker = await db
      .selectFrom('workers')
      .select('subjectId')
      .where('workspaceId', '=', ws.id)
      .where('subjectId', '=', actor.id)
      .executeTakeFirst();
    return !!worker;
  }

  /**
   * A gamespace of the workspace, not ended nor expired, that the player manages or plays: the
   * newest. Looked up from the player's side (the gamespaces they manage, their player rows),
   * both by index, so a launch costs the same with one gamespace of the workspace or thousands.
   */
  async function activeGamespaceOf(workspaceId: string, playerId: string) {
    const t = now();
    const managed = await db
      .selectFrom('gamespaces as g')
      .selectAll('g')
      .where('g.managerId', '=', playerId)
      .where('g.workspaceId', '=', workspaceId)
      .where('g.endTime', '<=', 0)
      .where('g.expirationTime', '>', t)
      .orderBy('g.whenCreated', 'desc')
      .executeTakeFirst();
    const played = await db
      .selectFrom('players as p')
      .innerJoin('gamespaces as g', 'g.id', 'p.gamespaceId')
      .selectAll('g')
      .where('p.subjectId', '=', playerId)
      .where('g.workspaceId', '=', workspaceId)
      .where('g.endTime', '<=', 0)
      .where('g.expirationTime', '>', t)
      .orderBy('g.whenCreated', 'desc')
      .executeTakeFirst();
    if (!managed || !played) return managed ?? played;
    return played.whenCreated > managed.whenCreated ? played : managed;
  }

  /** IsBelowGamespaceLimit: gamespaces the actor manages that started and did not end. */
  async function isBelowLimit(actor: Actor): Promise<boolean> {
    if (actor.gamespaceLimit <= 0) return true;
    const { n } = await db
      .selectFrom('gamespaces')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('managerId', '=', actor.id)
      .where('startTime', '>', 0)
      .where('endTime', '<=', 0)
      .executeTakeFirstOrThrow();
    return Number(n) < actor.gamespaceLimit;
  }

  function publishGame(
    actor: { id: string; name: string },
    action: 'GAME.UPDATE' | 'GAME.OVER',
    id: string,
    model: unknown,
  ) {
    options.publisher.publish(id, 'GameEvent', { action, actor: actorRef(actor), model });
  }

  /**
   * GAME.UPDATE with the gamespace as it is now, after a change that answers no state (extend,
   * players joining or leaving): the other players' pages follow, and every server process drops
   * its kept state of it.
   */
  async function announce(by: { id: string; name: string }, id: string): Promise<void> {
    const g = await findGamespace(id);
    if (g) publishGame(by, 'GAME.UPDATE', g.id, await state(g));
  }

  /**
   * Deploys the machines of the gamespace's variant; once all of them exist the gamespace starts
   * (startTime is set only once). Returns the row as it is afterwards.
   */
  async function deploy(g: GamespaceTable, actor: Actor): Promise<GamespaceTable> {
    const ws = g.workspaceId ? await findWorkspace(g.workspaceId) : undefined;
    if (!ws) return g;
    const spec = parseChallengeText(g.challenge);
    const templates = gamespaceTemplates(g, ws, await workspaceTemplates(db, ws.id), spec);
    const { complete, deployed } = await deployAndWait(
      options.driver,
      { gamespaceId: g.id, hostAffinity: !!ws.hostAffinity, privileged: actor.isBuilder },
      templates,
      options.deployPoll ?? DEPLOY_POLL,
    );
    if (complete && g.startTime <= 0) {
      await db
        .updateTable('gamespaces')
        .set({ startTime: now() })
        .where('id', '=', g.id)
        .where('startTime', '<=', 0)
        .execute();
      options.stateCache?.forget(g.id);
    }
    // Announced after the start is stored: a page that reads on the announcement sees it started
    // (and kept states of the gamespace are dropped only once it is).
    for (const vm of deployed) {
      options.vmPublisher.publish(g.id, 'VmEvent', {
        action: 'VM.DEPLOY',
        actor: actorRef(actor),
        model: vm,
      });
    }
    return (complete && g.startTime <= 0 ? await findGamespace(g.id) : g) ?? g;
  }

  async function create(
    actor: Actor,
    ws: WorkspaceTable,
    request: Registration,
    players: Array<{ subjectId: string; subjectName: string }>,
    graderKey: string,
    graderUrl: string,
  ): Promise<GamespaceTable> {
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
      random,
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
    await db.transaction().execute(async (tx) => {
      await tx.insertInto('gamespaces').values(row).execute();
      // The first player manages the gamespace with its launcher.
      const unique = [...new Map(players.map((p) => [p.subjectId, p])).values()];
      if (unique.length > 0) {
        await tx
          .insertInto('players')
          .values(
            unique.map((p, i) => ({
              gamespaceId: id,
              subjectId: p.subjectId,
              subjectName: p.subjectName,
              permission: i === 0 ? PERMISSION.manager : PERMISSION.none,
            })),
          )
          .execute();
      }
      await tx
        .updateTable('workspaces')
        .set((eb) => ({ launchCount: eb('launchCount', '+', 1), lastActivity: t }))
        .where('id', '=', ws.id)
        .execute();
    });
    return row;
  }

  return {
    state,
    canInteract,
    canManage,

    /** GET /api/preview/{id}: the name and the document above the cut (or a title). */
    async preview(actor: Actor, workspaceId: unknown): Promise<GameState> {
      const ws = await findWorkspace(workspaceId);
      if (!ws) throw unknownArgument('id');
      if (!(await hasValidUserScope(actor, ws))) throw forbidden();
      const markdown = aboveCut(await readDocument(options.docsDir, ws.id));
      return previewState(ws.name, markdown.trim() ? markdown : `# ${ws.name}`);
    },

    /**
     * GET /api/gamespace/{id}: a gamespace (its grader key, its manager and players, admins), or
     * for a workspace id the actor's active gamespace of it, else its preview (id null).
     */
    async load(actor: Actor, id: unknown): Promise<GameState> {
      const key = asId(id);
      const t = now();
      const kept = key ? options.stateCache?.get(key, t) : undefined;
      if (kept) {
        if (!interacts(actor, kept.row, kept.players)) throw forbidden();
        return kept.state;
      }
      const since = options.stateCache?.epoch() ?? 0;
      const g = await findGamespace(id);
      if (g) {
        // The players are read once: for gs.CanInteract and for the state.
        const players = await playersOf(db, g.id);
        if (!interacts(actor, g, players)) throw forbidden();
        const result = await state(g, { players });
        options.stateCache?.set({ row: g, players, state: result }, { now: t, since });
        return result;
      }
      const ws = await findWorkspace(id);
      if (!ws) throw unknownArgument('id');
      const active = await activeGamespaceOf(ws.id, actor.id);
      if (active) return state(active);
      // Not the reference's check, which has none here: without it anyone could read any
      // workspace's document above the cut by its id.
      if (!(await hasValidUserScope(actor, ws))) throw forbidden();
      return previewState(ws.name, aboveCut(await readDocument(options.docsDir, ws.id)));
    },

    /**
     * POST /api/gamespace. Stricter than the reference, which lets anyone who may play the
     * workspace name any players, answers the first one's active gamespace and mints a launch
     * ticket for them (a way to become any user): only admins and accounts allowed to register
     * others (`isRegistrar`: the service accounts of Gameboard or the Moodle plugin) may name
     * anyone but themselves. The launch ticket reaches only the new gamespace (grants.ts).
     */
    async register(actor: Actor, request: Registration, origin: RequestOrigin): Promise<GameState> {
      const ws = await findWorkspace(request.resourceId);
      if (!ws) throw unknownArgument('resourceId');
      if (!(await hasValidUserScope(actor, ws))) throw forbidden();
      const requested = (request.players ?? [])
        .filter((p) => typeof p?.subjectId === 'string' && p.subjectId)
        .map((p) => ({ subjectId: p.subjectId!, subjectName: p.subjectName ?? '' }));
      if (!actor.isRegistrar && requested.some((p) => p.subjectId !== actor.id)) {
        throw forbidden();
      }
      const playerId = requested[0]?.subjectId ?? actor.id;

      let g = await activeGamespaceOf(ws.id, playerId);
      if (!g) {
        if (!(await isBelowLimit(actor))) throw new DomainError('ClientGamespaceLimitReached');
        // One launch at a time per player and workspace, across servers (the lock is in the
        // shared cache): a double click must not make two gamespaces.
        const lock = `:lck:${playerId}${ws.id}`;
        if (!(await options.cache.setIfAbsent(lock, actor.id, LAUNCH_LOCK_MS))) {
          throw new DomainError('ResourceIsLocked');
        }
        try {
          // A launch that finished while this one waited for the lock is reused.
          g = await activeGamespaceOf(ws.id, playerId);
          if (!g) {
            const graderUrl = request.graderUrl || `${origin.origin}/api/gamespace/grade`;
            const graderKey = request.graderKey || newId();
            const players = requested.length
              ? requested
              : [{ subjectId: actor.id, subjectName: actor.name }];
            g = await create(actor, ws, request, players, graderKey, graderUrl);
            if (request.startGamespace) g = await deploy(g, actor);
          }
        } finally {
          await options.cache.delete(lock);
        }
      }

      const token = newToken();
      const first = requested[0];
      if (first) {
        await options.cache.set(
          ticketKey(token),
          ticketValue({ id: first.subjectId, name: first.subjectName, gamespaceId: g.id }),
          LAUNCH_TICKET_MS,
          { sliding: true },
        );
      }
      return state(g, {
        preview: !!request.allowPreview,
        launchpointUrl: `${origin.origin}/lp?t=${token}&g=${g.id}`,
      });
    },

    /** PUT /api/gamespace: a new expiration time (gs.CanManage). */
    async update(actor: Actor, model: { id?: unknown; expirationTime?: unknown }): Promise<void> {
      const g = await assertManage(actor, model.id);
      const expirationTime = parseDate(model.expirationTime);
      if (expirationTime <= 0) throw new DomainError('InvalidOperation');
      await db.updateTable('gamespaces').set({ expirationTime }).where('id', '=', g.id).execute();
      await announce(actor, g.id);
    },

    /** GAME.UPDATE for a change made outside this service (the janitor ending a game). */
    changed: (gamespaceId: string) => announce(JANITOR_ACTOR, gamespaceId),

    /** POST /api/gamespace/{id}/start: deploys unless ended or expired; GAME.UPDATE. */
    async start(actor: Actor, id: unknown): Promise<GameState> {
      let g = await assertManage(actor, id);
      if (g.endTime <= 0 && g.expirationTime > now()) g = await deploy(g, actor);
      const result = await state(g);
      publishGame(actor, 'GAME.UPDATE', g.id, result);
      return result;
    },

    /** POST /api/gamespace/{id}/stop: the machines go; the gamespace does not end. */
    async stop(actor: Actor, id: unknown): Promise<GameState> {
      const g = await assertManage(actor, id);
      await options.deleteMachines(g.id);
      const result = await state(g);
      publishGame(actor, 'GAME.UPDATE', g.id, result);
      return result;
    },

    /** POST /api/gamespace/{id}/complete: ends it now (the janitor removes its machines). */
    async complete(actor: Actor, id: unknown): Promise<GameState> {
      const g = await assertManage(actor, id);
      if (g.endTime <= 0) {
        await db.updateTable('gamespaces').set({ endTime: now() }).where('id', '=', g.id).execute();
      }
      const result = await state((await findGamespace(g.id)) ?? g);
      publishGame(actor, 'GAME.UPDATE', g.id, result);
      return result;
    },

    /**
     * DELETE /api/gamespace/{id} (gs.CanInteract). Unless an admin, only a gamespace that allows
     * reset may be deleted. Quirk fixed: the reference deletes the machines before this check, so
     * a refused player loses the machines of a gamespace that stays; here nothing is touched.
     */
    async remove(actor: Actor, id: unknown): Promise<void> {
      const g = await existing(id);
      if (!(await canInteract(actor, g))) throw forbidden();
      if (!actor.isAdmin && !g.allowReset) throw new DomainError('ActionForbidden');
      await options.deleteMachines(g.id);
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('players').where('gamespaceId', '=', g.id).execute();
        await tx.deleteFrom('gamespaces').where('id', '=', g.id).execute();
      });
      publishGame(actor, 'GAME.OVER', g.id, { id: g.id });
      listeners.revoke({ group: g.id });
    },

    /** POST /api/gamespace/{id}/invite (gs.CanManage): a code valid 30 minutes. */
    async invite(actor: Actor, id: unknown): Promise<{ id: string; code: string }> {
      const g = await assertManage(actor, id);
      return { id: g.id, code: await invitations.create(g.id) };
    },

    /** POST /api/player/{code}: the actor joins as a player (idempotent). */
    async join(actor: Actor, code: string): Promise<void> {
      const gamespaceId = await invitations.resolve(code);
      if (!(await findGamespace(gamespaceId))) throw new DomainError('InvalidInvitation');
      if (await addPlayer(gamespaceId, actor.id, actor.name)) await announce(actor, gamespaceId);
    },

    /**
     * PUT /api/player/enlist (anonymous): a new player whose subject id is a fresh token, and a
     * ticket for it, so the launchpoint can sign the guest in.
     */
    async enlist(model: {
      code?: unknown;
      subjectName?: unknown;
      /** Quirk fixed: the reference's launchpoint sends `name`, which it ignores. */
      name?: unknown;
    }): Promise<{ gamespaceId: string; token: string }> {
      const gamespaceId = await invitations.resolve(
        typeof model.code === 'string' ? model.code : '',
      );
      if (!(await findGamespace(gamespaceId))) throw new DomainError('InvalidInvitation');
      const given = [model.subjectName, model.name].find(
        (v): v is string => typeof v === 'string' && v.trim() !== '',
      );
      const name = given ? given.trim().slice(0, 64) : 'anonymous';
      const token = newToken();
      await addPlayer(gamespaceId, token, name);
      await announce({ id: token, name }, gamespaceId);
      // The guest's ticket reaches this gamespace only.
      await options.cache.set(
        ticketKey(token),
        ticketValue({ id: token, name, gamespaceId }),
        LAUNCH_TICKET_MS,
        { sliding: true },
      );
      return { gamespaceId, token };
    },

    /** GET /api/players/{id} (gs.CanInteract). */
    async players(actor: Actor, id: unknown): Promise<PlayerDto[]> {
      const g = await existing(id);
      if (!(await canInteract(actor, g))) throw forbidden();
      const rows = await db
        .selectFrom('players')
        .selectAll()
        .where('gamespaceId', '=', g.id)
        .orderBy('subjectName')
        .orderBy('subjectId')
        .execute();
      return rows.map(playerDto);
    },

    /** DELETE /api/gamespace/{id}/player/{subjectId} (gs.CanManage). */
    async removePlayer(actor: Actor, id: unknown, subjectId: string): Promise<void> {
      const g = await assertManage(actor, id);
      await db
        .deleteFrom('players')
        .where('gamespaceId', '=', g.id)
        .where('subjectId', '=', subjectId)
        .execute();
      await announce(actor, g.id);
      listeners.revoke({ group: g.id, subjectId });
    },

    /** GET /api/gamespace-favorites: the actor's favorite gamespace ids, oldest first. */
    favorites: (actor: Actor): Promise<string[]> => favorites.list(actor.id),

    /** PUT /api/gamespace-favorite/{id}: false when there is no such gamespace (404). */
    async favorite(actor: Actor, gamespaceId: string): Promise<boolean> {
      if (!(await findGamespace(gamespaceId))) return false;
      await favorites.add(actor.id, gamespaceId);
      return true;
    },

    /** DELETE /api/gamespace-favorite/{id}. */
    unfavorite: (actor: Actor, gamespaceId: string): Promise<void> =>
      favorites.remove(actor.id, gamespaceId),
  };

  /** True when the subject was not a player yet. */
  async function addPlayer(
    gamespaceId: string,
    subjectId: string,
    subjectName: string,
  ): Promise<boolean> {
    try {
      await db
        .insertInto('players')
        .values({ gamespaceId, subjectId, subjectName, permission: PERMISSION.none })
        .execute();
      return true;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return false;
    }
  }
}

export type PlayService = ReturnType<typeof createPlayService>;

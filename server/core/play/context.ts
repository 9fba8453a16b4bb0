import type { Random } from '../../../src/domain/transforms';
import { realClock, type Clock } from '../../clock';
import { ticketKey, ticketValue } from '../tickets';
import type { HypervisorDriver, MachineSpec } from '../../hypervisor';
import type { TemplateWithParentDetail } from '../../store/repositories/templates';
import type { Repositories } from '../../store/repositories';
import type { GamespaceTable, PlayerTable, WorkspaceTable } from '../../store/schema';
import type { Cache } from '../cache';
import { hasAnyToken } from '../dto';
import { forbidden } from '../errors';
import { actorRef, unknownArgument, type EventPayload } from '../fields';
import type { GameEventLog } from '../gameEvents';
import { NO_GAME_EVENTS } from '../gameEventLog';
import { gameState } from '../gamespaces';
import { NO_REVOKER, type ListenerRevoker } from '../membership';
import type { Actor } from '../actor';
import type { VmPublisher } from '../vms';
import { PERMISSION } from '../workspaces';
import { cryptoRandom } from './registration';
import type { StateCache } from './stateCache';

// What every job of the play service shares: its dependencies, the rows it reads, the game state
// it answers, authorization by the reference's predicates and the GameEvents it publishes.
// Authorization follows gs.CanInteract (the manager or any player), gs.CanManage (the manager or
// a player with Manager permission), admins always pass, and the grader key's agent (whose id is
// the gamespace id) may read its own gamespace.

/** How long a launch ticket lasts (sliding), as the reference caches it. */
export const LAUNCH_TICKET_MS = 180_000;

export interface GameEventPublisher {
  publish(group: string, event: 'GameEvent', payload: EventPayload): void;
}

/** How a launch's machines can come from a warm pool (core/pools/claims.ts). */
export interface PoolClaims {
  /**
   * Claims a ready set of the workspace's pool for the gamespace and hands its machines over
   * with the gamespace's guest settings: true when the gamespace has its machines (`specs`, as
   * its deploy would make them). False when none was ready (a miss): the launch deploys as
   * without a pool.
   */
  claim(
    g: GamespaceTable,
    ws: WorkspaceTable,
    templates: readonly TemplateWithParentDetail[],
    specs: readonly MachineSpec[],
  ): Promise<boolean>;
}

export interface PlayServiceOptions {
  driver: HypervisorDriver;
  cache: Cache;
  publisher: GameEventPublisher;
  /** VM.DEPLOY for each new machine, to the gamespace's group. */
  vmPublisher: VmPublisher;
  /** Removes a gamespace's machines and announces it (the VM service's deleteAll). */
  deleteMachines(gamespaceId: string): Promise<void>;
  /**
   * Starts removing the machines of a gamespace that just ended, in the background
   * (play/removal.ts): a completed game's machines go at once, not at the janitor's next run.
   */
  machinesEnded(gamespaceId: string): void;
  docsDir?: string;
  random?: Random;
  deployPoll?: { attempts: number; intervalMs: number };
  /** The server's time, and what a launch's wait for its machines (deployPoll) runs on. */
  clock?: Clock;
  /** Kept game states for GET /api/gamespace/{id} (see stateCache.ts). */
  stateCache?: StateCache;
  /** Players removed and gamespaces deleted stop receiving the gamespace's hub events. */
  listeners?: ListenerRevoker;
  /** Warm pools a launch claims its machines from; none: every launch deploys. */
  pools?: PoolClaims;
  /** The gamespaces' event log: deploys, extensions and ends are recorded there. */
  gameEvents?: GameEventLog;
}

type Someone = { id: string; name: string };

export const asId = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= 64 ? value : null;

/** The repositories the play service reads and writes through. */
export type PlayRepositories = Pick<
  Repositories,
  'gamespaces' | 'players' | 'workspaces' | 'templates' | 'gamespaceFavorites'
>;

export function createPlayContext(repositories: PlayRepositories, options: PlayServiceOptions) {
  const clock = options.clock ?? realClock;
  const now = () => clock.now();
  const { gamespaces, players, workspaces, templates } = repositories;
  const repos = { gamespaces, players, workspaces, templates };

  const state = (
    g: GamespaceTable,
    extra: { preview?: boolean; launchpointUrl?: string | null; players?: PlayerTable[] } = {},
  ) =>
    gameState(g, {
      repositories: repos,
      driver: options.driver,
      docsDir: options.docsDir,
      now: now(),
      ...extra,
    });

  async function findGamespace(id: unknown): Promise<GamespaceTable | undefined> {
    const key = asId(id);
    return key ? repos.gamespaces.find(key) : undefined;
  }

  async function findWorkspace(id: unknown): Promise<WorkspaceTable | undefined> {
    const key = asId(id);
    return key ? repos.workspaces.find(key) : undefined;
  }

  /** The gamespace, or 400 ResourceNotFound naming the argument (before authorization). */
  async function existing(id: unknown, argument = 'id'): Promise<GamespaceTable> {
    const g = await findGamespace(id);
    if (!g) throw unknownArgument(argument);
    return g;
  }

  /** gs.CanInteract: the manager or any player (admins pass every check). */
  async function canInteract(actor: Actor, g: GamespaceTable): Promise<boolean> {
    if (actor.isAdmin || g.managerId === actor.id) return true;
    return (await repos.players.permissionOf(g.id, actor.id)) !== null;
  }

  /** gs.CanManage: the manager or a player with Manager permission. */
  async function canManage(actor: Actor, g: GamespaceTable): Promise<boolean> {
    if (actor.isAdmin || g.managerId === actor.id) return true;
    return (await repos.players.permissionOf(g.id, actor.id)) === PERMISSION.manager;
  }

  function publishGame(
    actor: Someone,
    action: 'GAME.UPDATE' | 'GAME.OVER',
    id: string,
    model: unknown,
  ) {
    options.publisher.publish(id, 'GameEvent', { action, actor: actorRef(actor), model });
  }

  return {
    options,
    repos,
    clock,
    now,
    random: options.random ?? cryptoRandom,
    listeners: options.listeners ?? NO_REVOKER,
    gameEvents: options.gameEvents ?? NO_GAME_EVENTS,
    state,
    findGamespace,
    findWorkspace,
    existing,
    canInteract,
    canManage,

    /** gs.CanInteract from rows at hand, or the grader key's agent of this gamespace. */
    interacts: (
      actor: Actor,
      g: Pick<GamespaceTable, 'id' | 'managerId'>,
      players: readonly Pick<PlayerTable, 'subjectId'>[],
    ) =>
      actor.isAdmin ||
      actor.id === g.id ||
      g.managerId === actor.id ||
      players.some((p) => p.subjectId === actor.id),

    /** gs.CanManage from rows at hand: the manager, a player with Manager permission, admins. */
    manages: (
      actor: Actor,
      g: Pick<GamespaceTable, 'managerId'>,
      players: readonly Pick<PlayerTable, 'subjectId' | 'permission'>[],
    ) =>
      actor.isAdmin ||
      g.managerId === actor.id ||
      players.some((p) => p.subjectId === actor.id && p.permission === PERMISSION.manager),

    async assertManage(actor: Actor, id: unknown): Promise<GamespaceTable> {
      const g = await existing(id);
      if (!(await canManage(actor, g))) throw forbidden();
      return g;
    },

    /**
     * HasValidUserScope: the workspace's audience shares a token with the actor's scope plus
     * "everyone", or the actor works on it, or is an admin. The audience is what publishes a
     * workspace here: `isPublished` is a column no route sets (as in the reference, where the
     * check reads only the audience). A grader key's agent never launches anything.
     */
    async hasValidUserScope(actor: Actor, ws: WorkspaceTable): Promise<boolean> {
      if (actor.isAgent) return false;
      if (actor.isAdmin) return true;
      if (hasAnyToken(ws.audience, `${actor.scope} everyone`)) return true;
      return repos.workspaces.isWorker(ws.id, actor.id);
    },

    publishGame,

    /**
     * GAME.UPDATE with the gamespace as it is now, after a change that answers no state (extend,
     * players joining or leaving): the other players' pages follow, and every server process
     * drops its kept state of it.
     */
    async announce(by: Someone, id: string): Promise<void> {
      const g = await findGamespace(id);
      if (g) publishGame(by, 'GAME.UPDATE', g.id, await state(g));
    },

    /** A sliding launch ticket for `subject`, reaching only the gamespace it names. */
    async grantTicket(
      token: string,
      subject: { id: string; name: string; gamespaceId: string },
    ): Promise<void> {
      await options.cache.set(ticketKey(token), ticketValue(subject), LAUNCH_TICKET_MS, {
        sliding: true,
      });
    },
  };
}

export type PlayContext = ReturnType<typeof createPlayContext>;

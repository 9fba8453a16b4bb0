import { createFavorites } from '../favorites';
import type { Actor } from '../actor';
import { createPlayContext, type PlayRepositories, type PlayServiceOptions } from './context';
import { createLaunch } from './launch';
import { createLifecycle } from './lifecycle';
import { createPlayers } from './players';

// Playing a workspace (wire reference §1.2, §4.2, §4.5, §4.7), one job per module: launching
// and reading (launch.ts), a gamespace's life after its launch (lifecycle.ts), its players and
// invitations (players.ts), on what they share (context.ts). This is the one service the routes
// see.

export { LAUNCH_TICKET_MS, type GameEventPublisher, type PlayServiceOptions } from './context';
export type { Registration, RequestOrigin } from './launch';

export function createPlayService(repositories: PlayRepositories, options: PlayServiceOptions) {
  const context = createPlayContext(repositories, options);
  const lifecycle = createLifecycle(context);
  const launch = createLaunch(context, lifecycle.deploy);
  const players = createPlayers(context);
  const favorites = createFavorites(repositories.gamespaceFavorites, context.clock);

  return {
    state: context.state,
    canInteract: context.canInteract,
    canManage: context.canManage,

    preview: launch.preview,
    load: launch.load,
    register: launch.register,

    update: lifecycle.update,
    changed: lifecycle.changed,
    start: lifecycle.start,
    stop: lifecycle.stop,
    complete: lifecycle.complete,
    remove: lifecycle.remove,

    invite: players.invite,
    join: players.join,
    enlist: players.enlist,
    players: players.players,
    removePlayer: players.removePlayer,

    /** GET /api/gamespace-favorites: the actor's favorite gamespace ids, oldest first. */
    favorites: (actor: Actor): Promise<string[]> => favorites.list(actor.id),

    /** PUT /api/gamespace-favorite/{id}: false when there is no such gamespace (404). */
    async favorite(actor: Actor, gamespaceId: string): Promise<boolean> {
      if (!(await context.findGamespace(gamespaceId))) return false;
      await favorites.add(actor.id, gamespaceId);
      return true;
    },

    /** DELETE /api/gamespace-favorite/{id}. */
    unfavorite: (actor: Actor, gamespaceId: string): Promise<void> =>
      favorites.remove(actor.id, gamespaceId),
  };
}

export type PlayService = ReturnType<typeof createPlayService>;

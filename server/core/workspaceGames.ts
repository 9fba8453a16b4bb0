import { isoDate } from './dto';
import { notFound } from './errors';
import { actorRef } from './fields';
import type { Actor } from './actor';
import type { WorkspaceContext } from './workspaceContext';

// A workspace's gamespaces as its editors see them (wire reference §1.1): how many are under way,
// and ending them all at once.

export interface WorkspaceStats {
  id: string;
  activeGamespaceCount: number;
  launchCount: number;
  lastActivity: string;
}

export function createWorkspaceGames(context: WorkspaceContext) {
  const { repo, find, editable, publisher } = context;

  async function statsOf(id: string): Promise<WorkspaceStats> {
    const ws = await find(id);
    if (!ws) throw notFound();
    return {
      id,
      activeGamespaceCount: await repo.countUnendedGames(id),
      launchCount: ws.launchCount,
      lastActivity: isoDate(ws.lastActivity),
    };
  }

  return {
    /** GET /api/workspace/{id}/stats (ws.CanEdit). */
    async stats(actor: Actor, id: unknown): Promise<WorkspaceStats> {
      const ws = await editable(actor, id);
      return statsOf(ws.id);
    },

    /**
     * DELETE /api/workspace/{id}/games (ws.CanEdit): ends every gamespace of the workspace that
     * has not ended (endTime = now), removes their machines (the seam) and tells each gamespace's
     * group GAME.OVER. The rows stay, so their history does too.
     */
    async endGames(actor: Actor, id: unknown): Promise<WorkspaceStats> {
      const ws = await editable(actor, id);
      const games = await repo.unendedGames(ws.id);
      await repo.endGames(games, context.clock.now());
      for (const game of games) {
        await context.machines.gamespaceEnded(game);
        publisher.publish(game, 'GameEvent', {
          action: 'GAME.OVER',
          actor: actorRef(actor),
          model: { id: game },
        });
      }
      return statsOf(ws.id);
    },
  };
}

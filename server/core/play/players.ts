import { DomainError, forbidden } from '../errors';
import { playerDto, type PlayerDto } from '../gamespaces';
import { newId, newToken } from '../ids';
import type { Actor } from '../actor';
import { PERMISSION } from '../workspaces';
import type { PlayContext } from './context';
import { createInvitations } from './invitations';

// The players of a gamespace (wire reference §4.7): invitations, joining by code (signed in or as
// a guest), the list, and removing a player.

export function createPlayers(context: PlayContext) {
  const { repos, announce } = context;
  const invitations = createInvitations(context.options.cache);

  /** True when the subject was not a player yet. */
  const addPlayer = (gamespaceId: string, subjectId: string, subjectName: string) =>
    repos.players.add({ gamespaceId, subjectId, subjectName, permission: PERMISSION.none });

  return {
    /** POST /api/gamespace/{id}/invite (gs.CanManage): a code valid 30 minutes. */
    async invite(actor: Actor, id: unknown): Promise<{ id: string; code: string }> {
      const g = await context.assertManage(actor, id);
      return { id: g.id, code: await invitations.create(g.id) };
    },

    /** POST /api/player/{code}: the actor joins as a player (idempotent). */
    async join(actor: Actor, code: string): Promise<void> {
      const gamespaceId = await invitations.resolve(code);
      if (!(await context.findGamespace(gamespaceId))) throw new DomainError('InvalidInvitation');
      if (await addPlayer(gamespaceId, actor.id, actor.name)) await announce(actor, gamespaceId);
    },

    /**
     * PUT /api/player/enlist (anonymous): a new player, and a ticket for it, so the launchpoint
     * can sign the guest in. Quirk fixed: the reference makes the ticket the player's subject id
     * too, which every co-player reads in the player list and in GAME.UPDATE, so one of them
     * could sign in as the guest first. Here the subject has an id of its own, and the ticket
     * goes only into this answer, to the guest.
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
      if (!(await context.findGamespace(gamespaceId))) throw new DomainError('InvalidInvitation');
      const given = [model.subjectName, model.name].find(
        (v): v is string => typeof v === 'string' && v.trim() !== '',
      );
      const name = given ? given.trim().slice(0, 64) : 'anonymous';
      const subjectId = newId();
      await addPlayer(gamespaceId, subjectId, name);
      await announce({ id: subjectId, name }, gamespaceId);
      // The guest's ticket reaches this gamespace only.
      const token = newToken();
      await context.grantTicket(token, { id: subjectId, name, gamespaceId });
      return { gamespaceId, token };
    },

    /** GET /api/players/{id} (gs.CanInteract). */
    async players(actor: Actor, id: unknown): Promise<PlayerDto[]> {
      const g = await context.existing(id);
      if (!(await context.canInteract(actor, g))) throw forbidden();
      return (await repos.players.of(g.id)).map(playerDto);
    },

    /** DELETE /api/gamespace/{id}/player/{subjectId} (gs.CanManage). */
    async removePlayer(actor: Actor, id: unknown, subjectId: string): Promise<void> {
      const g = await context.assertManage(actor, id);
      await repos.players.remove(g.id, subjectId);
      await announce(actor, g.id);
      context.listeners.revoke({ group: g.id, subjectId });
    },
  };
}

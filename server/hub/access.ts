import type { Actor } from '../core/actor';
import type { WorkspaceService } from '../core/workspaces';
import type { MembershipRepository } from '../store/repositories/membership';

/**
 * Who may listen on a channel (wire reference §3, Listen): an administrator; the gamespace's own
 * agent (its id is the channel); a player or the manager of gamespace `channelId`; a worker of
 * workspace `channelId`. A connection made with a credential held to one gamespace listens only
 * there.
 */
export function createChannelAccess(
  membership: Pick<MembershipRepository, 'playsOrManages'>,
  workspaces: WorkspaceService,
) {
  return async function canListen(actor: Actor, channelId: string): Promise<boolean> {
    if (actor.grant) {
      if (channelId !== actor.grant.gamespaceId) return false;
      return actor.isAgent || membership.playsOrManages(actor.id, channelId);
    }
    if (actor.isAdmin || actor.id === channelId) return true;
    if (await membership.playsOrManages(actor.id, channelId)) return true;
    return workspaces.canEdit(actor, channelId);
  };
}

export type ChannelAccess = ReturnType<typeof createChannelAccess>;

import type { Actor } from '../core/actor';
import { observedWorkspace } from '../core/observeFeed';
import type { WorkspaceService } from '../core/workspaces';
import type { MembershipRepository } from '../store/repositories/membership';

/**
 * Who may listen on a channel (wire reference §3, Listen): an administrator; the gamespace's own
 * agent (its id is the channel); a player or the manager of gamespace `channelId`; a worker of
 * workspace `channelId`. A connection made with a credential held to one gamespace listens only
 * there. Ours: a workspace's observe channel (`observe:{workspaceId}`, server/core/observeFeed.ts)
 * only those who may observe it, `mayObserve`: administrators and observers of its audience.
 */
export function createChannelAccess(
  membership: Pick<MembershipRepository, 'playsOrManages'>,
  workspaces: WorkspaceService,
  mayObserve: (actor: Actor, workspaceId: string) => Promise<boolean>,
) {
  return async function canListen(actor: Actor, channelId: string): Promise<boolean> {
    const observed = observedWorkspace(channelId);
    if (observed !== null) return !actor.grant && mayObserve(actor, observed);
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

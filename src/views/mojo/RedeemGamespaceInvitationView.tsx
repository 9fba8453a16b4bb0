import type { WorkspaceInvitationActorRef } from '../../machines/workspaceInvitationMachine';
import { WorkspaceInvitationView } from '../topo/WorkspaceInvitationView';

/**
 * /mojo/{id}/{slug}/{code}: 'Redeeming invitation', then the play page; 'Invalid invitation
 * code.' on failure (spec §2, §8). The redemption is the workspace invitation's, with the app's
 * POST player/{code} and the play page as its effects, so it reads and behaves the same.
 */
export function RedeemGamespaceInvitationView({
  invitation,
}: {
  invitation: WorkspaceInvitationActorRef;
}) {
  return <WorkspaceInvitationView invitation={invitation} title="Gamespace invitation" />;
}

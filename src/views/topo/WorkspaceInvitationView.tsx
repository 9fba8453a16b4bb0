import { useParams } from 'react-router';

/**
 * /topo/{id}/invite/{code}. Redeeming calls POST worker/{code}, which arrives with workspace
 * collaboration; until then the code is not redeemed and the page says so.
 */
export default function WorkspaceInvitationView() {
  const { id } = useParams();
  return (
    <div className="tp-page tp-center">
      <h1>Redeeming invitation</h1>
      <p className="tp-muted">
        Workspace invitations arrive with collaboration; this invitation to workspace {id} cannot be
        redeemed yet.
      </p>
    </div>
  );
}

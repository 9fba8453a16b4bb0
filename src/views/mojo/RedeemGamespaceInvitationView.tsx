import { useParams } from 'react-router';

/**
 * /mojo/{id}/{slug}/{code}. Redeeming calls POST player/{code}, which arrives with gamespaces;
 * until then the code is not redeemed and the page says so rather than pretending it was.
 */
export default function RedeemGamespaceInvitationView() {
  const { id } = useParams();
  return (
    <div className="tp-page tp-center">
      <h1>Redeeming invitation</h1>
      <p className="tp-muted">
        Gamespace invitations arrive with gamespaces; this invitation to gamespace {id} cannot be
        redeemed yet.
      </p>
    </div>
  );
}

import { useSelector } from '@xstate/react';
import { useNavigate } from 'react-router';
import type { WorkspaceInvitationActorRef } from '../../machines/workspaceInvitationMachine';
import { selectIsInvitationInvalid } from '../../machines/workspaceInvitationMachine.selectors';
import { Spinner } from '../common/Spinner';
import { useTitle } from '../common/useTitle';

/**
 * /topo/{id}/invite/{code}: 'Redeeming invitation' while the code is redeemed; the page then
 * moves on to the workspace, or says the code is invalid (spec §2, §8).
 */
export function WorkspaceInvitationView({
  invitation,
  title = 'Workspace invitation',
}: {
  invitation: WorkspaceInvitationActorRef;
  /** The browser tab's title: what the invitation is to. */
  title?: string;
}) {
  const invalid = useSelector(invitation, selectIsInvitationInvalid);
  useTitle(title);
  const navigate = useNavigate();

  return (
    <div className="tp-page tp-center">
      <h1>Redeeming invitation</h1>
      {invalid ? (
        <>
          <p className="tp-error-title" role="alert">
            Invalid invitation code.
          </p>
          <button type="button" className="p-button p-component" onClick={() => navigate('/')}>
            Continue
          </button>
        </>
      ) : (
        <Spinner label="Redeeming invitation" />
      )}
    </div>
  );
}

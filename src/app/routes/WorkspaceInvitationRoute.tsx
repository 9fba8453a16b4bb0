import { useActorRef } from '@xstate/react';
import { useParams } from 'react-router';
import { workspaceInvitationMachine } from '../../machines/workspaceInvitationMachine';
import { WorkspaceInvitationView } from '../../views/topo/WorkspaceInvitationView';
import { useAppServices } from '../services';

function Redemption({ code }: { code: string }) {
  const { implementations, inspect } = useAppServices();
  const invitation = useActorRef(
    workspaceInvitationMachine.provide(implementations.workspaceInvitation),
    { input: { code }, inspect },
  );
  return <WorkspaceInvitationView invitation={invitation} />;
}

/** /topo/{id}/invite/{code} (signed-in users; loaded on demand). */
export default function WorkspaceInvitationRoute() {
  const { code = '' } = useParams();
  // Another code is another redemption.
  return <Redemption key={code} code={code} />;
}

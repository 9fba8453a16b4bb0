import { useActorRef } from '@xstate/react';
import { useMemo } from 'react';
import { useParams } from 'react-router';
import { RedeemGamespaceInvitationView } from '../../views/mojo/RedeemGamespaceInvitationView';
import { gamespaceInvitationLogic } from '../playImplementations';
import { useAppServices } from '../services';

function Redemption({ id, slug, code }: { id: string; slug: string; code: string }) {
  const { workspace, inspect } = useAppServices();
  const logic = useMemo(
    () => gamespaceInvitationLogic(workspace, { id, slug }),
    [workspace, id, slug],
  );
  const invitation = useActorRef(logic, { input: { code }, inspect });
  return <RedeemGamespaceInvitationView invitation={invitation} />;
}

/** /mojo/{id}/{slug}/{code} (signed-in users; loaded on demand). */
export default function GamespaceInvitationRoute() {
  const { id = '', slug = '', code = '' } = useParams();
  // Another code is another redemption.
  return <Redemption key={code} id={id} slug={slug} code={code} />;
}

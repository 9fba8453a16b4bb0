import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { GamespaceView } from '../../views/mojo/GamespaceView';
import { RaiseHand } from '../../views/mojo/RaiseHand';
import { helpRequestLogic } from '../helpImplementations';
import { gamespaceSessionLogic } from '../playImplementations';
import { useAppServices } from '../services';

/** Ask for help in the gamespace, alive while the game is in play. */
function HelpRequestSection({ gamespaceId }: { gamespaceId: string }) {
  const { workspace, inspect } = useAppServices();
  const logic = useMemo(() => helpRequestLogic(workspace), [workspace]);
  const help = useActorRef(logic, { input: { gamespaceId }, inspect });
  return <RaiseHand help={help} />;
}

function Session({ id }: { id: string }) {
  const { workspace, inspect } = useAppServices();
  const logic = useMemo(() => gamespaceSessionLogic(workspace), [workspace]);
  // The time the page opened; the session's clock moves it on from there.
  const [openedAt] = useState(() => Date.now());
  const session = useActorRef(logic, {
    input: { id, now: openedAt, origin: window.location.origin, controlsMachines: true },
    inspect,
  });
  // After a reset the session shows the workspace: so does the address, so that a reload (or a
  // link copied from it) does not name the deleted gamespace.
  const loadId = useSelector(session, (snapshot) => snapshot.context.loadId);
  const navigate = useNavigate();
  useEffect(() => {
    if (loadId && loadId !== id)
      void navigate(`/mojo/${encodeURIComponent(loadId)}`, { replace: true });
  }, [loadId, id, navigate]);
  return (
    <GamespaceView
      session={session}
      help={(gamespaceId) => <HelpRequestSection key={gamespaceId} gamespaceId={gamespaceId} />}
    />
  );
}

/** /mojo/{id}/** (signed-in users; loaded on demand). */
export default function GamespaceRoute() {
  const { id = '' } = useParams();
  // Another id is another gamespace.
  return <Session key={id} id={id} />;
}

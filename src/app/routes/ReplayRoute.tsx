import { useActorRef } from '@xstate/react';
import { useMemo } from 'react';
import { useParams } from 'react-router';
import { ReplayView } from '../../views/replay/ReplayView';
import { replayPlayerLogic } from '../replayImplementations';
import { useAppServices } from '../services';

function Player({ gamespaceId, recordingId }: { gamespaceId: string; recordingId: string }) {
  const { workspace, inspect } = useAppServices();
  const logic = useMemo(() => replayPlayerLogic(workspace.http), [workspace.http]);
  const player = useActorRef(logic, { input: { gamespaceId, recordingId }, inspect });
  return <ReplayView player={player} />;
}

/**
 * /observe/replay/{gamespaceId}/{recordingId} (observers and admins; loaded on demand with noVNC):
 * a console recording's replay.
 */
export default function ReplayRoute() {
  const { gamespaceId = '', recordingId = '' } = useParams();
  // One player per recording: another id is another recording.
  return <Player key={recordingId} gamespaceId={gamespaceId} recordingId={recordingId} />;
}

import { useActorRef } from '@xstate/react';
import { useMemo } from 'react';
import { useParams } from 'react-router';
import { ResultsView } from '../../views/observe/ResultsView';
import { workspaceResultsLogic } from '../resultsImplementations';
import { useAppServices } from '../services';

function Results({ workspaceId }: { workspaceId: string }) {
  const { workspace, inspect } = useAppServices();
  const logic = useMemo(() => workspaceResultsLogic(workspace.http), [workspace.http]);
  const results = useActorRef(logic, { input: { workspaceId }, inspect });
  return <ResultsView results={results} />;
}

/** /observe/results/{workspaceId} (observers and admins; loaded on demand): a workspace's results. */
export default function ResultsRoute() {
  const { workspaceId = '' } = useParams();
  // One actor per workspace: another id is another table.
  return <Results key={workspaceId} workspaceId={workspaceId} />;
}

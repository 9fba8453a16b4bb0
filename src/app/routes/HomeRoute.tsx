import { useActorRef } from '@xstate/react';
import { useMemo } from 'react';
import { newWorkspaceMachine } from '../../machines/newWorkspaceMachine';
import { HomeView } from '../../views/home/HomeView';
import { useAppServices } from '../services';
import { GameHistory } from '../../views/home/GameHistory';
import { myResultsLogic } from '../resultsImplementations';
import { LoginPrompt } from './LoginPrompt';

/** The signed-in user's games; mounted only once signed in, so it never asks as nobody. */
function GameHistorySection() {
  const { workspace, inspect } = useAppServices();
  const logic = useMemo(() => myResultsLogic(workspace.http), [workspace.http]);
  const history = useActorRef(logic, { inspect });
  return <GameHistory history={history} />;
}

export function HomeRoute() {
  const { settings, auth, sidebar, implementations, inspect } = useAppServices();
  const newWorkspace = useActorRef(newWorkspaceMachine.provide(implementations.newWorkspace), {
    inspect,
  });
  return (
    <HomeView
      appname={settings.appname}
      auth={auth}
      sidebar={sidebar}
      newWorkspace={newWorkspace}
      loginPrompt={<LoginPrompt returnUrl="/" previousError={null} />}
      history={<GameHistorySection />}
    />
  );
}

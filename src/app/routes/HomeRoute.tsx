import { useActorRef } from '@xstate/react';
import { newWorkspaceMachine } from '../../machines/newWorkspaceMachine';
import { HomeView } from '../../views/home/HomeView';
import { useAppServices } from '../services';
import { LoginPrompt } from './LoginPrompt';

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
    />
  );
}

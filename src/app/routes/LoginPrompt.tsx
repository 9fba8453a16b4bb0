import { useActorRef } from '@xstate/react';
import { loginMachine } from '../../machines/loginMachine';
import { LoginView } from '../../views/login/LoginView';
import { useAppServices } from '../services';

/** The login prompt with its own login actor (on /login, and on home when signed out). */
export function LoginPrompt({
  returnUrl,
  previousError,
}: {
  returnUrl: string;
  previousError: string | null;
}) {
  const { settings, implementations, inspect } = useAppServices();
  const login = useActorRef(loginMachine.provide(implementations.login), {
    input: {
      responseType: settings.oidc.response_type,
      autoLogin: settings.oidc.autoLogin,
      previousError,
      returnUrl,
    },
    inspect,
  });
  return <LoginView login={login} authority={settings.oidc.authority} />;
}

import { useLocation } from 'react-router';
import type { LoginRedirectState } from '../../views/guard/RouteGuard';
import { LoginPage } from '../../views/login/LoginPage';
import { LoginPrompt } from './LoginPrompt';

/** Router state is untyped: read only what a guard or the callback page put there. */
function redirectState(state: unknown): LoginRedirectState {
  if (typeof state !== 'object' || state === null) return {};
  const { from, loginError } = state as Record<string, unknown>;
  return {
    from: typeof from === 'string' && from.startsWith('/') ? from : undefined,
    loginError: typeof loginError === 'string' ? loginError : undefined,
  };
}

export function LoginRoute() {
  const { from, loginError } = redirectState(useLocation().state);
  return (
    <LoginPage>
      <LoginPrompt returnUrl={from ?? '/'} previousError={loginError ?? null} />
    </LoginPage>
  );
}

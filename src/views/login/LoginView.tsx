import { useSelector } from '@xstate/react';
import type { LoginActorRef } from '../../machines/loginMachine';
import {
  selectCanLogin,
  selectIsLoginBusy,
  selectLoginError,
} from '../../machines/loginMachine.selectors';
import { Spinner } from '../common/Spinner';
import { Icon, piSignIn } from '../common/icons';

/** The login prompt (login page, and home when signed out). */
export function LoginView({ login, authority }: { login: LoginActorRef; authority: string }) {
  const busy = useSelector(login, selectIsLoginBusy);
  const canLogin = useSelector(login, selectCanLogin);
  const error = useSelector(login, selectLoginError);

  return (
    <section className="tp-login" aria-label="Login">
      <p>Please login to continue.</p>
      {error && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
      )}
      {busy ? (
        <Spinner label="Signing in" />
      ) : (
        canLogin && (
          <button
            type="button"
            className="p-button p-component tp-login-button"
            onClick={() => login.send({ type: 'login.requested' })}
          >
            <Icon shape={piSignIn} />
            <span>Login with {authority || 'the identity provider'}</span>
          </button>
        )
      )}
    </section>
  );
}

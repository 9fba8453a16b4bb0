import { useSelector } from '@xstate/react';
import { Link } from 'react-router';
import type { OidcCallbackActorRef } from '../../machines/oidcCallbackMachine';
import { selectCallbackError } from '../../machines/oidcCallbackMachine.selectors';
import { Spinner } from '../common/Spinner';
import type { LoginRedirectState } from '../guard/RouteGuard';
import { useTitle } from '../common/useTitle';

/** The sign-in callback pages (/oidc, /oidc-silent). */
export function OidcCallbackView({ callback }: { callback: OidcCallbackActorRef }) {
  const error = useSelector(callback, selectCallbackError);
  useTitle(error === null ? 'Signing in' : 'Sign-in failed');

  if (error !== null) {
    // The error travels to the login page, which shows it and does not auto-start again.
    const state: LoginRedirectState = { loginError: error };
    return (
      <section className="tp-page tp-center" aria-label="Sign-in failed">
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
        <Link className="p-button p-component" to="/login" state={state}>
          Back to login
        </Link>
      </section>
    );
  }

  return (
    <section className="tp-page tp-center" aria-label="Signing in">
      <p>Validating authentication token...</p>
      <Spinner label="Validating" />
    </section>
  );
}

import { useSelector } from '@xstate/react';
import { Link } from 'react-router';
import type { LaunchSignInActorRef } from '../../machines/launchSignInMachine';
import {
  selectCanRetryLaunch,
  selectLaunchSignInError,
  selectLaunchSignInStatus,
} from '../../machines/launchSignInMachine.selectors';
import { Spinner } from '../common/Spinner';
import { useTitle } from '../common/useTitle';

/** The message of a launch link that signs in no more (its ticket was used or has expired). */
export const LINK_REFUSED = 'This launch link has already been used or has expired.';
/** Spec §8: any failure of an invitation code. */
export const INVITATION_REFUSED = 'Invalid invitation code.';

/**
 * What a launch link's page shows until its browser is signed in: progress, or why it cannot be,
 * with the way on (the normal sign-in, or Retry). Signed in, it shows nothing.
 */
export function LaunchSignInView({ signIn }: { signIn: LaunchSignInActorRef }) {
  const status = useSelector(signIn, selectLaunchSignInStatus);
  const error = useSelector(signIn, selectLaunchSignInError);
  const canRetry = useSelector(signIn, selectCanRetryLaunch);
  useTitle(status === 'busy' || status === 'signedIn' ? 'Signing in' : 'Launch link');

  if (status === 'signedIn') return null;
  if (status === 'busy') return <Spinner label="Signing in" />;
  return (
    <div className="tp-page tp-center tp-launch-notice">
      <p className="tp-alert tp-alert-danger" role="alert">
        {status === 'refused'
          ? LINK_REFUSED
          : status === 'invitationRefused'
            ? INVITATION_REFUSED
            : (error ?? 'Signing in failed.')}
      </p>
      {status === 'refused' && (
        <p>Ask for a new link where you got this one, or sign in with your account.</p>
      )}
      <div className="tp-actions">
        {canRetry && (
          <button
            type="button"
            className="p-button p-component"
            onClick={() => signIn.send({ type: 'launch.retryRequested' })}
          >
            Retry
          </button>
        )}
        <Link className="p-button p-component p-button-secondary" to="/login">
          Sign in
        </Link>
      </div>
    </div>
  );
}

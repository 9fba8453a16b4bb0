import type { LaunchSignInSnapshot } from './launchSignInMachine';

/** What the launch page shows while it signs in, or why it could not. */
export type LaunchSignInStatus = 'busy' | 'signedIn' | 'refused' | 'invitationRefused' | 'failed';

export const selectLaunchSignInStatus = (snapshot: LaunchSignInSnapshot): LaunchSignInStatus => {
  if (snapshot.hasTag('busy')) return 'busy';
  if (snapshot.matches('signedIn')) return 'signedIn';
  if (snapshot.matches('refused')) return 'refused';
  if (snapshot.matches('invitationRefused')) return 'invitationRefused';
  // `starting` leaves at once: a snapshot is never in it.
  return 'failed';
};

export const selectLaunchSignInError = (snapshot: LaunchSignInSnapshot): string | null =>
  snapshot.context.error;

/** The gamespace signed in to: the link's, or the one enlisting gave. */
export const selectLaunchGamespaceId = (snapshot: LaunchSignInSnapshot): string | null =>
  snapshot.context.gamespaceId;

export const selectCanRetryLaunch = (snapshot: LaunchSignInSnapshot): boolean =>
  snapshot.can({ type: 'launch.retryRequested' });

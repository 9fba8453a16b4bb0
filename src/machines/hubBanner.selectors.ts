import type { AuthTokenSnapshot } from './authTokenMachine';
import { selectIsAuthenticated } from './authTokenMachine.selectors';
import type { HubConnectionSnapshot } from './hubConnectionMachine';
import { selectIsHubConnected, selectIsHubInitialized } from './hubConnectionMachine.selectors';

/**
 * Whether the shell shows the red 'Attempting re-connection...' banner (spec §2 Shell, §8): the
 * user is signed in and the real-time connection is initialized but not connected. It shows
 * while reconnecting, while a failed first connection retries, and after the hub gave up.
 */
export const selectShowReconnectBanner = (
  authSnapshot: AuthTokenSnapshot,
  hubSnapshot: HubConnectionSnapshot,
): boolean =>
  selectIsAuthenticated(authSnapshot) &&
  selectIsHubInitialized(hubSnapshot) &&
  !selectIsHubConnected(hubSnapshot);

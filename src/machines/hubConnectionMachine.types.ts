import type { HubChannelReport } from './hubChannelMachine';
import type { HubConnectorReport } from './hubConnectorMachine';
import type { HubMethod, HubOutboxReport } from './hubOutboxMachine';

// The types of hubConnectionMachine.ts (which exports them), kept apart so that the machine's
// file is its setup and chart.

export type HubConnectionEvent =
  /** The session began (the token became valid): connect. Only heard while disconnected. */
  | { type: 'hub.startRequested' }
  /** The session ended (the token became invalid or expired): disconnect. */
  | { type: 'hub.stopRequested' }
  /** A view opened a channel (a workspace or gamespace id): listen on it while connected. */
  | { type: 'hub.listenRequested'; channelId: string }
  /** The view closed: stop listening. */
  | { type: 'hub.leaveRequested'; channelId: string }
  /**
   * Invoke a hub method: at once while connected, else when the next connection is up. Listen
   * and Leave go through listenRequested/leaveRequested, which keep the channel list.
   */
  | { type: 'hub.invokeRequested'; method: Exclude<HubMethod, 'Listen' | 'Leave'>; args: unknown[] }
  /** The connection closed without being asked to (the server went away, the network dropped). */
  | { type: 'hub.connectionLost'; error: string | null }
  | HubConnectorReport
  | HubOutboxReport
  | HubChannelReport;

export interface HubChannelState {
  /** The server has this connection in the channel's group; false while joining or retrying. */
  joined: boolean;
  /**
   * How many listeners asked for the channel and have not left it: the Leave goes out with the
   * last one, so that one view leaving (a timeline tab closed) does not deafen another on the
   * same channel (the help queue of that workspace).
   */
  listeners: number;
}

export interface HubConnectionContext {
  /**
   * The first connection attempt of a session has settled (connected or failed). The shell's
   * banner counts only from then on, so that every sign-in does not flash it while the first
   * attempt is under way; it stays true when the hub gives up, so the banner remains.
   */
  initialized: boolean;
  /** Failed attempts since the connection was requested or lost; indexes RECONNECT_DELAYS_MS. */
  attempt: number;
  /** The app adapter's opaque id for the open connection; the adapter holds the connection. */
  connectionId: string | null;
  /** Channels to listen on, by id; joined again on every new connection. */
  channels: Record<string, HubChannelState>;
  /** The last hub error (failed attempt, join or invocation), for the event log and diagnosis. */
  lastError: string | null;
}

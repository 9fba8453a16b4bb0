import type {
  HubChannelState,
  HubConnectionSnapshot,
  HubConnectionState,
} from './hubConnectionMachine';

const STATES: readonly HubConnectionState[] = [
  'disconnected',
  'connecting',
  'connected',
  'disconnecting',
  'reconnecting',
];

/** The spec's connection state (§4): Disconnected, Connecting, Connected, ... */
export const selectHubState = (snapshot: HubConnectionSnapshot): HubConnectionState =>
  STATES.find((state) => snapshot.matches(state)) ?? 'disconnected';

export const selectIsHubConnected = (snapshot: HubConnectionSnapshot): boolean =>
  snapshot.hasTag('connected');

/** The first connection attempt of the session has settled (see the context field). */
export const selectIsHubInitialized = (snapshot: HubConnectionSnapshot): boolean =>
  snapshot.context.initialized;

/** Failed attempts since the connection was requested or lost. */
export const selectHubAttempt = (snapshot: HubConnectionSnapshot): number =>
  snapshot.context.attempt;

/** Channels listened on, by id; the same object until one is added, left or joined. */
export const selectHubChannels = (
  snapshot: HubConnectionSnapshot,
): Readonly<Record<string, HubChannelState>> => snapshot.context.channels;

export const selectIsChannelJoined =
  (channelId: string) =>
  (snapshot: HubConnectionSnapshot): boolean =>
    snapshot.context.channels[channelId]?.joined ?? false;

export const selectHubLastError = (snapshot: HubConnectionSnapshot): string | null =>
  snapshot.context.lastError;

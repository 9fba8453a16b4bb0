import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock, type EventObject } from 'xstate';
import {
  authTokenMachine,
  TOKEN_DEBOUNCE_MS,
  type AuthTokenEvent,
  type AuthTokenSnapshot,
  type AuthUser,
  type Profile,
} from './authTokenMachine';
import { selectShowReconnectBanner } from './hubBanner.selectors';
import { hubChannelMachine } from './hubChannelMachine';
import { hubConnectorMachine } from './hubConnectorMachine';
import {
  hubConnectionMachine,
  RECONNECT_DELAYS_MS,
  type HubConnectionEvent,
  type HubInvocation,
  type HubConnectionSnapshot,
  type HubConnectionState,
} from './hubConnectionMachine';
import { selectHubState } from './hubConnectionMachine.selectors';
import { hubOutboxMachine } from './hubOutboxMachine';
import { silentRenewMachine } from './silentRenewMachine';
import { userRegistrationMachine } from './userRegistrationMachine';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const USER: AuthUser = {
  accessToken: 'token',
  tokenType: 'Bearer',
  expiresAt: null,
  profile: { sub: 'u-1', name: 'Ada' },
};

async function authSnapshot(signedIn: boolean): Promise<AuthTokenSnapshot> {
  const clock = new SimulatedClock();
  const initial: AuthTokenEvent = signedIn
    ? { type: 'user.loaded', user: USER }
    : { type: 'user.unloaded' };
  const auth = createActor(
    authTokenMachine.provide({
      actors: {
        userEvents: fromCallback<EventObject>(({ sendBack }) => sendBack(initial)),
        registration: userRegistrationMachine.provide({
          actors: {
            registerUser: fromPromise<Profile, { user: AuthUser }>(
              () => new Promise(() => undefined),
            ),
          },
        }),
        logout: fromPromise<void, void>(() => new Promise<void>(() => undefined)),
        silentRenew: silentRenewMachine.provide({
          actors: { renewSilently: fromPromise<void, void>(async () => undefined) },
        }),
      },
      actions: { rememberUrl: () => {}, navigateHome: () => {}, clearUser: () => {} },
    }),
    { clock },
  ).start();
  clock.increment(TOKEN_DEBOUNCE_MS);
  await flush();
  return auth.getSnapshot();
}

type HubScenario =
  | 'never started'
  | 'first attempt under way'
  | 'first attempt failed'
  | 'connected'
  | 'reconnecting'
  | 'gave up'
  | 'disconnecting';

/** A hub snapshot in the situation named, reached through the real machine. */
async function hubSnapshot(scenario: HubScenario): Promise<HubConnectionSnapshot> {
  const clock = new SimulatedClock();
  const outcomes: Array<'ok' | 'fail'> = [];
  let lose: ((event: HubConnectionEvent) => void) | undefined;
  const hub = createActor(
    hubConnectionMachine.provide({
      actors: {
        connector: hubConnectorMachine.provide({
          actors: {
            openConnection: fromPromise<string, void>(() => {
              const outcome = outcomes.shift();
              if (outcome === undefined) return new Promise<string>(() => undefined);
              return outcome === 'ok'
                ? Promise.resolve('c1')
                : Promise.reject(new Error('refused'));
            }),
          },
        }),
        watchConnection: fromCallback<EventObject, { connectionId: string }>(({ sendBack }) => {
          lose = sendBack;
        }),
        closeConnection: fromPromise<void, { connectionId: string }>(
          () => new Promise<void>(() => undefined),
        ),
        outbox: hubOutboxMachine.provide({
          actors: {
            invoke: fromPromise<unknown, HubInvocation & { connectionId: string }>(
              async () => undefined,
            ),
          },
        }),
        hubChannel: hubChannelMachine,
      },
    }),
    { clock },
  ).start();
  const connect = async () => {
    outcomes.push('ok');
    hub.send({ type: 'hub.startRequested' });
    await flush();
  };
  switch (scenario) {
    case 'never started':
      break;
    case 'first attempt under way':
      hub.send({ type: 'hub.startRequested' });
      break;
    case 'first attempt failed':
      outcomes.push('fail');
      hub.send({ type: 'hub.startRequested' });
      await flush();
      break;
    case 'connected':
      await connect();
      break;
    case 'reconnecting':
      await connect();
      lose?.({ type: 'hub.connectionLost', error: null });
      break;
    case 'gave up':
      await connect();
      lose?.({ type: 'hub.connectionLost', error: null });
      for (const delay of RECONNECT_DELAYS_MS) {
        outcomes.push('fail');
        clock.increment(delay);
        await flush();
      }
      break;
    case 'disconnecting':
      await connect();
      hub.send({ type: 'hub.stopRequested' });
      break;
  }
  return hub.getSnapshot();
}

const cases: Array<[HubScenario, HubConnectionState, boolean]> = [
  ['never started', 'disconnected', false],
  ['first attempt under way', 'connecting', false],
  ['first attempt failed', 'connecting', true],
  ['connected', 'connected', false],
  ['reconnecting', 'reconnecting', true],
  ['gave up', 'disconnected', true],
  ['disconnecting', 'disconnecting', true],
];

describe('selectShowReconnectBanner', () => {
  for (const [scenario, state, shown] of cases) {
    it(`${shown ? 'shows' : 'hides'} the banner for a signed-in user when the hub has ${scenario} (${state})`, async () => {
      const hub = await hubSnapshot(scenario);
      expect(selectHubState(hub)).toBe(state);
      expect(selectShowReconnectBanner(await authSnapshot(true), hub)).toBe(shown);
    });

    it(`hides the banner for a signed-out user when the hub has ${scenario}`, async () => {
      const hub = await hubSnapshot(scenario);
      expect(selectShowReconnectBanner(await authSnapshot(false), hub)).toBe(false);
    });
  }
});

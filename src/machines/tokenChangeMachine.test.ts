import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, SimulatedClock } from 'xstate';
import type { AuthUser } from './authUser';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import {
  TOKEN_DEBOUNCE_MS,
  tokenChangeMachine,
  type IdentityEvent,
  type TokenChange,
} from './tokenChangeMachine';

const userWithToken = (accessToken: string): AuthUser => ({
  accessToken,
  tokenType: 'Bearer',
  expiresAt: null,
  profile: { sub: 'u-1', name: 'Ada' },
});

const ADA = userWithToken('token-1');
const TIMED_OUT: IdentityEvent = {
  type: 'silentRenew.failed',
  message: 'IFrame timed out',
  timedOut: true,
};
const FATAL: IdentityEvent = {
  type: 'silentRenew.failed',
  message: 'login_required',
  timedOut: false,
};

/**
 * The debounce with a recording parent that keeps the user as the auth token does: the user of
 * the last change it was told, handed back with each report.
 */
function startDebounce() {
  const clock = new SimulatedClock();
  const changes: TokenChange[] = [];
  let settledUser: AuthUser | null = null;
  const parentRef = createActor(
    fromCallback<TokenChange>(({ receive }) =>
      receive((change) => {
        changes.push(change);
        settledUser = 'user' in change ? change.user : null;
      }),
    ),
  ).start();
  const actor = createActor(tokenChangeMachine, { clock, input: { parentRef } }).start();
  const report = (...reports: IdentityEvent[]) => {
    for (const event of reports) {
      actor.send({ type: 'identity.reported', report: event, settledUser });
    }
  };
  return {
    actor,
    clock,
    changes,
    report,
    /** The user as the auth token has it (a logout forgets it without a change). */
    forgetUser: () => (settledUser = null),
    pending: () => actor.getSnapshot().context.pendingChange,
  };
}

describe('tokenChangeMachine', () => {
  it('tells the change once the reports have been quiet for the debounce window', () => {
    const d = startDebounce();
    d.report({ type: 'user.loaded', user: ADA });
    d.clock.increment(TOKEN_DEBOUNCE_MS - 1);
    expect(d.changes).toEqual([]);
    d.clock.increment(1);
    expect(d.changes).toEqual([{ type: 'token.becameValid', user: ADA }]);
  });

  it('tells only what a burst adds up to, each report restarting the window', () => {
    const d = startDebounce();
    d.report({ type: 'user.unloaded' });
    d.clock.increment(TOKEN_DEBOUNCE_MS - 1);
    d.report({ type: 'user.loaded', user: ADA });
    d.clock.increment(TOKEN_DEBOUNCE_MS - 1);
    expect(d.changes).toEqual([]);
    d.clock.increment(1);
    expect(d.changes).toEqual([{ type: 'token.becameValid', user: ADA }]);
  });

  it('makes a token expiring only when there is one: settled or pending', () => {
    const d = startDebounce();
    d.report({ type: 'token.expiring' });
    expect(d.actor.getSnapshot().value).toBe('settled');

    d.report({ type: 'user.loaded', user: ADA }, { type: 'token.expiring' });
    d.clock.increment(TOKEN_DEBOUNCE_MS);
    expect(d.changes).toEqual([{ type: 'token.becameExpiring', user: ADA }]);

    d.report({ type: 'token.expiring' });
    d.clock.increment(TOKEN_DEBOUNCE_MS);
    expect(d.changes.at(-1)).toEqual({ type: 'token.becameExpiring', user: ADA });

    d.forgetUser();
    d.report({ type: 'token.expiring' });
    expect(d.actor.getSnapshot().value).toBe('settled');
  });

  it('does not let a report that changes nothing restart the window', () => {
    const d = startDebounce();
    d.report({ type: 'user.unloaded' });
    d.clock.increment(TOKEN_DEBOUNCE_MS - 1);
    d.report({ type: 'token.expiring' }, TIMED_OUT);
    d.clock.increment(1);
    expect(d.changes).toEqual([{ type: 'token.becameInvalid' }]);
  });

  it('expires the token on the expired event and on a renew failure that did not time out', () => {
    const d = startDebounce();
    d.report({ type: 'token.expired' });
    d.clock.increment(TOKEN_DEBOUNCE_MS);
    d.report(FATAL);
    d.clock.increment(TOKEN_DEBOUNCE_MS);
    expect(d.changes).toEqual([{ type: 'token.becameExpired' }, { type: 'token.becameExpired' }]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(tokenChangeMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ parentRef: createActor(fromCallback(() => {})) }],
        payloads: [
          {
            type: 'identity.reported',
            report: { type: 'user.loaded', user: ADA },
            settledUser: null,
          },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the token rules of spec §4 for each identity-client report, with the
 * debounce of §9, as an abstract machine of what is settled and what is pending; its shortest
 * paths drive the real actor and check the change told when the window closes.
 */
describe('tokenChangeMachine against the spec model', () => {
  type ModelEvent =
    | { type: 'LOADED' }
    | { type: 'UNLOADED' }
    | { type: 'EXPIRING' }
    | { type: 'EXPIRED' }
    | { type: 'RENEW_TIMED_OUT' }
    | { type: 'RENEW_FAILED' }
    | { type: 'QUIET' };

  // Whatever is pending, these reports replace it.
  const replacing = {
    LOADED: 'pendingValid',
    UNLOADED: 'pendingInvalid',
    EXPIRED: 'pendingExpired',
    RENEW_FAILED: 'pendingExpired',
  } as const;

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'tokenChangeModel',
    initial: 'signedOut',
    states: {
      signedOut: { on: { ...replacing, EXPIRING: 'signedOut', RENEW_TIMED_OUT: 'signedOut' } },
      signedIn: {
        on: { ...replacing, EXPIRING: 'pendingExpiring', RENEW_TIMED_OUT: 'signedIn' },
      },
      pendingValid: {
        on: {
          ...replacing,
          EXPIRING: 'pendingExpiring',
          RENEW_TIMED_OUT: 'pendingValid',
          QUIET: 'signedIn',
        },
      },
      pendingExpiring: {
        on: {
          ...replacing,
          EXPIRING: 'pendingExpiring',
          RENEW_TIMED_OUT: 'pendingExpiring',
          QUIET: 'signedIn',
        },
      },
      pendingInvalid: {
        on: {
          ...replacing,
          EXPIRING: 'pendingInvalid',
          RENEW_TIMED_OUT: 'pendingInvalid',
          QUIET: 'signedOut',
        },
      },
      pendingExpired: {
        on: {
          ...replacing,
          EXPIRING: 'pendingExpired',
          RENEW_TIMED_OUT: 'pendingExpired',
          QUIET: 'signedOut',
        },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, tokenChangeMachine, {
        states: {
          signedOut: 'settled',
          signedIn: 'settled',
          pendingValid: 'debouncing',
          pendingExpiring: 'debouncing',
          pendingInvalid: 'debouncing',
          pendingExpired: 'debouncing',
        },
        events: {
          LOADED: 'identity.reported',
          UNLOADED: 'identity.reported',
          EXPIRING: 'identity.reported',
          EXPIRED: 'identity.reported',
          RENEW_TIMED_OUT: 'identity.reported',
          RENEW_FAILED: 'identity.reported',
          QUIET: 'xstate.after.tokenDebounce.tokenChange.debouncing',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const d = startDebounce();
      let told = 0;
      const expectPending = (type: TokenChange['type'] | null) => () => {
        expect(d.pending()?.type ?? null).toBe(type);
        expect(d.actor.getSnapshot().value).toBe(type === null ? 'settled' : 'debouncing');
        expect(d.changes).toHaveLength(told);
      };
      const expectSettled = (signedIn: boolean) => () => {
        expectPending(null)();
        const last = d.changes.at(-1);
        expect(last !== undefined && 'user' in last).toBe(signedIn);
      };
      await path.test({
        states: {
          signedOut: expectSettled(false),
          signedIn: expectSettled(true),
          pendingValid: expectPending('token.becameValid'),
          pendingExpiring: expectPending('token.becameExpiring'),
          pendingInvalid: expectPending('token.becameInvalid'),
          pendingExpired: expectPending('token.becameExpired'),
        },
        events: {
          LOADED: () => d.report({ type: 'user.loaded', user: ADA }),
          UNLOADED: () => d.report({ type: 'user.unloaded' }),
          EXPIRING: () => d.report({ type: 'token.expiring' }),
          EXPIRED: () => d.report({ type: 'token.expired' }),
          RENEW_TIMED_OUT: () => d.report(TIMED_OUT),
          RENEW_FAILED: () => d.report(FATAL),
          QUIET: () => {
            d.clock.increment(TOKEN_DEBOUNCE_MS);
            told += 1;
          },
        },
      });
    });
  }
});

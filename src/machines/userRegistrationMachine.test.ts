import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import type { AuthUser, Profile } from './authUser';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import {
  REGISTRATION_REFRESH_MS,
  userRegistrationMachine,
  type UserRegistrationReport,
} from './userRegistrationMachine';

const userWithToken = (accessToken: string): AuthUser => ({
  accessToken,
  tokenType: 'Bearer',
  expiresAt: null,
  profile: { sub: 'u-1', name: 'Ada' },
});

const PROFILE: Profile = {
  id: 'u-1',
  name: 'Ada',
  role: 'administrator',
  isAdmin: true,
  isObserver: false,
  isCreator: true,
  isBuilder: true,
};

/** The registration over a server the test answers, reporting to a recording parent. */
function startRegistration() {
  const clock = new SimulatedClock();
  const calls: Array<{ at: number; token: string; result: Deferred<Profile> }> = [];
  const reports: UserRegistrationReport[] = [];
  const parentRef = createActor(
    fromCallback<UserRegistrationReport>(({ receive }) => receive((e) => reports.push(e))),
  ).start();
  const actor = createActor(
    userRegistrationMachine.provide({
      actors: {
        registerUser: fromPromise<Profile, { user: AuthUser }>(({ input }) => {
          const result = deferred<Profile>();
          calls.push({ at: clock.now(), token: input.user.accessToken, result });
          return result.promise;
        }),
      },
    }),
    { clock, input: { user: userWithToken('token-1'), parentRef } },
  ).start();
  const last = () => {
    const call = calls.at(-1);
    if (call === undefined) throw new Error('no registration was made');
    return call;
  };
  return {
    actor,
    clock,
    calls,
    reports,
    async answer(profile: Profile = PROFILE) {
      last().result.resolve(profile);
      await flush();
    },
    async refuse(reason: unknown) {
      last().result.reject(reason);
      await flush();
    },
  };
}

describe('userRegistrationMachine', () => {
  it('registers at once with the user it was given and reports the profile', async () => {
    const r = startRegistration();
    expect(r.calls.map((call) => call.token)).toEqual(['token-1']);
    await r.answer();
    expect(r.reports).toEqual([{ type: 'registration.succeeded', profile: PROFILE }]);
  });

  it('registers again a refresh interval after each answer, with the newest token', async () => {
    const r = startRegistration();
    await r.answer();
    r.actor.send({ type: 'user.renewed', user: userWithToken('token-2') });
    r.clock.increment(REGISTRATION_REFRESH_MS - 1);
    expect(r.calls).toHaveLength(1);
    r.clock.increment(1);
    expect(r.calls.map((call) => [call.at, call.token])).toEqual([
      [0, 'token-1'],
      [REGISTRATION_REFRESH_MS, 'token-2'],
    ]);
  });

  it('reports why a registration failed and tries again on the next refresh', async () => {
    const r = startRegistration();
    await r.refuse({ message: 'Http failure', error: { message: 'UserNotFound' } });
    expect(r.reports).toEqual([{ type: 'registration.failed', error: 'User Not Found' }]);
    r.clock.increment(REGISTRATION_REFRESH_MS);
    await r.answer();
    expect(r.reports.at(-1)).toEqual({ type: 'registration.succeeded', profile: PROFILE });
  });

  it('makes no registration once stopped (signed out)', async () => {
    const r = startRegistration();
    await r.answer();
    r.actor.stop();
    r.clock.increment(REGISTRATION_REFRESH_MS * 3);
    expect(r.calls).toHaveLength(1);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(userRegistrationMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ user: userWithToken('t'), parentRef: createActor(fromCallback(() => {})) }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the registration cycle of spec §4 (at once, then every 18 minutes with the
 * current token), driving the real actor on a simulated clock against a server the test answers.
 */
describe('userRegistrationMachine against the spec model', () => {
  type ModelEvent =
    { type: 'REGISTERED' } | { type: 'REFUSED' } | { type: 'REFRESH_DUE' } | { type: 'RENEWED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'registrationModel',
    initial: 'registering',
    states: {
      registering: {
        on: { REGISTERED: 'registered', REFUSED: 'registered', RENEWED: 'registering' },
      },
      registered: { on: { REFRESH_DUE: 'registering', RENEWED: 'registered' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, userRegistrationMachine, {
        states: { registering: 'registering', registered: 'registered' },
        events: {
          REGISTERED: 'xstate.done.actor.registerUser',
          REFUSED: 'xstate.error.actor.registerUser',
          REFRESH_DUE: 'xstate.after.registrationRefresh.userRegistration.registered',
          RENEWED: 'user.renewed',
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
      const r = startRegistration();
      let token = 'token-1';
      let answers = 0;
      await path.test({
        states: {
          // One registration in flight, presenting the token current when it started.
          registering: () => {
            expect(r.calls).toHaveLength(answers + 1);
            expect(r.reports).toHaveLength(answers);
          },
          registered: () => {
            expect(r.calls).toHaveLength(answers);
            expect(r.reports).toHaveLength(answers);
          },
        },
        events: {
          REGISTERED: async () => {
            await r.answer();
            answers += 1;
            expect(r.reports.at(-1)?.type).toBe('registration.succeeded');
          },
          REFUSED: async () => {
            await r.refuse(new Error('Network timed out'));
            answers += 1;
            expect(r.reports.at(-1)).toEqual({
              type: 'registration.failed',
              error: 'Network timed out',
            });
          },
          REFRESH_DUE: () => {
            r.clock.increment(REGISTRATION_REFRESH_MS);
            expect(r.calls.at(-1)?.token).toBe(token);
          },
          RENEWED: () => {
            token = `token-${r.calls.length + 1}`;
            r.actor.send({ type: 'user.renewed', user: userWithToken(token) });
          },
        },
      });
    });
  }
});

import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, type Actor } from 'xstate';
import { loginMachine, unsupportedResponseTypeMessage, type LoginInput } from './loginMachine';
import { selectCanLogin, selectIsLoginBusy, selectLoginError } from './loginMachine.selectors';
import { deferred, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const INPUT: LoginInput = {
  responseType: 'code',
  autoLogin: false,
  previousError: null,
  returnUrl: '/topo/ws-1/settings',
};

/** The machine with a startLogin stub that records its input and resolves or fails as told. */
function startLogin(input: Partial<LoginInput> = {}, outcome: 'redirect' | Error = 'redirect') {
  const started: { returnUrl: string }[] = [];
  const actor = createActor(
    loginMachine.provide({
      actors: {
        startLogin: fromPromise<void, { returnUrl: string }>(async ({ input: args }) => {
          started.push(args);
          if (outcome instanceof Error) throw outcome;
        }),
      },
    }),
    { input: { ...INPUT, ...input } },
  ).start();
  const view = () => {
    const snapshot = actor.getSnapshot();
    return {
      state: snapshot.value,
      busy: selectIsLoginBusy(snapshot),
      canLogin: selectCanLogin(snapshot),
      error: selectLoginError(snapshot),
    };
  };
  return { actor, started, view };
}

describe('loginMachine', () => {
  it('waits for the button without auto-login', () => {
    const { started, view } = startLogin();
    expect(view()).toEqual({ state: 'idle', busy: false, canLogin: true, error: null });
    expect(started).toEqual([]);
  });

  it('starts the redirect on request, carrying the return URL, and shows a spinner', async () => {
    const { actor, started, view } = startLogin();
    actor.send({ type: 'login.requested' });
    expect(view()).toMatchObject({ state: 'starting', busy: true, canLogin: false });
    await flush();
    expect(started).toEqual([{ returnUrl: '/topo/ws-1/settings' }]);
    expect(view()).toMatchObject({ state: 'redirecting', busy: true, canLogin: false });
  });

  it('starts by itself with auto-login', async () => {
    const { started, view } = startLogin({ autoLogin: true });
    expect(view().state).toBe('starting');
    await flush();
    expect(started).toHaveLength(1);
  });

  it('does not auto-start after a failed attempt, and shows that failure', () => {
    const { started, view } = startLogin({ autoLogin: true, previousError: 'access_denied' });
    expect(view()).toEqual({ state: 'idle', busy: false, canLogin: true, error: 'access_denied' });
    expect(started).toEqual([]);
  });

  it('rejects any response type but code, even with auto-login, and offers no login', () => {
    const { actor, started, view } = startLogin({
      responseType: 'id_token token',
      autoLogin: true,
    });
    expect(view()).toEqual({
      state: 'rejected',
      busy: false,
      canLogin: false,
      error: unsupportedResponseTypeMessage('id_token token'),
    });
    actor.send({ type: 'login.requested' });
    expect(started).toEqual([]);
    expect(view().error).toContain('authorization-code flow');
  });

  it('shows why the redirect could not start, and clears it on a new attempt', async () => {
    const { actor, started, view } = startLogin({}, new Error('Network timed out'));
    actor.send({ type: 'login.requested' });
    await flush();
    expect(view()).toEqual({
      state: 'failed',
      busy: false,
      canLogin: true,
      error: 'Network timed out',
    });
    actor.send({ type: 'login.requested' });
    expect(view()).toMatchObject({ state: 'starting', error: null });
    await flush();
    expect(started).toHaveLength(2);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(loginMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [INPUT, { ...INPUT, responseType: 'token' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the login page from the moment it opens (with each configuration the app
 * can give it) through the user's requests and the redirect's outcome, checking what it shows
 * and that a redirect starts exactly when the rules allow.
 */
describe('loginMachine against its model', () => {
  type ModelEvent =
    | { type: 'OPENED' }
    | { type: 'OPENED_WITH_AUTO_LOGIN' }
    | { type: 'OPENED_WITH_AUTO_LOGIN_AFTER_FAILURE' }
    | { type: 'OPENED_WITH_IMPLICIT_FLOW' }
    | { type: 'REQUESTED' }
    | { type: 'REDIRECTED' }
    | { type: 'START_FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'loginModel',
    initial: 'closed',
    states: {
      closed: {
        on: {
          OPENED: 'idle',
          OPENED_WITH_AUTO_LOGIN: 'starting',
          OPENED_WITH_AUTO_LOGIN_AFTER_FAILURE: 'idleAfterFailure',
          OPENED_WITH_IMPLICIT_FLOW: 'rejected',
        },
      },
      idle: { on: { REQUESTED: 'starting' } },
      idleAfterFailure: { on: { REQUESTED: 'starting' } },
      rejected: { on: { REQUESTED: 'rejected' } },
      starting: {
        on: { REQUESTED: 'starting', REDIRECTED: 'redirecting', START_FAILED: 'failed' },
      },
      redirecting: { on: { REQUESTED: 'redirecting' } },
      failed: { on: { REQUESTED: 'starting' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, loginMachine, {
        states: {
          // Before the page decides: the machine's transient first state.
          closed: 'checking',
          idle: 'idle',
          idleAfterFailure: 'idle',
          rejected: 'rejected',
          starting: 'starting',
          redirecting: 'redirecting',
          failed: 'failed',
        },
        events: {
          // The configuration is the machine's input, not an event.
          OPENED: [],
          OPENED_WITH_AUTO_LOGIN: [],
          OPENED_WITH_AUTO_LOGIN_AFTER_FAILURE: [],
          OPENED_WITH_IMPLICIT_FLOW: [],
          REQUESTED: 'login.requested',
          REDIRECTED: 'xstate.done.actor.startLogin',
          START_FAILED: 'xstate.error.actor.startLogin',
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
      const starts: Deferred<void>[] = [];
      let actor: Actor<typeof loginMachine> | null = null;
      /** The error the page shows after a failed start. */
      let failure: string | null = null;
      const open = (input: Partial<LoginInput>) => {
        actor = createActor(
          loginMachine.provide({
            actors: {
              startLogin: fromPromise<void, { returnUrl: string }>(() => {
                const start = deferred<void>();
                starts.push(start);
                return start.promise;
              }),
            },
          }),
          { input: { ...INPUT, ...input } },
        ).start();
      };
      const settle = async (outcome: 'ok' | Error) => {
        const start = starts.at(-1);
        if (outcome === 'ok') start?.resolve();
        else start?.reject(outcome);
        await flush();
      };
      /** Redirects started so far: one per entry into the model's `starting`, none otherwise. */
      let startsExpected = 0;
      let previous = 'closed';
      const expectPage =
        (
          modelState: string,
          state: string,
          busy: boolean,
          canLogin: boolean,
          error: () => unknown,
        ) =>
        () => {
          if (modelState === 'starting' && previous !== 'starting') startsExpected += 1;
          previous = modelState;
          const snapshot = actor?.getSnapshot();
          expect(snapshot && snapshot.value).toBe(state);
          expect(snapshot && selectIsLoginBusy(snapshot)).toBe(busy);
          expect(snapshot && selectCanLogin(snapshot)).toBe(canLogin);
          expect(snapshot && selectLoginError(snapshot)).toBe(error());
          expect(starts).toHaveLength(startsExpected);
        };
      const none = () => null;
      await path.test({
        states: {
          closed: () => expect(actor).toBeNull(),
          idle: expectPage('idle', 'idle', false, true, none),
          idleAfterFailure: expectPage(
            'idleAfterFailure',
            'idle',
            false,
            true,
            () => 'access_denied',
          ),
          rejected: expectPage('rejected', 'rejected', false, false, () =>
            unsupportedResponseTypeMessage('token'),
          ),
          starting: expectPage('starting', 'starting', true, false, none),
          redirecting: expectPage('redirecting', 'redirecting', true, false, none),
          failed: expectPage('failed', 'failed', false, true, () => failure),
        },
        events: {
          OPENED: () => open({}),
          OPENED_WITH_AUTO_LOGIN: () => open({ autoLogin: true }),
          OPENED_WITH_AUTO_LOGIN_AFTER_FAILURE: () =>
            open({ autoLogin: true, previousError: 'access_denied' }),
          OPENED_WITH_IMPLICIT_FLOW: () => open({ responseType: 'token', autoLogin: true }),
          REQUESTED: () => actor?.send({ type: 'login.requested' }),
          REDIRECTED: () => settle('ok'),
          START_FAILED: () => {
            failure = `Network timed out ${starts.length}`;
            return settle(new Error(failure));
          },
        },
      });
    });
  }
});

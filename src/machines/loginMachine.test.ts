import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { loginMachine, unsupportedResponseTypeMessage, type LoginInput } from './loginMachine';
import { selectCanLogin, selectIsLoginBusy, selectLoginError } from './loginMachine.selectors';
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

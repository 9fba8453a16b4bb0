import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { AdminApiKey, LocalAccount } from './userAdminMachine.types';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import { userAccountMachine, type UserAccountInput } from './userAccountMachine';

const KEY: AdminApiKey = { id: 'k-1', name: 'admin', whenCreated: '2026-01-01T00:00:00Z' };
const ACCOUNT: LocalAccount = { username: 'dana', disabled: false };

const CREATE_KEY: UserAccountInput = { request: 'createKey', id: 'u-1' };
const DELETE_KEY: UserAccountInput = { request: 'deleteKey', id: 'u-1', keyId: 'k-1' };
const SET_PASSWORD: UserAccountInput = {
  request: 'setPassword',
  id: 'u-1',
  password: 'long password',
  username: 'dana',
};
const SET_DISABLED: UserAccountInput = { request: 'setDisabled', id: 'u-1', disabled: true };

interface Call {
  kind: 'createKey' | 'deleteKey' | 'setPassword' | 'setDisabled';
  input: unknown;
  answer: Deferred<unknown>;
}

/** One request, its call waiting for the test to answer it. */
function startRequest(input: UserAccountInput) {
  const calls: Call[] = [];
  const call = <T, I>(kind: Call['kind']) =>
    fromPromise<T, I>(({ input }) => {
      const answer = deferred<unknown>();
      calls.push({ kind, input, answer });
      return answer.promise as Promise<T>;
    });
  const actor = createActor(
    userAccountMachine.provide({
      actors: {
        createKey: call<{ value: string; keys: AdminApiKey[] }, { id: string }>('createKey'),
        deleteKey: call<AdminApiKey[], { id: string; keyId: string }>('deleteKey'),
        setPassword: call<LocalAccount, { id: string; password: string; username: string }>(
          'setPassword',
        ),
        setDisabled: call<LocalAccount, { id: string; disabled: boolean }>('setDisabled'),
      },
    }),
    { input },
  );
  // Its parent hears of a failure; here the test reads it from the snapshot.
  actor.subscribe({ error: () => undefined });
  actor.start();
  const answer = async (value: unknown) => {
    calls.at(-1)?.answer.resolve(value);
    await flush();
  };
  const fail = async (error: unknown) => {
    calls.at(-1)?.answer.reject(error);
    await flush();
  };
  return { actor, calls, answer, fail };
}

describe('userAccountMachine', () => {
  it('issues a key and answers with its value, shown once, and the keys', async () => {
    const r = startRequest(CREATE_KEY);
    expect(r.calls.map((c) => [c.kind, c.input])).toEqual([['createKey', { id: 'u-1' }]]);
    await r.answer({ value: 'secret-value', keys: [KEY] });
    expect(r.actor.getSnapshot().status).toBe('done');
    expect(r.actor.getSnapshot().output).toEqual({ newKey: 'secret-value', keys: [KEY] });
  });

  it("deletes a key and answers with the user's keys again", async () => {
    const r = startRequest(DELETE_KEY);
    expect(r.calls.map((c) => [c.kind, c.input])).toEqual([
      ['deleteKey', { id: 'u-1', keyId: 'k-1' }],
    ]);
    await r.answer([]);
    expect(r.actor.getSnapshot().output).toEqual({ keys: [] });
  });

  it('sets a local password and answers with the account', async () => {
    const r = startRequest(SET_PASSWORD);
    expect(r.calls.map((c) => [c.kind, c.input])).toEqual([
      ['setPassword', { id: 'u-1', password: 'long password', username: 'dana' }],
    ]);
    await r.answer(ACCOUNT);
    expect(r.actor.getSnapshot().output).toEqual({ account: ACCOUNT });
  });

  it('disables the local account and answers with the account', async () => {
    const r = startRequest(SET_DISABLED);
    expect(r.calls.map((c) => [c.kind, c.input])).toEqual([
      ['setDisabled', { id: 'u-1', disabled: true }],
    ]);
    await r.answer({ ...ACCOUNT, disabled: true });
    expect(r.actor.getSnapshot().output).toEqual({ account: { ...ACCOUNT, disabled: true } });
  });

  it('answers what the server left out as nothing', async () => {
    const key = startRequest(CREATE_KEY);
    await key.answer(undefined);
    expect(key.actor.getSnapshot().output).toEqual({ newKey: null, keys: [] });
    const account = startRequest(SET_DISABLED);
    await account.answer(undefined);
    expect(account.actor.getSnapshot().output).toEqual({ account: null });
  });

  it("fails with the call's own error, for its parent to show", async () => {
    const r = startRequest(SET_PASSWORD);
    const refusal = { status: 400, message: 'PasswordTooShort' };
    await r.fail(refusal);
    expect(r.actor.getSnapshot().status).toBe('error');
    expect(r.actor.getSnapshot().error).toBe(refusal);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(userAccountMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [CREATE_KEY, DELETE_KEY, SET_PASSWORD, SET_DISABLED],
      }),
    ).toEqual([]);
  });
});

describe('userAccountMachine against an abstract model', () => {
  // The request is chosen by the input; the server answers it or refuses it.
  const model = createMachine({
    id: 'userAccountModel',
    initial: 'chosen',
    states: {
      chosen: {
        on: {
          CREATE_KEY: 'creatingKey',
          DELETE_KEY: 'deletingKey',
          SET_PASSWORD: 'settingPassword',
          SET_DISABLED: 'settingDisabled',
        },
      },
      creatingKey: { on: { ANSWERED: 'answered', REFUSED: 'failed' } },
      deletingKey: { on: { ANSWERED: 'answered', REFUSED: 'failed' } },
      settingPassword: { on: { ANSWERED: 'answered', REFUSED: 'failed' } },
      settingDisabled: { on: { ANSWERED: 'answered', REFUSED: 'failed' } },
      answered: {},
      failed: {},
    },
  });
  const paths = modelPaths(model);
  const CALLING = ['creatingKey', 'deletingKey', 'settingPassword', 'settingDisabled'];

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  it('agrees with the machine', () => {
    expect(
      modelDisagreements(model, userAccountMachine, {
        states: {
          chosen: 'choosing',
          ...Object.fromEntries(CALLING.map((state) => [state, state])),
          answered: 'answered',
          // A refusal fails the actor where its call was (checked by its status).
          failed: CALLING,
        },
        events: {
          // The request is the actor's input, not an event.
          CREATE_KEY: [],
          DELETE_KEY: [],
          SET_PASSWORD: [],
          SET_DISABLED: [],
          ANSWERED: [
            'xstate.done.actor.createKey',
            'xstate.done.actor.deleteKey',
            'xstate.done.actor.setPassword',
            'xstate.done.actor.setDisabled',
          ],
          REFUSED: [],
        },
      }),
    ).toEqual([]);
  });

  for (const path of paths) {
    it(path.description, async () => {
      let r: ReturnType<typeof startRequest> | null = null;
      let expected: unknown = null;
      const current = () => {
        if (!r) throw new Error('no request started');
        return r;
      };
      const sent = (kind: Call['kind']) => () => {
        expect(current().calls.map((c) => c.kind)).toEqual([kind]);
        expect(current().actor.getSnapshot().status).toBe('active');
      };
      /** What each call answers, and what the request then outputs. */
      const answers: Record<Call['kind'], () => unknown> = {
        createKey: () => {
          expected = { newKey: 'secret-value', keys: [KEY] };
          return { value: 'secret-value', keys: [KEY] };
        },
        deleteKey: () => {
          expected = { keys: [] };
          return [];
        },
        setPassword: () => {
          expected = { account: ACCOUNT };
          return ACCOUNT;
        },
        setDisabled: () => {
          expected = { account: { ...ACCOUNT, disabled: true } };
          return { ...ACCOUNT, disabled: true };
        },
      };
      await path.test({
        states: {
          chosen: () => expect(r).toBeNull(),
          creatingKey: sent('createKey'),
          deletingKey: sent('deleteKey'),
          settingPassword: sent('setPassword'),
          settingDisabled: sent('setDisabled'),
          answered: () => {
            expect(current().actor.getSnapshot().status).toBe('done');
            expect(current().actor.getSnapshot().output).toEqual(expected);
          },
          failed: () => expect(current().actor.getSnapshot().status).toBe('error'),
        },
        events: {
          CREATE_KEY: () => void (r = startRequest(CREATE_KEY)),
          DELETE_KEY: () => void (r = startRequest(DELETE_KEY)),
          SET_PASSWORD: () => void (r = startRequest(SET_PASSWORD)),
          SET_DISABLED: () => void (r = startRequest(SET_DISABLED)),
          ANSWERED: () => current().answer(answers[current().calls[0]!.kind]()),
          REFUSED: () => current().fail({ status: 400, message: 'Error' }),
        },
      });
    });
  }
});

import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { AdminApiKey, AdminUser, LocalAccount } from './userAdminMachine.types';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import { userDetailMachine, type UserDetailInput } from './userDetailMachine';

const DANA: AdminUser = {
  id: 'u-1',
  name: 'Dana',
  scope: '',
  role: 'user',
  workspaceLimit: 0,
  gamespaceLimit: 0,
  gamespaceMaxMinutes: 0,
  gamespaceCleanupGraceMinutes: 0,
  isRegistrar: false,
};
const KEY: AdminApiKey = { id: 'k-1', name: 'admin', whenCreated: '2026-01-01T00:00:00Z' };
const ACCOUNT: LocalAccount = { username: 'dana', disabled: false };

interface Call {
  kind: 'loadUserDetails' | 'saveUser' | 'deleteUser';
  input: unknown;
  answer: Deferred<unknown>;
}

/** One request, its call waiting for the test to answer it. */
function startRequest(input: UserDetailInput) {
  const calls: Call[] = [];
  const call = <T, I>(kind: Call['kind']) =>
    fromPromise<T, I>(({ input }) => {
      const answer = deferred<unknown>();
      calls.push({ kind, input, answer });
      return answer.promise as Promise<T>;
    });
  const actor = createActor(
    userDetailMachine.provide({
      actors: {
        loadUserDetails: call<{ keys: AdminApiKey[]; account: LocalAccount }, { id: string }>(
          'loadUserDetails',
        ),
        saveUser: call<AdminUser, AdminUser>('saveUser'),
        deleteUser: call<unknown, { id: string }>('deleteUser'),
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

describe('userDetailMachine', () => {
  it("loads the user's keys and local account, and answers with them", async () => {
    const r = startRequest({ request: 'load', id: 'u-1' });
    expect(r.calls.map((c) => [c.kind, c.input])).toEqual([['loadUserDetails', { id: 'u-1' }]]);
    await r.answer({ keys: [KEY], account: ACCOUNT });
    expect(r.actor.getSnapshot().status).toBe('done');
    expect(r.actor.getSnapshot().output).toEqual({ keys: [KEY], account: ACCOUNT });
  });

  it('answers a load the server left empty with no keys and no account', async () => {
    const r = startRequest({ request: 'load', id: 'u-1' });
    await r.answer(undefined);
    expect(r.actor.getSnapshot().output).toEqual({ keys: [], account: null });
  });

  it("saves the user's fields and answers with the user as saved", async () => {
    const edited = { ...DANA, role: 'creator' };
    const r = startRequest({ request: 'save', user: edited });
    expect(r.calls.map((c) => [c.kind, c.input])).toEqual([['saveUser', edited]]);
    await r.answer(edited);
    expect(r.actor.getSnapshot().output).toEqual({ user: edited });
  });

  it('deletes the user by its id and answers with nothing to change', async () => {
    const r = startRequest({ request: 'delete', id: 'u-1' });
    expect(r.calls.map((c) => [c.kind, c.input])).toEqual([['deleteUser', { id: 'u-1' }]]);
    await r.answer(undefined);
    expect(r.actor.getSnapshot().status).toBe('done');
    expect(r.actor.getSnapshot().output).toEqual({});
  });

  it("fails with the call's own error, for its parent to show", async () => {
    const r = startRequest({ request: 'save', user: DANA });
    const refusal = { status: 400, message: 'LastAdministrator' };
    await r.fail(refusal);
    expect(r.actor.getSnapshot().status).toBe('error');
    expect(r.actor.getSnapshot().error).toBe(refusal);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(userDetailMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [
          { request: 'load', id: 'u-1' },
          { request: 'save', user: DANA },
          { request: 'delete', id: 'u-1' },
        ],
      }),
    ).toEqual([]);
  });
});

describe('userDetailMachine against an abstract model', () => {
  // The request is chosen by the input; the server answers it or refuses it.
  const model = createMachine({
    id: 'userDetailModel',
    initial: 'chosen',
    states: {
      chosen: { on: { LOAD: 'loading', SAVE: 'saving', DELETE: 'deleting' } },
      loading: { on: { ANSWERED: 'answered', REFUSED: 'failed' } },
      saving: { on: { ANSWERED: 'answered', REFUSED: 'failed' } },
      deleting: { on: { ANSWERED: 'answered', REFUSED: 'failed' } },
      answered: {},
      failed: {},
    },
  });
  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  it('agrees with the machine', () => {
    expect(
      modelDisagreements(model, userDetailMachine, {
        states: {
          chosen: 'choosing',
          loading: 'loading',
          saving: 'saving',
          deleting: 'deleting',
          answered: 'answered',
          // A refusal fails the actor where its call was (checked by its status).
          failed: ['loading', 'saving', 'deleting'],
        },
        events: {
          // The request is the actor's input, not an event.
          LOAD: [],
          SAVE: [],
          DELETE: [],
          ANSWERED: [
            'xstate.done.actor.loadUserDetails',
            'xstate.done.actor.saveUser',
            'xstate.done.actor.deleteUser',
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
        loadUserDetails: () => {
          expected = { keys: [KEY], account: ACCOUNT };
          return { keys: [KEY], account: ACCOUNT };
        },
        saveUser: () => {
          expected = { user: DANA };
          return DANA;
        },
        deleteUser: () => {
          expected = {};
          return undefined;
        },
      };
      await path.test({
        states: {
          chosen: () => expect(r).toBeNull(),
          loading: sent('loadUserDetails'),
          saving: sent('saveUser'),
          deleting: sent('deleteUser'),
          answered: () => {
            expect(current().actor.getSnapshot().status).toBe('done');
            expect(current().actor.getSnapshot().output).toEqual(expected);
          },
          failed: () => expect(current().actor.getSnapshot().status).toBe('error'),
        },
        events: {
          LOAD: () => void (r = startRequest({ request: 'load', id: 'u-1' })),
          SAVE: () => void (r = startRequest({ request: 'save', user: DANA })),
          DELETE: () => void (r = startRequest({ request: 'delete', id: 'u-1' })),
          ANSWERED: () => current().answer(answers[current().calls[0]!.kind]()),
          REFUSED: () => current().fail({ status: 400, message: 'Error' }),
        },
      });
    });
  }
});

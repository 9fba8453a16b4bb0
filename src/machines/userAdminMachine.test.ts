import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import { createPagedSearchMachine, type PageQuery } from './pagedSearchMachine';
import {
  userAdminMachine,
  type AdminApiKey,
  type AdminUser,
  type LocalAccount,
} from './userAdminMachine';
import { userAccountMachine } from './userAccountMachine';
import { userDetailMachine } from './userDetailMachine';
import { selectAccountNotice, selectUserNotice } from './userAdminMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

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

function start(
  options: { account?: LocalAccount; failSave?: boolean; selfId?: string | null } = {},
) {
  const calls: Array<[string, unknown]> = [];
  const searches: PageQuery[] = [];
  let keys: AdminApiKey[] = [];
  let account: LocalAccount = options.account ?? { username: null, disabled: false };
  const record = <I, O>(name: string, answer: (input: I) => O) =>
    fromPromise<O, I>(async ({ input }) => {
      calls.push([name, input]);
      return answer(input);
    });
  const actor = createActor(
    userAdminMachine.provide({
      actors: {
        userSearch: createPagedSearchMachine<AdminUser>().provide({
          actors: {
            fetchPage: fromPromise(async ({ input }: { input: PageQuery }) => {
              searches.push(input);
              return [DANA];
            }),
          },
        }),
        addUser: record('addUser', ({ name }: { name: string }) => ({ ...DANA, id: 'u-2', name })),
        userDetail: userDetailMachine.provide({
          actors: {
            loadUserDetails: record('loadUserDetails', (_: { id: string }) => ({ keys, account })),
            saveUser: fromPromise<AdminUser, AdminUser>(async ({ input }) => {
              calls.push(['saveUser', input]);
              if (options.failSave) throw { message: 'LastAdministrator' };
              return input;
            }),
            deleteUser: record('deleteUser', (_: { id: string }): unknown => undefined),
          },
        }),
        userAccount: userAccountMachine.provide({
          actors: {
            createKey: record('createKey', (_: { id: string }) => {
              keys = [KEY];
              return { value: 'secret-value', keys };
            }),
            deleteKey: record(
              'deleteKey',
              (_: { id: string; keyId: string }): AdminApiKey[] => (keys = []),
            ),
            setPassword: record(
              'setPassword',
              (input: { id: string; password: string; username: string }) => {
                account = { username: input.username || 'dana', disabled: false };
                return account;
              },
            ),
            setDisabled: record('setDisabled', (input: { id: string; disabled: boolean }) => {
              account = { ...account, disabled: input.disabled };
              return account;
            }),
          },
        }),
      },
    }),
    { input: { selfId: options.selfId ?? null } },
  ).start();
  const settle = () =>
    new Promise<void>((resolve) => {
      const check = () => (actor.getSnapshot().hasTag('busy') ? setTimeout(check, 0) : resolve());
      setTimeout(check, 0);
    });
  return { actor, calls, searches, settle };
}

describe('userAdminMachine', () => {
  it('searches users with the list and opens one with its keys and account', async () => {
    const { actor, searches, settle } = start();
    await expect.poll(() => searches.length).toBe(1);
    expect(searches[0]).toMatchObject({ term: '', skip: 0, take: 100 });
    actor.send({ type: 'user.selected', user: DANA });
    await settle();
    expect(actor.getSnapshot().matches({ editing: 'ready' })).toBe(true);
    expect(actor.getSnapshot().context.account).toEqual({ username: null, disabled: false });
  });

  it('adds a user by name, opens it and refreshes the list; an empty name adds nobody', async () => {
    const { actor, calls, searches, settle } = start();
    actor.send({ type: 'user.addRequested', name: '   ' });
    expect(actor.getSnapshot().matches('browsing')).toBe(true);
    actor.send({ type: 'user.addRequested', name: ' Erin ' });
    await settle();
    expect(calls[0]).toEqual(['addUser', { name: 'Erin' }]);
    expect(actor.getSnapshot().context.user?.name).toBe('Erin');
    await expect.poll(() => searches.length).toBe(2);
  });

  it('saves the edited role and limits, and shows why a save failed', async () => {
    const ok = start();
    ok.actor.send({ type: 'user.selected', user: DANA });
    await ok.settle();
    ok.actor.send({ type: 'draft.changed', draft: { role: 'creator', gamespaceLimit: 3 } });
    ok.actor.send({ type: 'save.requested' });
    await ok.settle();
    expect(ok.calls.at(-1)).toEqual(['saveUser', { ...DANA, role: 'creator', gamespaceLimit: 3 }]);
    expect(ok.actor.getSnapshot().context.notice).toBe('Saved');
    // Said beside the user's form, not the account's.
    expect(selectUserNotice(ok.actor.getSnapshot())).toBe('Saved');
    expect(selectAccountNotice(ok.actor.getSnapshot())).toBeNull();

    const bad = start({ failSave: true });
    bad.actor.send({ type: 'user.selected', user: DANA });
    await bad.settle();
    bad.actor.send({ type: 'save.requested' });
    await bad.settle();
    expect(bad.actor.getSnapshot().context.error).toMatch(/Last administrator/i);
  });

  it('deletes a user only after confirmation', async () => {
    const { actor, calls, settle } = start();
    actor.send({ type: 'user.selected', user: DANA });
    await settle();
    actor.send({ type: 'delete.requested' });
    actor.send({ type: 'delete.cancelled' });
    expect(calls.some(([name]) => name === 'deleteUser')).toBe(false);
    actor.send({ type: 'delete.requested' });
    actor.send({ type: 'delete.confirmed' });
    await settle();
    expect(calls.at(-1)).toEqual(['deleteUser', { id: 'u-1' }]);
    expect(actor.getSnapshot().matches('browsing')).toBe(true);
  });

  it('shows a new key value once, until dismissed, and deletes keys', async () => {
    const { actor, settle } = start();
    actor.send({ type: 'user.selected', user: DANA });
    await settle();
    actor.send({ type: 'key.createRequested' });
    await settle();
    expect(actor.getSnapshot().context.newKey).toBe('secret-value');
    expect(actor.getSnapshot().context.keys).toEqual([KEY]);
    actor.send({ type: 'key.dismissed' });
    expect(actor.getSnapshot().context.newKey).toBeNull();
    actor.send({ type: 'key.deleteRequested', keyId: 'k-1' });
    await settle();
    expect(actor.getSnapshot().context.keys).toEqual([]);
  });

  it('sets a password (creating the account) and toggles disabled only with an account', async () => {
    const { actor, calls, settle } = start();
    actor.send({ type: 'user.selected', user: DANA });
    await settle();
    actor.send({ type: 'account.disabledToggled' });
    expect(calls.some(([name]) => name === 'setDisabled')).toBe(false);
    actor.send({ type: 'password.setRequested', password: '', username: 'dana' });
    expect(calls.some(([name]) => name === 'setPassword')).toBe(false);
    actor.send({ type: 'password.setRequested', password: 'long password', username: ' dana ' });
    await settle();
    expect(calls.at(-1)).toEqual([
      'setPassword',
      { id: 'u-1', password: 'long password', username: 'dana' },
    ]);
    // Said beside the account's form, where the password was typed.
    expect(selectAccountNotice(actor.getSnapshot())).toBe('Password set');
    expect(selectUserNotice(actor.getSnapshot())).toBeNull();
    actor.send({ type: 'account.disabledToggled' });
    await settle();
    expect(actor.getSnapshot().context.account).toEqual({ username: 'dana', disabled: true });
  });

  it('never disables the signed-in administrator’s own account, but may enable it', async () => {
    const own = start({ selfId: DANA.id, account: { username: 'dana', disabled: false } });
    own.actor.send({ type: 'user.selected', user: DANA });
    await own.settle();
    expect(own.actor.getSnapshot().can({ type: 'account.disabledToggled' })).toBe(false);
    own.actor.send({ type: 'account.disabledToggled' });
    expect(own.calls.some(([name]) => name === 'setDisabled')).toBe(false);

    const disabled = start({ selfId: DANA.id, account: { username: 'dana', disabled: true } });
    disabled.actor.send({ type: 'user.selected', user: DANA });
    await disabled.settle();
    disabled.actor.send({ type: 'account.disabledToggled' });
    await disabled.settle();
    expect(disabled.calls.at(-1)).toEqual(['setDisabled', { id: 'u-1', disabled: false }]);

    const other = start({ selfId: 'u-admin', account: { username: 'dana', disabled: false } });
    other.actor.send({ type: 'user.selected', user: DANA });
    await other.settle();
    expect(other.actor.getSnapshot().can({ type: 'account.disabledToggled' })).toBe(true);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(userAdminMachine, {
        // Whether the open user has a local account decides if it can be disabled.
        serializeState: (snapshot) =>
          JSON.stringify([
            snapshot.value,
            !!(snapshot as { context?: { account?: LocalAccount | null } }).context?.account
              ?.username,
          ]),
        payloads: [
          {
            type: 'xstate.done.actor.userDetail',
            output: { keys: [], account: { username: 'dana', disabled: false } },
          },
          { type: 'user.selected', user: DANA },
          { type: 'user.addRequested', name: 'Erin' },
          { type: 'password.setRequested', password: 'long password', username: 'x' },
          { type: 'key.deleteRequested', keyId: 'k-1' },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: opening and adding users, and every effect on the open user (save, delete
 * after confirmation, keys, password, disabled) answered or refused, checking what the view
 * reads in each state.
 */
describe('userAdminMachine against its model', () => {
  type ModelEvent =
    | { type: 'SELECTED' }
    | { type: 'ADD' }
    | { type: 'DONE' }
    | { type: 'FAILED' }
    | { type: 'CLOSED' }
    | { type: 'EDITED' }
    | { type: 'KEY_DISMISSED' }
    | { type: 'SAVE' }
    | { type: 'DELETE' }
    | { type: 'CONFIRMED' }
    | { type: 'CANCELLED' }
    | { type: 'CREATE_KEY' }
    | { type: 'DELETE_KEY' }
    | { type: 'SET_PASSWORD' }
    | { type: 'TOGGLE_DISABLED' };

  // Opening a user and adding one work from anywhere; an effect answered (DONE) or refused
  // (FAILED) goes back to the open user, except an add (refused: the list) and a delete (done).
  const anywhere = { SELECTED: 'loading', ADD: 'adding' } as const;
  const open = { ...anywhere, CLOSED: 'browsing' } as const;
  const effect = (done = 'ready') => ({ on: { ...open, DONE: done, FAILED: 'ready' } });
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'userAdminModel',
    initial: 'browsing',
    states: {
      browsing: { on: anywhere },
      adding: { on: { ...anywhere, DONE: 'loading', FAILED: 'browsing' } },
      loading: effect(),
      ready: {
        on: {
          ...open,
          EDITED: 'ready',
          KEY_DISMISSED: 'ready',
          SAVE: 'saving',
          DELETE: 'confirmingDelete',
          CREATE_KEY: 'creatingKey',
          DELETE_KEY: 'deletingKey',
          SET_PASSWORD: 'settingPassword',
          TOGGLE_DISABLED: 'settingDisabled',
        },
      },
      confirmingDelete: { on: { ...open, CONFIRMED: 'deleting', CANCELLED: 'ready' } },
      saving: effect(),
      deleting: effect('browsing'),
      creatingKey: effect(),
      deletingKey: effect(),
      settingPassword: effect(),
      settingDisabled: effect(),
    },
  });

  const EDITING = [
    'loading',
    'ready',
    'confirmingDelete',
    'saving',
    'deleting',
    'creatingKey',
    'deletingKey',
    'settingPassword',
    'settingDisabled',
  ];
  const machineState = (state: string) => (EDITING.includes(state) ? `editing.${state}` : state);
  const effects = ['adding', ...EDITING.filter((s) => !['ready', 'confirmingDelete'].includes(s))];
  // The open user's requests are children: userDetail for its record, userAccount for the rest.
  const outcome = (kind: 'done' | 'error') => [
    `xstate.${kind}.actor.0.userAdmin.adding`,
    `xstate.${kind}.actor.userDetail`,
    `xstate.${kind}.actor.userAccount`,
  ];

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, userAdminMachine, {
        states: Object.fromEntries(
          Object.keys(model.root.states).map((state) => [state, machineState(state)]),
        ),
        events: {
          SELECTED: 'user.selected',
          ADD: 'user.addRequested',
          DONE: outcome('done'),
          FAILED: outcome('error'),
          CLOSED: 'user.closed',
          EDITED: 'draft.changed',
          KEY_DISMISSED: 'key.dismissed',
          SAVE: 'save.requested',
          DELETE: 'delete.requested',
          CONFIRMED: 'delete.confirmed',
          CANCELLED: 'delete.cancelled',
          CREATE_KEY: 'key.createRequested',
          DELETE_KEY: 'key.deleteRequested',
          SET_PASSWORD: 'password.setRequested',
          TOGGLE_DISABLED: 'account.disabledToggled',
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
      const calls: { name: string; input: Record<string, unknown>; answer: Deferred<unknown> }[] =
        [];
      let searches = 0;
      // Each effect waits for the test to answer it; `never` lets one double stand for each.
      const effect = (name: string): never =>
        fromPromise<unknown, Record<string, unknown>>(({ input }) => {
          const answer = deferred<unknown>();
          calls.push({ name, input, answer });
          return answer.promise;
        }) as never;
      const actor = createActor(
        userAdminMachine.provide({
          actors: {
            userSearch: createPagedSearchMachine<AdminUser>().provide({
              actors: {
                fetchPage: fromPromise(async () => {
                  searches += 1;
                  return [DANA];
                }),
              },
            }),
            addUser: effect('addUser'),
            userDetail: userDetailMachine.provide({
              actors: {
                loadUserDetails: effect('loadUserDetails'),
                saveUser: effect('saveUser'),
                deleteUser: effect('deleteUser'),
              },
            }),
            userAccount: userAccountMachine.provide({
              actors: {
                createKey: effect('createKey'),
                deleteKey: effect('deleteKey'),
                setPassword: effect('setPassword'),
                setDisabled: effect('setDisabled'),
              },
            }),
          },
        }),
        { input: { selfId: null } },
      ).start();
      await flush();
      // What the view should show, as the model's steps change it.
      let mode = 'browsing';
      let userId: string | null = null;
      let keys: string[] = [];
      let account: LocalAccount | null = null;
      let newKey: string | null = null;
      let error: string | null = null;
      let notice: string | null = null;
      let listLoads = 1;
      let next = 0;
      const expectAdmin = (state: string) => () => {
        mode = state;
        const s = actor.getSnapshot();
        expect(s.matches(machineState(state) as never)).toBe(true);
        expect(s.hasTag('busy')).toBe(effects.includes(state));
        expect(s.context.user?.id ?? null).toBe(userId);
        expect(s.context.keys.map((k) => k.id)).toEqual(keys);
        expect(s.context.account).toEqual(account);
        expect(s.context.newKey).toBe(newKey);
        expect(s.context.error).toBe(error);
        expect(s.context.notice).toBe(notice);
        expect(searches).toBe(listLoads);
        if (effects.includes(state)) {
          const name =
            state === 'adding' ? 'addUser' : state === 'loading' ? 'loadUserDetails' : '';
          if (name) expect(calls.at(-1)?.name).toBe(name);
          if (state !== 'adding') expect(calls.at(-1)?.input.id).toBe(userId);
        }
      };
      const opened = (id: string) => {
        userId = id;
        keys = [];
        account = null;
        newKey = null;
        error = null;
        notice = null;
      };
      const key = (id: string): AdminApiKey => ({ ...KEY, id });
      /** What each effect answers, and what the view then shows. */
      const answers: Record<string, () => unknown> = {
        adding: () => {
          opened(`u-new-${++next}`);
          listLoads += 1;
          return { ...DANA, id: userId };
        },
        loading: () => {
          keys = ['k-1'];
          account = { username: 'dana', disabled: false };
          return { keys: [key('k-1')], account };
        },
        saving: () => {
          notice = 'Saved';
          listLoads += 1;
          return { ...DANA, id: userId, role: 'builder' };
        },
        deleting: () => {
          userId = null;
          error = null;
          listLoads += 1;
          return undefined;
        },
        creatingKey: () => {
          newKey = `secret-${++next}`;
          keys = [...keys, `k-${next}`];
          return { value: newKey, keys: keys.map(key) };
        },
        deletingKey: () => {
          keys = keys.slice(1);
          return keys.map(key);
        },
        settingPassword: () => {
          account = { username: 'dana', disabled: false };
          notice = 'Password set';
          return account;
        },
        settingDisabled: () => {
          account = { username: 'dana', disabled: !account?.disabled };
          return account;
        },
      };
      const select = () => {
        opened(`u-${++next}`);
        // Selecting a user leaves the search as it is: no new load of the list.
        actor.send({ type: 'user.selected', user: { ...DANA, id: userId! } });
      };
      const setPassword = () => {
        error = null;
        notice = null;
        actor.send({ type: 'password.setRequested', password: 'pw', username: 'dana' });
      };
      const events = {
        SELECTED: select,
        ADD: () => actor.send({ type: 'user.addRequested', name: 'Erin' }),
        DONE: async () => {
          const output = answers[mode]!();
          calls.at(-1)!.answer.resolve(output);
          await flush();
        },
        FAILED: async () => {
          error = 'refused';
          calls.at(-1)!.answer.reject(new Error('refused'));
          await flush();
        },
        CLOSED: () => {
          userId = null;
          newKey = null;
          actor.send({ type: 'user.closed' });
        },
        EDITED: () => {
          notice = null;
          actor.send({ type: 'draft.changed', draft: { role: 'creator' } });
        },
        KEY_DISMISSED: () => {
          newKey = null;
          actor.send({ type: 'key.dismissed' });
        },
        SAVE: () => {
          error = null;
          notice = null;
          actor.send({ type: 'save.requested' });
        },
        DELETE: () => actor.send({ type: 'delete.requested' }),
        CONFIRMED: () => actor.send({ type: 'delete.confirmed' }),
        CANCELLED: () => actor.send({ type: 'delete.cancelled' }),
        CREATE_KEY: () => {
          error = null;
          newKey = null;
          actor.send({ type: 'key.createRequested' });
        },
        DELETE_KEY: () => {
          error = null;
          actor.send({ type: 'key.deleteRequested', keyId: keys[0] ?? 'k-1' });
        },
        SET_PASSWORD: setPassword,
        TOGGLE_DISABLED: async () => {
          if (account?.username == null) {
            // No local account yet: the model's TOGGLE is then one given a password first.
            setPassword();
            mode = 'settingPassword';
            await events.DONE();
          }
          error = null;
          actor.send({ type: 'account.disabledToggled' });
        },
      };
      await path.test({
        states: Object.fromEntries(
          Object.keys(model.root.states).map((state) => [state, expectAdmin(state)]),
        ),
        events,
      });
    });
  }
});

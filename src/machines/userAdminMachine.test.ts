import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { createPagedSearchMachine, type PageQuery } from './pagedSearchMachine';
import {
  userAdminMachine,
  type AdminApiKey,
  type AdminUser,
  type LocalAccount,
} from './userAdminMachine';
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

function start(options: { account?: LocalAccount; failSave?: boolean } = {}) {
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
        loadUserDetails: record('loadUserDetails', (_: { id: string }) => ({ keys, account })),
        saveUser: fromPromise<AdminUser, AdminUser>(async ({ input }) => {
          calls.push(['saveUser', input]);
          if (options.failSave) throw { message: 'LastAdministrator' };
          return input;
        }),
        deleteUser: record('deleteUser', (_: { id: string }): unknown => undefined),
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
    actor.send({ type: 'account.disabledToggled' });
    await settle();
    expect(actor.getSnapshot().context.account).toEqual({ username: 'dana', disabled: true });
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
            type: 'xstate.done.actor.loadUserDetails',
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

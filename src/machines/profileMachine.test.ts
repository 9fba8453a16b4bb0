import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { profileMachine, type OwnApiKey, type ProfileSnapshot } from './profileMachine';
import {
  selectHasLocalSignIn,
  selectKeyCopied,
  selectKeyError,
  selectKeyboardLayout,
  selectKeys,
  selectKeysBusy,
  selectKeyToConfirm,
  selectLoadFailed,
  selectNewKey,
  selectPasswordChanged,
  selectPasswordChanging,
  selectPasswordError,
  selectNewPassword,
} from './profileMachine.selectors';
import { deferred, flush } from './testing/deferred';
import { unreachedStateIds } from './testing/reachability';

const KEY_A: OwnApiKey = { id: 'a', name: 'Player', whenCreated: '2026-11-29T08:30:00Z' };
const KEY_B: OwnApiKey = { id: 'b', name: 'Player', whenCreated: '2026-11-29T09:00:00Z' };

/** The server as the stubs see it: the user's keys, its username, and what each call did. */
function startProfile(
  options: {
    username?: string | null;
    keys?: OwnApiKey[];
    load?: 'ok' | 'fail';
    currentPassword?: string;
    copy?: 'ok' | 'fail';
  } = {},
) {
  let keys = [...(options.keys ?? [KEY_A])];
  const calls = {
    issued: 0,
    revoked: [] as string[],
    passwords: [] as string[],
    copied: [] as string[],
    layouts: [] as string[],
  };
  let loads = 0;
  const actor = createActor(
    profileMachine.provide({
      actors: {
        loadProfile: fromPromise(async () => {
          loads++;
          if (options.load === 'fail' && loads === 1) throw new Error('Failed to fetch');
          return { keys, username: options.username === undefined ? 'player' : options.username };
        }),
        issueKey: fromPromise(async () => {
          calls.issued++;
          keys = [...keys, KEY_B];
          return { value: 'the-new-key-value', keys };
        }),
        revokeKey: fromPromise<OwnApiKey[], { userId: string; keyId: string }>(
          async ({ input }) => {
            calls.revoked.push(input.keyId);
            keys = keys.filter((k) => k.id !== input.keyId);
            return keys;
          },
        ),
        copyToClipboard: fromPromise<void, { text: string }>(async ({ input }) => {
          if (options.copy === 'fail') throw new DOMException('Denied', 'NotAllowedError');
          calls.copied.push(input.text);
        }),
        changePassword: fromPromise<
          { username: string | null },
          { currentPassword: string; password: string }
        >(async ({ input }) => {
          if (input.currentPassword !== (options.currentPassword ?? 'old password')) {
            throw new Error('InvalidOperation WrongPassword');
          }
          calls.passwords.push(input.password);
          return { username: 'player' };
        }),
      },
      actions: {
        rememberKeyboardLayout: (_, { layout }) => void calls.layouts.push(layout),
      },
    }),
    { input: { userId: 'u-1', keyboardLayout: 'de' } },
  ).start();
  const snap = () => actor.getSnapshot();
  const type = (current: string, next: string, repeat = next) => {
    actor.send({ type: 'password.edited', field: 'current', value: current });
    actor.send({ type: 'password.edited', field: 'next', value: next });
    actor.send({ type: 'password.edited', field: 'repeat', value: repeat });
  };
  return { actor, snap, calls, type };
}

describe('profileMachine', () => {
  it('shows the user’s keyboard layout and remembers a new choice, even before the page loads', async () => {
    const { actor, snap, calls } = startProfile();
    expect(selectKeyboardLayout(snap())).toBe('de');
    actor.send({ type: 'keyboard.layoutChosen', layout: 'es' });
    expect(selectKeyboardLayout(snap())).toBe('es');
    expect(calls.layouts).toEqual(['es']);
    await flush();
    actor.send({ type: 'keyboard.layoutChosen', layout: 'uk' });
    expect(calls.layouts).toEqual(['es', 'uk']);
  });

  it('loads the user’s keys and whether it has a local sign-in', async () => {
    const { snap } = startProfile();
    await flush();
    expect(selectKeys(snap())).toEqual([KEY_A]);
    expect(selectHasLocalSignIn(snap())).toBe(true);
  });

  it('says why the page did not load, and loads again when asked', async () => {
    const { actor, snap } = startProfile({ load: 'fail' });
    await flush();
    expect(selectLoadFailed(snap())).toBe(true);
    expect(selectKeyError(snap())).toMatch(/could not be reached/);
    actor.send({ type: 'profile.reloadRequested' });
    await flush();
    expect(selectLoadFailed(snap())).toBe(false);
    expect(selectKeys(snap())).toEqual([KEY_A]);
  });

  it('shows a new key once, copies it, and forgets it when dismissed', async () => {
    const { actor, snap, calls } = startProfile();
    await flush();
    actor.send({ type: 'key.issueRequested' });
    expect(selectKeysBusy(snap())).toBe(true);
    await flush();
    expect(selectNewKey(snap())).toBe('the-new-key-value');
    expect(selectKeys(snap())).toEqual([KEY_A, KEY_B]);
    actor.send({ type: 'key.copyRequested' });
    await flush();
    expect(calls.copied).toEqual(['the-new-key-value']);
    expect(selectKeyCopied(snap())).toBe(true);
    actor.send({ type: 'key.dismissed' });
    expect(selectNewKey(snap())).toBeNull();
    expect(selectKeyCopied(snap())).toBe(false);
  });

  it('keeps the key on screen and says so when the clipboard refuses it', async () => {
    const { actor, snap } = startProfile({ copy: 'fail' });
    await flush();
    actor.send({ type: 'key.issueRequested' });
    await flush();
    actor.send({ type: 'key.copyRequested' });
    await flush();
    expect(selectNewKey(snap())).toBe('the-new-key-value');
    expect(selectKeyError(snap())).toMatch(/select it and copy it/);
  });

  it('revokes a key only once the user confirms, and not when cancelled', async () => {
    const { actor, snap, calls } = startProfile({ keys: [KEY_A, KEY_B] });
    await flush();
    actor.send({ type: 'key.revokeRequested', keyId: 'a' });
    expect(selectKeyToConfirm(snap())).toBe('a');
    actor.send({ type: 'key.revokeCancelled' });
    expect(selectKeyToConfirm(snap())).toBeNull();
    await flush();
    expect(calls.revoked).toEqual([]);

    actor.send({ type: 'key.revokeRequested', keyId: 'b' });
    actor.send({ type: 'key.revokeConfirmed' });
    await flush();
    expect(calls.revoked).toEqual(['b']);
    expect(selectKeys(snap())).toEqual([KEY_A]);
  });

  it('sends nothing while the new passwords differ or are too short, and keeps what was typed', async () => {
    const { actor, snap, calls, type } = startProfile();
    await flush();
    type('old password', 'a long new one', 'a long new 0ne');
    actor.send({ type: 'password.changeRequested' });
    expect(selectPasswordError(snap())).toMatch(/do not match/);
    type('old password', 'short');
    actor.send({ type: 'password.changeRequested' });
    expect(selectPasswordError(snap())).toMatch(/too short/);
    await flush();
    expect(calls.passwords).toEqual([]);
    expect(selectNewPassword(snap())).toBe('short');
  });

  it('says so when the current password is wrong, and keeps the new one typed', async () => {
    const { actor, snap, calls, type } = startProfile();
    await flush();
    type('not it', 'a long new one');
    actor.send({ type: 'password.changeRequested' });
    expect(selectPasswordChanging(snap())).toBe(true);
    await flush();
    expect(calls.passwords).toEqual([]);
    expect(selectPasswordError(snap())).toBe(
      'Your current password is not right: nothing was changed. Type it again.',
    );
    expect(selectNewPassword(snap())).toBe('a long new one');
  });

  it('changes the password, confirms it and clears the form', async () => {
    const { actor, snap, calls, type } = startProfile();
    await flush();
    type('old password', 'a long new one');
    actor.send({ type: 'password.changeRequested' });
    await flush();
    expect(calls.passwords).toEqual(['a long new one']);
    expect(selectPasswordChanged(snap())).toBe(true);
    expect(selectPasswordError(snap())).toBeNull();
    expect(selectNewPassword(snap())).toBe('');
  });

  it('offers no password change to a user without a local sign-in', async () => {
    const { actor, snap, calls, type } = startProfile({ username: null });
    await flush();
    expect(selectHasLocalSignIn(snap())).toBe(false);
    type('old password', 'a long new one');
    actor.send({ type: 'password.changeRequested' });
    await flush();
    expect(selectPasswordChanging(snap())).toBe(false);
    expect(calls.passwords).toEqual([]);
  });

  it('works on keys while a password change is under way', async () => {
    const pending = deferred<{ username: string | null }>();
    const actor = createActor(
      profileMachine.provide({
        actors: {
          loadProfile: fromPromise(async () => ({
            keys: [KEY_A],
            username: 'player' as string | null,
          })),
          issueKey: fromPromise(async () => ({ value: 'v', keys: [KEY_A, KEY_B] })),
          changePassword: fromPromise(() => pending.promise),
        },
      }),
      { input: { userId: 'u-1' } },
    ).start();
    await flush();
    for (const [field, value] of [
      ['current', 'old password'],
      ['next', 'a long new one'],
      ['repeat', 'a long new one'],
    ] as const) {
      actor.send({ type: 'password.edited', field, value });
    }
    actor.send({ type: 'password.changeRequested' });
    actor.send({ type: 'key.issueRequested' });
    await flush();
    expect(selectNewKey(actor.getSnapshot())).toBe('v');
    expect(selectPasswordChanging(actor.getSnapshot())).toBe(true);
    pending.resolve({ username: 'player' });
    await flush();
    expect(selectPasswordChanged(actor.getSnapshot())).toBe(true);
  });

  it('reaches every state', () => {
    const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output });
    expect(
      unreachedStateIds(profileMachine, {
        // What the guards read: a local sign-in, a key on screen, the form (one value per field).
        serializeState: (snapshot) => {
          const context = (snapshot as ProfileSnapshot).context;
          return JSON.stringify([
            snapshot.value,
            context.username !== null,
            context.newKey !== null,
            context.password,
          ]);
        },
        inputs: [{ userId: 'u-1' }],
        payloads: [
          done('loadProfile', { keys: [KEY_A], username: 'player' }),
          done('issueKey', { value: 'v', keys: [KEY_A, KEY_B] }),
          done('revokeKey', [KEY_A]),
          done('changePassword', { username: 'player' }),
          { type: 'key.revokeRequested', keyId: 'a' },
          { type: 'password.edited', field: 'current', value: 'old password' },
          { type: 'password.edited', field: 'next', value: 'a long new one' },
          { type: 'password.edited', field: 'repeat', value: 'a long new one' },
        ],
      }),
    ).toEqual([]);
  });
});

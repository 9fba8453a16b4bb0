import { describe, expect, it } from 'vitest';
import { RESTORE_PENDING_COOKIE } from '../domain/homePage';
import {
  createLocalSettings,
  keyboardLayoutOf,
  localSettingsKey,
  rememberKeyboardLayout,
  restorePendingCookie,
} from './localSettings';

/** An in-memory Storage. */
function memoryStorage(initial: Record<string, string> = {}): Storage {
  const data = new Map(Object.entries(initial));
  return {
    get length() {
      return data.size;
    },
    clear: () => data.clear(),
    getItem: (key) => data.get(key) ?? null,
    key: (index) => [...data.keys()][index] ?? null,
    removeItem: (key) => void data.delete(key),
    setItem: (key, value) => void data.set(key, String(value)),
  };
}

const HOST = 'localhost:5080';

describe('local settings', () => {
  it('are stored per host under one key', () => {
    const storage = memoryStorage();
    createLocalSettings(storage, HOST).rememberLast('/topo/ws-1/settings');
    expect(localSettingsKey(HOST)).toBe('topoplay__localhost:5080');
    expect(JSON.parse(storage.getItem('topoplay__localhost:5080') ?? '')).toEqual({
      last: '/topo/ws-1/settings',
    });
  });

  it('give the remembered page back once per page load, and forget it', () => {
    const storage = memoryStorage({ [localSettingsKey(HOST)]: '{"last":"/topo/ws-1/play"}' });
    const local = createLocalSettings(storage, HOST);
    expect(local.takeLastForRestore()).toBe('/topo/ws-1/play');
    expect(local.read()).toEqual({});
    expect(local.takeLastForRestore()).toBeUndefined();
  });

  it('restore nothing once a page was remembered during this page load', () => {
    const local = createLocalSettings(memoryStorage(), HOST);
    local.rememberLast('/topo/ws-1/settings');
    expect(local.takeLastForRestore()).toBeUndefined();
    expect(local.read()).toEqual({ last: '/topo/ws-1/settings' });
  });

  it('forget the remembered page on request', () => {
    const storage = memoryStorage({ [localSettingsKey(HOST)]: '{"last":"/topo/gone/settings"}' });
    const local = createLocalSettings(storage, HOST);
    local.forgetLast();
    expect(local.read()).toEqual({});
    expect(local.takeLastForRestore()).toBeUndefined();
  });

  it('treat unreadable storage as empty', () => {
    const local = createLocalSettings(memoryStorage({ [localSettingsKey(HOST)]: '{oops' }), HOST);
    expect(local.read()).toEqual({});
    expect(
      createLocalSettings(memoryStorage({ [localSettingsKey(HOST)]: '{"last":3}' }), HOST).read(),
    ).toEqual({});
  });

  it('keep the browse mode beside the remembered page', () => {
    const storage = memoryStorage();
    const local = createLocalSettings(storage, HOST);
    local.rememberLast('/about');
    local.update({ browseMode: 'gamespaces' });
    expect(createLocalSettings(storage, HOST).read()).toEqual({
      last: '/about',
      browseMode: 'gamespaces',
    });
  });

  it('survive a storage that refuses to write', () => {
    const storage = memoryStorage();
    storage.setItem = () => {
      throw new Error('QuotaExceededError');
    };
    expect(() => createLocalSettings(storage, HOST).rememberLast('/about')).not.toThrow();
  });

  it('tell whether home will leave for a remembered page, on creation and after every change', () => {
    const heard: boolean[] = [];
    const storage = memoryStorage({ [localSettingsKey(HOST)]: '{"last":"/topo/ws-1/play"}' });
    const local = createLocalSettings(storage, HOST, (pending) => heard.push(pending));
    expect(heard).toEqual([true]);
    local.takeLastForRestore();
    local.rememberLast('/topo/ws-2/settings');
    local.update({ browseMode: 'gamespaces' });
    local.forgetLast();
    // Home itself is no page to leave for.
    local.rememberLast('/');
    expect(heard).toEqual([true, false, true, true, false, false]);
    createLocalSettings(memoryStorage(), HOST, (pending) => heard.push(pending));
    expect(heard.at(-1)).toBe(false);
  });
});

describe('the keyboard layout', () => {
  it('is US until chosen, then each user’s own, kept across page loads', () => {
    const storage = memoryStorage();
    expect(keyboardLayoutOf(createLocalSettings(storage, HOST), 'u1')).toBe('us');
    rememberKeyboardLayout(createLocalSettings(storage, HOST), 'u1', 'de');
    rememberKeyboardLayout(createLocalSettings(storage, HOST), 'u2', 'fr');
    const local = createLocalSettings(storage, HOST);
    expect(keyboardLayoutOf(local, 'u1')).toBe('de');
    expect(keyboardLayoutOf(local, 'u2')).toBe('fr');
  });

  it('is the last one chosen for a console that does not know its user', () => {
    const local = createLocalSettings(memoryStorage(), HOST);
    rememberKeyboardLayout(local, 'u1', 'it');
    expect(keyboardLayoutOf(local, null)).toBe('it');
    expect(keyboardLayoutOf(local, 'u3')).toBe('it');
  });

  it('falls back to US for a layout this version does not know', () => {
    const raw = JSON.stringify({ keyboardLayouts: { u1: 'klingon' } });
    const local = createLocalSettings(memoryStorage({ [localSettingsKey(HOST)]: raw }), HOST);
    expect(keyboardLayoutOf(local, 'u1')).toBe('us');
  });
});

describe('the restore cookie', () => {
  it('is set for the whole site while home will leave, and removed otherwise', () => {
    const document = { cookie: '' };
    restorePendingCookie(document)(true);
    expect(document.cookie).toBe(
      `${RESTORE_PENDING_COOKIE}=1; Path=/; Max-Age=31536000; SameSite=Lax`,
    );
    restorePendingCookie(document)(false);
    expect(document.cookie).toBe(`${RESTORE_PENDING_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`);
  });
});

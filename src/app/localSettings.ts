import * as E from 'fp-ts/Either';
import * as t from 'io-ts';
import { RESTORE_PENDING_COOKIE } from '../domain/homePage';
import {
  DEFAULT_KEYBOARD_LAYOUT,
  isKeyboardLayout,
  type KeyboardLayout,
} from '../domain/keyboardLayouts';

// `browseMode` is kept as any string: a value this version does not know (an older or newer
// build's) must not make the whole document unreadable; the browser checks it when reading.
// The same holds for the keyboard layouts, by user id (`*`: the last one chosen by anyone, for a
// console opened without signing in, as a launch link's).
const LocalSettingsCodec = t.partial({
  last: t.string,
  browseMode: t.string,
  keyboardLayouts: t.record(t.string, t.string),
  /** The gamespaces pinned on the instructor wall, first pinned first. */
  wallPins: t.array(t.string),
});

/** What the SPA keeps in the browser between visits, per host. */
export type LocalSettings = t.TypeOf<typeof LocalSettingsCodec>;

export interface LocalSettingsStore {
  read(): LocalSettings;
  update(patch: Partial<LocalSettings>): void;
  /** Remembers a URL to come back to (the workspace section in view, or where a session expired). */
  rememberLast(url: string): void;
  forgetLast(): void;
  /**
   * The remembered URL, once per page load: home restores it on the first visit only, so that
   * pressing Home later does not bounce back to the workspace that remembered itself. Reading it
   * clears it. Remembering a URL also ends the restoration window, as in the reference UI.
   */
  takeLastForRestore(): string | undefined;
}

export const localSettingsKey = (host: string): string => `topoplay__${host}`;

/** Home goes to the remembered page on load (src/app/router.tsx) unless it is home itself. */
const leadsAway = ({ last }: LocalSettings): boolean => !!last && last !== '/';

/** How long the browser keeps the restore cookie; it is written again on every page load. */
const RESTORE_COOKIE_DAYS = 365;

/**
 * Tells the server whether a page to go back to is remembered, in a cookie (`1` while one is):
 * on `/` it then sends the plain page rather than home's prerendered content, which would only
 * flash before home leaves for the remembered page (server/plugins/spa.ts).
 */
export const restorePendingCookie =
  (document: Pick<Document, 'cookie'>) =>
  (pending: boolean): void => {
    document.cookie = pending
      ? `${RESTORE_PENDING_COOKIE}=1; Path=/; Max-Age=${RESTORE_COOKIE_DAYS * 86_400}; SameSite=Lax`
      : `${RESTORE_PENDING_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`;
  };

/**
 * Local settings stored as one JSON document under `topoplay__{host}`. Storage errors (private
 * mode, quota, corrupt JSON) are absorbed: local settings are a convenience, never a failure.
 * `restorePending` hears whether a page to go back to is remembered, now and after every change.
 */
export function createLocalSettings(
  storage: Storage,
  host: string,
  restorePending: (pending: boolean) => void = () => undefined,
): LocalSettingsStore {
  const key = localSettingsKey(host);
  let restorationComplete = false;

  const read = (): LocalSettings => {
    try {
      const raw = storage.getItem(key);
      if (!raw) return {};
      const decoded = LocalSettingsCodec.decode(JSON.parse(raw));
      return E.isRight(decoded) ? decoded.right : {};
    } catch {
      return {};
    }
  };

  const write = (value: LocalSettings): void => {
    try {
      storage.setItem(key, JSON.stringify(value));
    } catch {
      // Nothing to do: the value simply is not remembered.
    }
    restorePending(leadsAway(read()));
  };

  const update = (patch: Partial<LocalSettings>): void => {
    const next: LocalSettings = { ...read(), ...patch };
    for (const k of Object.keys(next) as (keyof LocalSettings)[]) {
      if (next[k] === undefined) delete next[k];
    }
    write(next);
  };

  restorePending(leadsAway(read()));

  return {
    read,
    update,
    rememberLast(url) {
      restorationComplete = true;
      update({ last: url });
    },
    forgetLast() {
      update({ last: undefined });
    },
    takeLastForRestore() {
      if (restorationComplete) return undefined;
      restorationComplete = true;
      const { last } = read();
      if (last === undefined) return undefined;
      update({ last: undefined });
      return last || undefined;
    },
  };
}

/** Anyone's layout: a console opened through a launch link does not know who the user is. */
const ANYONE = '*';

/**
 * The keyboard layout of the machines a user opens (keyboardLayouts.ts). It lives in the browser
 * because the server's user record is the reference's, which has no place for it, and the SPA
 * also runs against a reference server; it is kept by user id so that people sharing a browser
 * each keep theirs.
 */
export function keyboardLayoutOf(local: LocalSettingsStore, userId: string | null): KeyboardLayout {
  const layouts = local.read().keyboardLayouts ?? {};
  const chosen = (userId !== null ? layouts[userId] : undefined) ?? layouts[ANYONE];
  return isKeyboardLayout(chosen) ? chosen : DEFAULT_KEYBOARD_LAYOUT;
}

export function rememberKeyboardLayout(
  local: LocalSettingsStore,
  userId: string | null,
  layout: KeyboardLayout,
): void {
  const layouts = local.read().keyboardLayouts ?? {};
  local.update({
    keyboardLayouts: {
      ...layouts,
      ...(userId !== null ? { [userId]: layout } : {}),
      [ANYONE]: layout,
    },
  });
}

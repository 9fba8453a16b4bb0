import { DEFAULT_GAMESPACE_MINUTES } from './gameLength';

/** A user's limits as the admin's user editor shows them (wire reference §2.1 User). */
export type UserLimitField =
  'workspaceLimit' | 'gamespaceLimit' | 'gamespaceMaxMinutes' | 'gamespaceCleanupGraceMinutes';

/**
 * What each limit means when it is 0, as the server applies it: workspaces are counted against
 * the limit unless the user is a creator, gamespaces only when the limit is above 0, the game
 * length falls back to the workspace's and then to the default, and the janitor ends a gamespace
 * once its expiry plus the grace has passed.
 */
export const LIMIT_AT_ZERO: Readonly<Record<UserLimitField, string>> = {
  workspaceLimit: '0: may not create workspaces (a creator is never limited).',
  gamespaceLimit: '0: no limit on the gamespaces running at once.',
  gamespaceMaxMinutes: `0: the workspace's own duration, or ${DEFAULT_GAMESPACE_MINUTES} minutes when it has none.`,
  gamespaceCleanupGraceMinutes: '0: a gamespace is ended as soon as its time is up.',
};

/**
 * An instant as a person reads it, in their own time zone: `29 Nov 2026, 08:30`. An unparsable
 * value is shown as it came.
 */
export function readableDateTime(iso: string, locale?: string, timeZone?: string): string {
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone,
  }).format(time);
}

/**
 * How long a launched gamespace may last (wire reference §4.2 Registration), shared by the
 * server's launch and the Play tab, which tells the author of the cap before they launch.
 */

/** Core.DefaultGamespaceMinutes of the reference: no cap of the account nor of the workspace. */
export const DEFAULT_GAMESPACE_MINUTES = 120;

/** Where the cap comes from: the launching account's own limit wins over the workspace's. */
export type MinutesCapSource = 'account' | 'workspace' | 'default';

export interface MinutesCap {
  minutes: number;
  source: MinutesCapSource;
}

/**
 * The longest a gamespace may last: the account's cap (gamespaceMaxMinutes), else the workspace's
 * duration, else the default. The account's cap replaces the workspace's even when it is longer.
 */
export function gamespaceMinutesCap(accountMinutes: number, workspaceMinutes: number): MinutesCap {
  if (accountMinutes > 0) return { minutes: accountMinutes, source: 'account' };
  if (workspaceMinutes > 0) return { minutes: workspaceMinutes, source: 'workspace' };
  return { minutes: DEFAULT_GAMESPACE_MINUTES, source: 'default' };
}

/** The minutes a launch gets: those asked for, lowered to the cap; 0 (not said) takes the cap. */
export const launchMinutes = (requested: number, cap: number): number =>
  requested > 0 ? Math.min(requested, cap) : cap;

/** What the play page's Extend adds to a game's time. */
export const EXTENSION_MINUTES = 15;

/**
 * The furthest an extension may move a game's expiry (PUT gamespace): one game length (the cap
 * above) and one Extend from now. A launch expires one game length from now at the latest, so
 * its manager may always add one Extend, and more only as time passes. The reference sets any
 * expiry asked for: one call could keep a game and its machines forever.
 */
export const latestExpiration = (now: number, capMinutes: number): number =>
  now + (capMinutes + EXTENSION_MINUTES) * 60_000;

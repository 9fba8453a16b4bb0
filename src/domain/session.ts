/**
 * The gamespace time window (spec §4 "Gamespace time window", "Over"), shared by the play page,
 * the sidebar and the server. Dates are the API's ISO strings, '0001-...' meaning never set.
 */
import { clockText, isUnsetDate } from './time';

export type SessionWindow = 'before' | 'during' | 'after';

/** The dates of a gamespace that decide its window; any may be missing or null. */
export interface SessionTimes {
  startTime?: string | null;
  expirationTime?: string | null;
  endTime?: string | null;
}

export interface Session {
  window: SessionWindow;
  /** Milliseconds to the start (before) or to the expiry (during); 0 otherwise or when unset. */
  countdown: number;
  isOver: boolean;
}

const MINUTE_MS = 60_000;

const timeOf = (date: string | null | undefined): number | null =>
  isUnsetDate(date) ? null : Date.parse(date as string);

/**
 * Before until the start is reached (a gamespace never started stays before), during until the
 * expiry passes (no expiry: during for good), after once it has passed.
 */
export function sessionWindow(times: SessionTimes, now: number): SessionWindow {
  const start = timeOf(times.startTime);
  if (start === null || now < start) return 'before';
  const expiry = timeOf(times.expirationTime);
  return expiry !== null && now >= expiry ? 'after' : 'during';
}

export function sessionCountdown(times: SessionTimes, now: number): number {
  const window = sessionWindow(times, now);
  const target =
    window === 'before'
      ? timeOf(times.startTime)
      : window === 'during'
        ? timeOf(times.expirationTime)
        : null;
  return target === null ? 0 : Math.max(0, target - now);
}

/** The endTime prefix '0001-' (or no endTime at all) means the gamespace was not ended. */
const isEnded = (endTime: string | null | undefined): boolean =>
  typeof endTime === 'string' && endTime !== '' && !endTime.startsWith('0001-');

/** Over: the window is after, or the gamespace was ended (completed) before its expiry. */
export function isOver(times: SessionTimes, now: number): boolean {
  return sessionWindow(times, now) === 'after' || isEnded(times.endTime);
}

export function session(times: SessionTimes, now: number): Session {
  return {
    window: sessionWindow(times, now),
    countdown: sessionCountdown(times, now),
    isOver: isOver(times, now),
  };
}

/**
 * When a game that is over ended: when it was ended, or its expiry when the time ran out first
 * (the janitor may end it a while after); null while it is not over or its dates are unset.
 */
export function endedAt(times: SessionTimes, now: number): number | null {
  if (!isOver(times, now)) return null;
  const end = timeOf(times.endTime);
  const expiry = timeOf(times.expirationTime);
  if (end !== null && expiry !== null) return Math.min(end, expiry);
  return end ?? expiry;
}

/**
 * How long a game that is over was played, from its start to its end; null while it is not over,
 * and for a game ended before it started.
 */
export function timeUsed(times: SessionTimes, now: number): number | null {
  const ended = endedAt(times, now);
  const start = timeOf(times.startTime);
  return ended === null || start === null || ended < start ? null : ended - start;
}

/**
 * The time a game was given, from its start to its expiry, to the nearest minute: games are given
 * whole minutes, and the start is stamped a moment after the expiry was set (once the machines
 * are deployed). Null when either date is unset.
 */
export function timeAllowed(times: SessionTimes): number | null {
  const start = timeOf(times.startTime);
  const expiry = timeOf(times.expirationTime);
  if (start === null || expiry === null) return null;
  return Math.max(0, Math.round((expiry - start) / MINUTE_MS) * MINUTE_MS);
}

/** A player is told when this little time is left, then again at the last minute. */
export const TIME_WARNING_MS = 5 * MINUTE_MS;
export const LAST_MINUTE_MS = MINUTE_MS;

export type TimeWarning = 'fiveMinutes' | 'lastMinute';

/** Whether the time of a game in play is running out: within 5 minutes, then the last one. */
export function timeWarning(s: Session): TimeWarning | null {
  if (s.window !== 'during' || s.isOver || s.countdown <= 0) return null;
  if (s.countdown <= LAST_MINUTE_MS) return 'lastMinute';
  return s.countdown <= TIME_WARNING_MS ? 'fiveMinutes' : null;
}

/** The challenge's tally as GameState shows it: points scored of the maximum, grades of the limit. */
export interface ChallengeTally {
  score?: number | null;
  maxPoints?: number | null;
  attempts?: number | null;
  /** 0 (or unset): unlimited. */
  maxAttempts?: number | null;
}

/** Why a game is over; the server ends it at full score or when the attempts are used up. */
export type EndReason = 'allAnswered' | 'attemptsUsedUp' | 'timeUp' | 'ended';

/**
 * Why the game is over, or null while it is not (wire reference §4.4 Completion: a grade ends the
 * game at full score, or once the submissions reach maxAttempts). Otherwise its time ran out:
 * the expiry passed, or the janitor ended it at or after the expiry; else a person ended it (the
 * player with End, or the manager).
 */
export function endReason(
  game: SessionTimes & { challenge?: ChallengeTally | null },
  now: number,
): EndReason | null {
  if (!isOver(game, now)) return null;
  const { score, maxPoints, attempts, maxAttempts } = game.challenge ?? {};
  if ((maxPoints ?? 0) > 0 && (score ?? 0) >= (maxPoints ?? 0)) return 'allAnswered';
  if ((maxAttempts ?? 0) > 0 && (attempts ?? 0) >= (maxAttempts ?? 0)) return 'attemptsUsedUp';
  if (!isEnded(game.endTime)) return 'timeUp';
  const expiry = timeOf(game.expirationTime);
  return expiry !== null && Date.parse(game.endTime as string) >= expiry ? 'timeUp' : 'ended';
}

/** The play page's clock: HH:MM:SS from milliseconds (spec §9). */
export const sessionClock = (countdownMs: number): string => clockText(countdownMs);

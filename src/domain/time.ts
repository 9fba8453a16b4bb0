/** Durations and dates as the SPA displays them (spec §5 "Countdown display", §9 "Clock format"). */

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Largest unit first, so that the first one that fits at least once wins. */
const COUNTDOWN_UNITS: readonly (readonly [suffix: string, ms: number])[] = [
  ['d', DAY_MS],
  ['h', HOUR_MS],
  ['m', MINUTE_MS],
];

/**
 * The countdown label: the remaining time in the largest unit of s, m, h, d that fits at least
 * once, rounded down ('59s', '1m', '3h', '2d'). Elapsed, invalid or infinite durations show '0s'.
 */
export function countdownText(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0s';
  for (const [suffix, unitMs] of COUNTDOWN_UNITS) {
    if (ms >= unitMs) return `${Math.floor(ms / unitMs)}${suffix}`;
  }
  return `${Math.floor(ms / SECOND_MS)}s`;
}

const twoDigits = (n: number): string => String(n).padStart(2, '0');

/** 'HH:MM:SS' from milliseconds; hours keep counting past 24 ('25:00:00'); below zero is '00:00:00'. */
export function clockText(ms: number): string {
  const totalSeconds = Number.isFinite(ms) && ms > 0 ? Math.floor(ms / SECOND_MS) : 0;
  const hours = Math.floor(totalSeconds / 3_600);
  const minutes = Math.floor((totalSeconds % 3_600) / 60);
  const seconds = totalSeconds % 60;
  return `${twoDigits(hours)}:${twoDigits(minutes)}:${twoDigits(seconds)}`;
}

/** How the API writes a date that was never set (DateTimeOffset.MinValue). */
export const UNSET_DATE = '0001-01-01T00:00:00+00:00';

/**
 * Whether a date from the API means "not set": missing, empty, the '0001-' minimum date in any
 * offset or precision, or a value that does not parse to a time after 1970 (an unparseable date
 * cannot be used as a time either).
 */
export function isUnsetDate(date: string | null | undefined): boolean {
  if (date === null || date === undefined || date.trim() === '') return true;
  if (date.startsWith('0001-')) return true;
  const time = Date.parse(date);
  return Number.isNaN(time) || time <= 0;
}

import { describe, expect, it } from 'vitest';
import { forAll } from './testing/property';
import {
  endedAt,
  endReason,
  isOver,
  session,
  sessionClock,
  sessionCountdown,
  sessionWindow,
  timeAllowed,
  timeUsed,
  timeWarning,
  TIME_WARNING_MS,
  LAST_MINUTE_MS,
} from './session';
import { UNSET_DATE } from './time';

const T0 = Date.parse('2030-01-01T10:00:00Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const game = { startTime: iso(T0), expirationTime: iso(T0 + 60 * MINUTE), endTime: UNSET_DATE };

describe('session window', () => {
  it('is before the start, with the countdown to the start', () => {
    expect(session(game, T0 - 5 * MINUTE)).toEqual({
      window: 'before',
      countdown: 5 * MINUTE,
      isOver: false,
    });
  });

  it('is during from the start to the expiry, with the countdown to the expiry', () => {
    expect(session(game, T0)).toEqual({ window: 'during', countdown: 60 * MINUTE, isOver: false });
    expect(session(game, T0 + 59 * MINUTE).countdown).toBe(MINUTE);
  });

  it('is after once the expiry passed, with no countdown, and over', () => {
    expect(session(game, T0 + 60 * MINUTE)).toEqual({
      window: 'after',
      countdown: 0,
      isOver: true,
    });
  });

  it('treats a gamespace never started as before with no countdown', () => {
    const unstarted = { startTime: UNSET_DATE, expirationTime: UNSET_DATE, endTime: UNSET_DATE };
    expect(session(unstarted, T0)).toEqual({ window: 'before', countdown: 0, isOver: false });
    expect(session({}, T0)).toEqual({ window: 'before', countdown: 0, isOver: false });
  });

  it('stays during with no countdown when started without an expiry', () => {
    expect(session({ ...game, expirationTime: UNSET_DATE }, T0 + 999 * MINUTE)).toEqual({
      window: 'during',
      countdown: 0,
      isOver: false,
    });
  });

  it('is over during the window once the gamespace was ended', () => {
    const ended = { ...game, endTime: iso(T0 + MINUTE) };
    expect(sessionWindow(ended, T0 + 2 * MINUTE)).toBe('during');
    expect(isOver(ended, T0 + 2 * MINUTE)).toBe(true);
  });

  it("reads any endTime beginning with '0001-' as unset", () => {
    expect(isOver({ ...game, endTime: '0001-01-01T00:00:00Z' }, T0)).toBe(false);
    expect(isOver({ ...game, endTime: null }, T0)).toBe(false);
  });

  it('formats the clock as HH:MM:SS', () => {
    expect(sessionClock(0)).toBe('00:00:00');
    expect(sessionClock(61 * MINUTE + 5_400)).toBe('01:01:05');
  });
});

describe('end reason', () => {
  const challenge = { score: 40, maxPoints: 100, attempts: 1, maxAttempts: 3 };
  const playing = { ...game, challenge };
  const endedAt = (ms: number) => ({ ...playing, endTime: iso(ms) });

  it('is none while the game is not over', () => {
    expect(endReason(playing, T0 + MINUTE)).toBeNull();
    expect(endReason(playing, T0 - MINUTE)).toBeNull();
  });

  it('is all answered when the game ended at full score', () => {
    const full = { ...endedAt(T0 + MINUTE), challenge: { ...challenge, score: 100 } };
    expect(endReason(full, T0 + 2 * MINUTE)).toBe('allAnswered');
    // The last attempt that reaches full score is a full score first.
    const lastAttempt = { ...full, challenge: { ...full.challenge, attempts: 3 } };
    expect(endReason(lastAttempt, T0 + 2 * MINUTE)).toBe('allAnswered');
  });

  it('is attempts used up when the submissions reached the limit', () => {
    const used = { ...endedAt(T0 + MINUTE), challenge: { ...challenge, attempts: 3 } };
    expect(endReason(used, T0 + 2 * MINUTE)).toBe('attemptsUsedUp');
  });

  it('never counts attempts used up when they are unlimited', () => {
    const unlimited = { ...endedAt(T0 + MINUTE), challenge: { ...challenge, maxAttempts: 0 } };
    expect(endReason(unlimited, T0 + 2 * MINUTE)).toBe('ended');
  });

  it('is time up once the expiry passed, or when the game was ended at or after its expiry', () => {
    expect(endReason(playing, T0 + 60 * MINUTE)).toBe('timeUp');
    expect(endReason(endedAt(T0 + 60 * MINUTE), T0 + 61 * MINUTE)).toBe('timeUp');
    expect(endReason(endedAt(T0 + 65 * MINUTE), T0 + 66 * MINUTE)).toBe('timeUp');
  });

  it('is ended when a person ended the game before its expiry', () => {
    expect(endReason(endedAt(T0 + 10 * MINUTE), T0 + 11 * MINUTE)).toBe('ended');
    // Still ended once the expiry passed too: the end came first.
    expect(endReason(endedAt(T0 + 10 * MINUTE), T0 + 90 * MINUTE)).toBe('ended');
    expect(endReason({ ...game, endTime: iso(T0 + MINUTE) }, T0 + 2 * MINUTE)).toBe('ended');
  });

  it('does not read a game without points as all answered', () => {
    const none = { ...endedAt(T0 + MINUTE), challenge: { score: 0, maxPoints: 0 } };
    expect(endReason(none, T0 + 2 * MINUTE)).toBe('ended');
  });
});

describe('a game over: when it ended and the time used', () => {
  it('is nothing while the game is not over', () => {
    expect(endedAt(game, T0 + MINUTE)).toBeNull();
    expect(timeUsed(game, T0 + MINUTE)).toBeNull();
    expect(timeAllowed(game)).toBe(60 * MINUTE);
  });

  it('ended when it was ended, having used the time from its start', () => {
    const ended = { ...game, endTime: iso(T0 + 12 * MINUTE + 34_000) };
    expect(endedAt(ended, T0 + 13 * MINUTE)).toBe(T0 + 12 * MINUTE + 34_000);
    expect(timeUsed(ended, T0 + 13 * MINUTE)).toBe(12 * MINUTE + 34_000);
  });

  it('ended at its expiry when the time ran out, even if the janitor ended it later', () => {
    expect(endedAt(game, T0 + 70 * MINUTE)).toBe(T0 + 60 * MINUTE);
    const late = { ...game, endTime: iso(T0 + 65 * MINUTE) };
    expect(endedAt(late, T0 + 70 * MINUTE)).toBe(T0 + 60 * MINUTE);
    expect(timeUsed(late, T0 + 70 * MINUTE)).toBe(60 * MINUTE);
  });

  it('was given whole minutes, though its start is stamped a moment after its expiry was set', () => {
    expect(timeAllowed({ ...game, startTime: iso(T0 + 1_400) })).toBe(60 * MINUTE);
  });

  it('used no time when it was ended before it started', () => {
    const never = { startTime: UNSET_DATE, expirationTime: UNSET_DATE, endTime: iso(T0) };
    expect(endedAt(never, T0 + MINUTE)).toBe(T0);
    expect(timeUsed(never, T0 + MINUTE)).toBeNull();
    expect(timeAllowed(never)).toBeNull();
  });
});

describe('time warnings', () => {
  const at = (now: number, times = game) => timeWarning(session(times, now));

  it('warns from 5 minutes before the expiry, then again in the last minute', () => {
    expect(at(T0 + 60 * MINUTE - TIME_WARNING_MS - 1)).toBeNull();
    expect(at(T0 + 60 * MINUTE - TIME_WARNING_MS)).toBe('fiveMinutes');
    expect(at(T0 + 60 * MINUTE - LAST_MINUTE_MS - 1)).toBe('fiveMinutes');
    expect(at(T0 + 60 * MINUTE - LAST_MINUTE_MS)).toBe('lastMinute');
    expect(at(T0 + 60 * MINUTE - 1)).toBe('lastMinute');
  });

  it('says nothing before the start, after the expiry, or once the game was ended', () => {
    expect(at(T0 - 2 * MINUTE, { ...game, expirationTime: iso(T0 + MINUTE) })).toBeNull();
    expect(at(T0 + 60 * MINUTE)).toBeNull();
    expect(at(T0 + 58 * MINUTE, { ...game, endTime: iso(T0 + 57 * MINUTE) })).toBeNull();
    expect(at(T0 + 58 * MINUTE, { ...game, expirationTime: UNSET_DATE })).toBeNull();
  });
});

describe('session properties', () => {
  it('has exactly one window, the countdown never negative and zero after', () => {
    forAll((random) => {
      const start = T0 + random.int(-1_000, 1_000) * MINUTE;
      const expiry = start + random.int(1, 500) * MINUTE;
      const now = T0 + random.int(-2_000, 2_000) * MINUTE;
      const times = { startTime: iso(start), expirationTime: iso(expiry), endTime: UNSET_DATE };
      const window = sessionWindow(times, now);
      const countdown = sessionCountdown(times, now);
      expect(countdown).toBeGreaterThanOrEqual(0);
      if (window === 'before') expect(countdown).toBe(start - now);
      if (window === 'during') expect(countdown).toBe(expiry - now);
      if (window === 'after') expect(countdown).toBe(0);
      expect(isOver(times, now)).toBe(window === 'after');
    });
  });

  it('only moves forward in time: before, then during, then after', () => {
    const order = { before: 0, during: 1, after: 2 };
    forAll((random) => {
      const times = {
        startTime: iso(T0 + random.int(0, 100) * MINUTE),
        expirationTime: iso(T0 + random.int(100, 200) * MINUTE),
      };
      const a = T0 + random.int(-50, 250) * MINUTE;
      const b = a + random.int(0, 300) * MINUTE;
      expect(order[sessionWindow(times, b)]).toBeGreaterThanOrEqual(order[sessionWindow(times, a)]);
    });
  });
});

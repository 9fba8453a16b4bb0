import { describe, expect, it } from 'vitest';
import { clockText, countdownText, isUnsetDate, UNSET_DATE } from './time';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('countdownText', () => {
  it.each([
    [59 * SECOND, '59s'],
    [61 * SECOND, '1m'],
    [60 * SECOND, '1m'],
    [59 * MINUTE + 59 * SECOND, '59m'],
    [3 * HOUR + 5, '3h'],
    [23 * HOUR + 59 * MINUTE, '23h'],
    [2 * DAY, '2d'],
    [2 * DAY + 23 * HOUR, '2d'],
    [1_500, '1s'],
    [999, '0s'],
  ])('shows %i ms in the largest whole unit as %s', (ms, text) => {
    expect(countdownText(ms)).toBe(text);
  });

  it.each([0, -1, -5 * MINUTE, Number.NaN, Number.POSITIVE_INFINITY])(
    'shows 0s for an elapsed or unusable duration (%s)',
    (ms) => {
      expect(countdownText(ms)).toBe('0s');
    },
  );
});

describe('clockText', () => {
  it.each([
    [0, '00:00:00'],
    [999, '00:00:00'],
    [SECOND, '00:00:01'],
    [HOUR + 2 * MINUTE + 3 * SECOND, '01:02:03'],
    [23 * HOUR + 59 * MINUTE + 59 * SECOND, '23:59:59'],
    [90_000_000, '25:00:00'],
    [100 * HOUR, '100:00:00'],
  ])('formats %i ms as %s', (ms, text) => {
    expect(clockText(ms)).toBe(text);
  });

  it('shows zero for a negative duration', () => {
    expect(clockText(-HOUR)).toBe('00:00:00');
  });
});

describe('isUnsetDate', () => {
  it('recognises the unset date the API writes', () => {
    expect(UNSET_DATE).toBe('0001-01-01T00:00:00+00:00');
    expect(isUnsetDate(UNSET_DATE)).toBe(true);
  });

  it.each(['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.0000000+00:00', '0001-01-01'])(
    'treats any 0001- date as unset (%s)',
    (date) => {
      expect(isUnsetDate(date)).toBe(true);
    },
  );

  it.each([null, undefined, '', '   '])('treats a missing date as unset (%j)', (date) => {
    expect(isUnsetDate(date)).toBe(true);
  });

  it('treats the epoch, dates before it and unparseable text as unset', () => {
    expect(isUnsetDate('1970-01-01T00:00:00Z')).toBe(true);
    expect(isUnsetDate('1969-12-31T00:00:00Z')).toBe(true);
    expect(isUnsetDate('not a date')).toBe(true);
  });

  it('treats a real date as set', () => {
    expect(isUnsetDate('2024-05-01T12:00:00+00:00')).toBe(false);
  });
});

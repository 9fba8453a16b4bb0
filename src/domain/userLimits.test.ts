import { describe, expect, it } from 'vitest';
import { DEFAULT_GAMESPACE_MINUTES } from './gameLength';
import { LIMIT_AT_ZERO, readableDateTime } from './userLimits';

describe('LIMIT_AT_ZERO', () => {
  it('says what 0 means for each limit, as the server applies it', () => {
    expect(LIMIT_AT_ZERO.workspaceLimit).toMatch(/may not create workspaces/);
    expect(LIMIT_AT_ZERO.gamespaceLimit).toMatch(/no limit/);
    expect(LIMIT_AT_ZERO.gamespaceMaxMinutes).toContain(`${DEFAULT_GAMESPACE_MINUTES} minutes`);
    expect(LIMIT_AT_ZERO.gamespaceCleanupGraceMinutes).toMatch(/as soon as its time is up/);
  });
});

describe('readableDateTime', () => {
  it('shows an ISO instant as a date and a time in the given zone, not as ISO', () => {
    const iso = '2026-11-29T08:30:12.345Z';
    expect(readableDateTime(iso, 'en-GB', 'UTC')).toBe('29 Nov 2026, 08:30');
    expect(readableDateTime(iso, 'en-GB', 'Europe/Paris')).toBe('29 Nov 2026, 09:30');
    expect(readableDateTime(iso, 'en-US', 'UTC')).toBe('Nov 29, 2026, 8:30 AM');
  });

  it('keeps a value that is not a time as it came', () => {
    expect(readableDateTime('soon')).toBe('soon');
  });
});

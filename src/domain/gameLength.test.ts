import { describe, expect, it } from 'vitest';
import { DEFAULT_GAMESPACE_MINUTES, gamespaceMinutesCap, launchMinutes } from './gameLength';

describe('game length', () => {
  it("caps a game by the account's limit, else the workspace's duration, else the default", () => {
    expect(gamespaceMinutesCap(30, 90)).toEqual({ minutes: 30, source: 'account' });
    // The account's cap wins even when it is longer than the workspace's duration.
    expect(gamespaceMinutesCap(240, 90)).toEqual({ minutes: 240, source: 'account' });
    expect(gamespaceMinutesCap(0, 90)).toEqual({ minutes: 90, source: 'workspace' });
    expect(gamespaceMinutesCap(0, 0)).toEqual({
      minutes: DEFAULT_GAMESPACE_MINUTES,
      source: 'default',
    });
  });

  it('lowers the minutes asked for to the cap, and gives the cap when none are asked for', () => {
    expect(launchMinutes(60, 30)).toBe(30);
    expect(launchMinutes(20, 30)).toBe(20);
    expect(launchMinutes(30, 30)).toBe(30);
    expect(launchMinutes(0, 30)).toBe(30);
  });
});

import { describe, expect, it } from 'vitest';
import { janitorSummary } from './janitorReport';

describe('janitorSummary', () => {
  it('says that a dry run with nothing to do would delete nothing', () => {
    expect(janitorSummary(0, true)).toBe('Nothing to clean up: a run now would delete nothing.');
    expect(janitorSummary(0, false)).toBe('Nothing to clean up: nothing was deleted.');
  });

  it('counts the findings, and says when it was only a dry run', () => {
    expect(janitorSummary(1, true)).toBe('1 finding (dry run: nothing was deleted)');
    expect(janitorSummary(3, false)).toBe('3 findings');
  });
});

import { describe, expect, it } from 'vitest';
import { roleLabel } from './roleLabel';

describe('roleLabel', () => {
  it('names the strongest role the flags grant', () => {
    const none = { isAdmin: false, isCreator: false, isObserver: false };
    expect(roleLabel(none)).toBe('User');
    expect(roleLabel({ ...none, isObserver: true })).toBe('Observer');
    expect(roleLabel({ ...none, isCreator: true, isObserver: true })).toBe('Creator');
    expect(roleLabel({ isAdmin: true, isCreator: true, isObserver: true })).toBe('Administrator');
  });
});

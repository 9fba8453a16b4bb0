import { describe, expect, it } from 'vitest';
import { hasChanges, mergeRemote } from './formSync';

describe('mergeRemote', () => {
  const saved = { name: 'Lab', tags: 'a' };

  it('takes the remote value of every field the user has not changed', () => {
    const values = { name: 'Lab', tags: 'a' };
    const merged = mergeRemote(values, saved, { name: 'Theirs', tags: 'b' });
    expect(merged).toEqual({
      values: { name: 'Theirs', tags: 'b' },
      saved: { name: 'Theirs', tags: 'b' },
    });
  });

  it("keeps a field being edited, which stays a change against the server's copy", () => {
    const values = { name: 'Mine', tags: 'a' };
    const merged = mergeRemote(values, saved, { name: 'Theirs', tags: 'b' });
    expect(merged.values).toEqual({ name: 'Mine', tags: 'b' });
    expect(hasChanges(merged.values, merged.saved)).toBe(true);
  });

  it('returns the same objects when nothing changed', () => {
    const values = { name: 'Lab', tags: 'a' };
    const merged = mergeRemote(values, saved, { name: 'Lab', tags: 'a' });
    expect(merged.values).toBe(values);
    expect(merged.saved).toBe(saved);
  });
});

import { describe, expect, it } from 'vitest';
import type { Dispatch } from '../api/dispatch';
import { answeredAt, mergeDispatch, parseCommand, removeDispatch } from './dispatcherRules';

const NEVER = '0001-01-01T00:00:00+00:00';
const dispatch = (id: string, fields: Partial<Dispatch> = {}): Dispatch => ({
  id,
  trigger: 'hostname',
  targetName: 'vm1',
  result: null,
  error: null,
  whenCreated: '2025-01-01T10:00:00Z',
  whenUpdated: NEVER,
  ...fields,
});

describe('parseCommand', () => {
  it('takes a first word in square brackets as the target, not part of the trigger', () => {
    expect(parseCommand('[vm1] hostname')).toEqual({ targetName: 'vm1', trigger: 'hostname' });
    expect(parseCommand('  [vm1]  ls   -la  ')).toEqual({
      targetName: 'vm1',
      trigger: 'ls   -la',
    });
  });

  it('sends to every agent without a target', () => {
    expect(parseCommand('uname -a')).toEqual({ targetName: null, trigger: 'uname -a' });
    expect(parseCommand('[] uptime')).toEqual({ targetName: null, trigger: 'uptime' });
    // Brackets later in the line are the command's own.
    expect(parseCommand('echo [vm1]')).toEqual({ targetName: null, trigger: 'echo [vm1]' });
    expect(parseCommand('[vm1 hostname')).toEqual({ targetName: null, trigger: '[vm1 hostname' });
  });

  it('ignores an empty command, or a target with nothing to run', () => {
    expect(parseCommand('')).toBeNull();
    expect(parseCommand('   ')).toBeNull();
    expect(parseCommand('[vm1]')).toBeNull();
    expect(parseCommand(' [vm1]   ')).toBeNull();
  });
});

describe('mergeDispatch', () => {
  it('appends an unknown id', () => {
    const one = dispatch('d-1');
    expect(mergeDispatch([one], dispatch('d-2'))).toEqual([one, dispatch('d-2')]);
  });

  it('updates result, error and whenUpdated of a known id when the event is newer', () => {
    const entries = [dispatch('d-1'), dispatch('d-2')];
    const answered = dispatch('d-1', {
      trigger: 'changed?',
      result: 'vm1\n',
      error: 'warn',
      whenUpdated: '2025-01-01T10:00:05Z',
    });
    const merged = mergeDispatch(entries, answered);
    expect(merged).toEqual([
      dispatch('d-1', { result: 'vm1\n', error: 'warn', whenUpdated: '2025-01-01T10:00:05Z' }),
      dispatch('d-2'),
    ]);
  });

  it('keeps a known entry when the event is not newer', () => {
    const entries = [dispatch('d-1', { result: 'new', whenUpdated: '2025-01-01T10:00:09Z' })];
    expect(
      mergeDispatch(
        entries,
        dispatch('d-1', { result: 'old', whenUpdated: '2025-01-01T10:00:05Z' }),
      ),
    ).toBe(entries);
    expect(
      mergeDispatch(
        entries,
        dispatch('d-1', { result: 'same', whenUpdated: '2025-01-01T10:00:09Z' }),
      ),
    ).toBe(entries);
    // A DISPATCH.CREATE heard after the POST's answer changes nothing.
    const sent = [dispatch('d-2')];
    expect(mergeDispatch(sent, dispatch('d-2'))).toBe(sent);
  });
});

describe('removeDispatch and answeredAt', () => {
  it('removes a deleted entry', () => {
    expect(removeDispatch([dispatch('d-1'), dispatch('d-2')], 'd-1')).toEqual([dispatch('d-2')]);
  });

  it('has no answer time before an agent answers', () => {
    expect(answeredAt(dispatch('d-1'))).toBeNull();
    expect(answeredAt(dispatch('d-1', { whenUpdated: '2025-01-01T10:00:05Z' }))).toBe(
      '2025-01-01T10:00:05Z',
    );
  });
});

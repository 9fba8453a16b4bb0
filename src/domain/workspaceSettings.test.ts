import { describe, expect, it } from 'vitest';
import {
  changedWorkspace,
  isGlobalAudience,
  validateWorkspaceSettings,
  workspaceSettingsOf,
} from './workspaceSettings';

const VALUES = workspaceSettingsOf({ name: 'Lab', durationMinutes: 60 });

describe('workspace settings', () => {
  it('reads a workspace into text fields', () => {
    expect(VALUES).toEqual({
      name: 'Lab',
      description: '',
      author: '',
      audience: '',
      tags: '',
      durationMinutes: '60',
      recordConsoles: 'default',
    });
  });

  it("reads and writes the recording choice: null is the server's default", () => {
    expect(workspaceSettingsOf({ recordConsoles: true }).recordConsoles).toBe('on');
    expect(workspaceSettingsOf({ recordConsoles: false }).recordConsoles).toBe('off');
    expect(workspaceSettingsOf({ recordConsoles: null }).recordConsoles).toBe('default');
    const body = (recordConsoles: string) =>
      changedWorkspace('ws-1', { ...VALUES, recordConsoles }).recordConsoles;
    expect([body('on'), body('off'), body('default')]).toEqual([true, false, null]);
    expect(validateWorkspaceSettings({ ...VALUES, recordConsoles: 'always' })).toEqual({
      recordConsoles: "Choose the server's default, on or off.",
    });
  });

  it('requires a name, limits the texts and wants whole minutes', () => {
    expect(validateWorkspaceSettings(VALUES)).toEqual({});
    expect(
      validateWorkspaceSettings({
        ...VALUES,
        name: '',
        description: 'd'.repeat(256),
        audience: 'a'.repeat(65),
        durationMinutes: '1.5',
      }),
    ).toEqual({
      name: 'Please enter a name for this workspace.',
      description: 'At most 255 characters.',
      audience: 'At most 64 characters.',
      durationMinutes: 'Enter a whole number of minutes (0 or more).',
    });
    expect(validateWorkspaceSettings({ ...VALUES, durationMinutes: '' })).toEqual({});
  });

  it('builds the PUT body: the name trimmed, minutes as a number (0 when empty)', () => {
    expect(changedWorkspace('ws-1', { ...VALUES, name: ' Lab ', durationMinutes: '' })).toEqual({
      id: 'ws-1',
      name: 'Lab',
      description: '',
      tags: '',
      author: '',
      audience: '',
      durationMinutes: 0,
      recordConsoles: null,
    });
  });

  it("treats 'everyone' among the space-delimited clients as global", () => {
    expect(isGlobalAudience('acme Everyone')).toBe(true);
    expect(isGlobalAudience('acme everyones')).toBe(false);
  });
});

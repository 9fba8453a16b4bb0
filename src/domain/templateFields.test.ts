import { describe, expect, it } from 'vitest';
import {
  changedTemplate,
  filterIsos,
  hyphenateName,
  invalidGuestinfoLines,
  isoDisplayName,
  NAME_REQUIRED,
  templateValuesOf,
  validateTemplate,
  variantHint,
  type TemplateValues,
} from './templateFields';

const VALID: TemplateValues = {
  name: 'web-01',
  description: '',
  networks: 'lan wan',
  guestinfo: '',
  replicas: '1',
  variant: '0',
  iso: '',
  isHidden: false,
};

describe('template fields', () => {
  it('replaces every space in a name with a hyphen', () => {
    expect(hyphenateName('web server  01')).toBe('web-server--01');
  });

  it('ignores comments and blank lines in guest settings and reports the other non key = value lines', () => {
    expect(invalidGuestinfoLines('# note\n\nuser = student\npass=x=y\n  # indented note')).toEqual(
      [],
    );
    expect(invalidGuestinfoLines('user student\n= nokey\nok=1\n =')).toEqual([1, 2, 4]);
  });

  it('requires a name and enforces the limits 64 / 255 / 64 / 1024', () => {
    expect(validateTemplate(VALID)).toEqual({});
    expect(validateTemplate({ ...VALID, name: '  ' }).name).toBe(NAME_REQUIRED);
    expect(
      validateTemplate({
        ...VALID,
        name: 'n'.repeat(65),
        description: 'd'.repeat(256),
        networks: 'n'.repeat(65),
        guestinfo: `a=${'b'.repeat(1023)}`,
      }),
    ).toEqual({
      name: 'At most 64 characters.',
      description: 'At most 255 characters.',
      networks: 'At most 64 characters.',
      guestinfo: 'At most 1024 characters.',
    });
  });

  it('accepts replicas from -1 (one per player) to 5 and a variant of 0 or more', () => {
    for (const replicas of ['-1', '0', '5']) {
      expect(validateTemplate({ ...VALID, replicas }).replicas).toBeUndefined();
    }
    for (const replicas of ['-2', '6', '1.5', '', 'two']) {
      expect(validateTemplate({ ...VALID, replicas }).replicas).toBeDefined();
    }
    expect(validateTemplate({ ...VALID, variant: '3' }).variant).toBeUndefined();
    expect(validateTemplate({ ...VALID, variant: '-1' }).variant).toBeDefined();
  });

  it('hints at a _v suffix only for a non-zero variant without one', () => {
    expect(variantHint({ name: 'kali', variant: '0' })).toBeNull();
    expect(variantHint({ name: 'kali', variant: '2' })).toMatch(/_v2/);
    expect(variantHint({ name: 'kali_v2', variant: '2' })).toBeNull();
  });

  it('reads a template into form values and back into the PUT body', () => {
    const values = templateValuesOf({ name: 'kali', replicas: -1, variant: null, isHidden: null });
    expect(values).toEqual({ ...VALID, name: 'kali', networks: '', replicas: '-1' });
    expect(changedTemplate('t-1', { ...values, name: ' kali ' })).toEqual({
      id: 't-1',
      name: 'kali',
      description: '',
      networks: '',
      iso: '',
      isHidden: false,
      guestinfo: '',
      replicas: -1,
      variant: 0,
    });
  });

  it('shows an ISO by its file name and filters paths by workspace and term', () => {
    expect(isoDisplayName('ws-1/tools.iso')).toBe('tools.iso');
    const paths = ['ws-1/tools.iso', 'public/Ubuntu.iso', 'ws-1/alpine.iso'];
    expect(filterIsos(paths, { workspaceId: 'ws-1', local: false, term: '' })).toEqual([
      'ws-1/alpine.iso',
      'ws-1/tools.iso',
      'public/Ubuntu.iso',
    ]);
    expect(filterIsos(paths, { workspaceId: 'ws-1', local: true, term: 'TOO' })).toEqual([
      'ws-1/tools.iso',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { clonedTemplateName, cloneName, uniqueName, NAME_MAX, revisionOf } from './naming';

describe('clone naming (wire reference §4.8)', () => {
  it.each([
    ['Lab', 'Lab-CLONE'],
    ['Lab v2', 'Lab v3'],
    ['Labv9', 'Labv10'],
    ['Lab v007', 'Lab v8'],
    ['Lab v', 'Lab v-CLONE'],
    ['Lab V2', 'Lab V2-CLONE'],
    ['Lab v1.2', 'Lab v1.2-CLONE'],
    ['v1', 'v2'],
    ['Lab-CLONE', 'Lab-CLONE-CLONE'],
    ['', '-CLONE'],
  ])('names a copy of %j %j', (name, expected) => {
    expect(cloneName(name)).toBe(expected);
  });

  it('treats a version beyond a 32-bit integer as no version, as the reference parses an int', () => {
    expect(revisionOf('Lab v2147483647').suffix).toBe('v2147483648');
    expect(revisionOf('Lab v2147483648').suffix).toBe('-CLONE');
  });

  it('cuts a long name so the copy still fits in 64 characters, keeping the suffix', () => {
    const long = 'a'.repeat(NAME_MAX);
    expect(cloneName(long)).toBe(`${'a'.repeat(NAME_MAX - 6)}-CLONE`);
    expect(cloneName(`${'b'.repeat(62)}v9`)).toBe(`${'b'.repeat(61)}v10`);
  });

  describe('template names in a workspace clone', () => {
    it('moves templates that carry the workspace version to the next version', () => {
      expect(clonedTemplateName('server-v2', 'Lab v2')).toBe('server-v3');
      expect(clonedTemplateName('serverv2', 'Lab v2')).toBe('serverv3');
    });

    it('leaves templates without the workspace version as they are', () => {
      expect(clonedTemplateName('router', 'Lab v2')).toBe('router');
      expect(clonedTemplateName('server-v1', 'Lab v2')).toBe('server-v1');
      expect(clonedTemplateName('server-v2', 'Lab v12')).toBe('server-v2');
    });

    it('keeps template names when the workspace has no version (the reference appends -CLONE to every one: quirk fixed)', () => {
      expect(clonedTemplateName('server', 'Lab')).toBe('server');
      expect(clonedTemplateName('server-v2', 'Lab')).toBe('server-v2');
    });
  });

  describe("unique names (linked templates, a gamespace's machines)", () => {
    it('keeps the name when no other has it', () => {
      expect(uniqueName('router', ['linux-server', 'router_v1'])).toBe('router');
    });

    it('numbers a name that clashes from 2, skipping taken numbers, case ignored', () => {
      expect(uniqueName('router', ['Router'])).toBe('router-2');
      expect(uniqueName('router', ['router', 'router-2'])).toBe('router-3');
    });

    it('cuts a long name so that the numbered one fits in 64 characters', () => {
      const long = 'x'.repeat(NAME_MAX);
      const name = uniqueName(long, [long]);
      expect(name).toHaveLength(NAME_MAX);
      expect(name.endsWith('-2')).toBe(true);
    });
  });
});

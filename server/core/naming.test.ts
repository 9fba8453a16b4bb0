import { describe, expect, it } from 'vitest';
import {
  clonedTemplateName,
  cloneName,
  linkedName,
  linkSuffix,
  NAME_MAX,
  revisionOf,
} from './naming';

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

  describe('linked template names', () => {
    it('appends the number to the source name', () => {
      expect(linkedName('linux-server', 123)).toBe('linux-server-123');
    });

    it('cuts a long source name so the linked name fits in 64 characters', () => {
      const name = linkedName('x'.repeat(NAME_MAX), 999);
      expect(name).toHaveLength(NAME_MAX);
      expect(name.endsWith('-999')).toBe(true);
    });

    it('draws the number from 100 to 998, as Random.Next(100, 999)', () => {
      expect(linkSuffix(() => 0)).toBe(100);
      expect(linkSuffix(() => 0.999999)).toBe(998);
    });
  });
});

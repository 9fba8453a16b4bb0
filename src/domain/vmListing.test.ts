import { describe, expect, it } from 'vitest';
import { vmDisplayName, vmOperationsFor, vmOwnerOf, vmOwnerPath } from './vmListing';

const TAG = '0123456789abcdef0123456789abcdef';

describe('vmDisplayName', () => {
  it('leaves the isolation tag out of a machine name', () => {
    expect(vmDisplayName(`router#${TAG}`)).toBe('router');
    expect(vmDisplayName('a#b#c')).toBe('a#b');
  });

  it('keeps a name that has no tag', () => {
    expect(vmDisplayName('router')).toBe('router');
    expect(vmDisplayName('#x')).toBe('#x');
  });
});

describe('vmOwnerOf', () => {
  it('names the workspace or gamespace a machine belongs to without the tag, its id the tag', () => {
    expect(vmOwnerOf(`workspace: Web lab#${TAG}`)).toEqual({
      kind: 'workspace',
      name: 'Web lab',
      id: TAG,
    });
    expect(vmOwnerOf(`gamespace: A#1 lab#${TAG}`)).toEqual({
      kind: 'gamespace',
      name: 'A#1 lab',
      id: TAG,
    });
  });

  it("links a workspace's machine to the workspace and a gamespace's to its play page", () => {
    expect(vmOwnerPath(vmOwnerOf(`workspace: Web lab#${TAG}`))).toBe(`/topo/${TAG}`);
    expect(vmOwnerPath(vmOwnerOf(`gamespace: Web lab#${TAG}`))).toBe(`/mojo/${TAG}`);
    expect(vmOwnerPath(vmOwnerOf(`__orphaned#${TAG}`))).toBeNull();
  });

  it('tells an orphaned machine, and shows a group it does not know as it is', () => {
    expect(vmOwnerOf(`__orphaned#${TAG}`)).toEqual({ kind: 'orphaned' });
    expect(vmOwnerOf('lab')).toEqual({ kind: 'unknown', text: 'lab' });
    expect(vmOwnerOf(null)).toEqual({ kind: 'unknown', text: '' });
  });
});

describe('vmOperationsFor', () => {
  it('offers Stop, not Start, for a running machine', () => {
    expect(vmOperationsFor('running')).toEqual(['stop', 'delete']);
  });

  it('offers Start, not Stop, for a machine that is off or suspended', () => {
    expect(vmOperationsFor('off')).toEqual(['start', 'delete']);
    expect(vmOperationsFor('suspended')).toEqual(['start', 'delete']);
  });

  it('offers both when the state is not reported', () => {
    expect(vmOperationsFor(null)).toEqual(['start', 'stop', 'delete']);
  });
});

import { describe, expect, it } from 'vitest';
import { archiveFileName, matchingCandidates } from './workspaceArchive';

describe('matchingCandidates', () => {
  const labs = [
    { id: 'b2c4', name: 'Web Forensics' },
    { id: 'a1f3', name: 'Network basics' },
    { id: 'c9d0', name: 'Forensics 101' },
  ];

  it('lists every workspace by name when nothing is typed', () => {
    expect(matchingCandidates(labs, '  ').map((c) => c.name)).toEqual([
      'Forensics 101',
      'Network basics',
      'Web Forensics',
    ]);
  });

  it('keeps the workspaces whose name or id holds every word typed, case ignored', () => {
    expect(matchingCandidates(labs, 'forensics').map((c) => c.id)).toEqual(['c9d0', 'b2c4']);
    expect(matchingCandidates(labs, 'WEB for').map((c) => c.id)).toEqual(['b2c4']);
    expect(matchingCandidates(labs, 'a1f').map((c) => c.id)).toEqual(['a1f3']);
    expect(matchingCandidates(labs, 'zebra')).toEqual([]);
  });
});

describe('archiveFileName', () => {
  it('names the archive after the one workspace it holds', () => {
    expect(archiveFileName({ all: false, names: ['Web Forensics: Part 2!'] })).toBe(
      'topomojo-web-forensics-part-2.zip',
    );
  });

  it('names the first of several and counts the others', () => {
    expect(archiveFileName({ all: false, names: ['Lab A', 'Lab B', 'Lab C'] })).toBe(
      'topomojo-lab-a-and-2-more.zip',
    );
  });

  it('says when it holds every workspace', () => {
    expect(archiveFileName({ all: true, names: [] })).toBe('topomojo-all-workspaces.zip');
  });

  it('keeps names that have no letters or digits usable, and long names short', () => {
    expect(archiveFileName({ all: false, names: ['???'] })).toBe('topomojo-workspace.zip');
    expect(archiveFileName({ all: false, names: ['x'.repeat(90)] })).toBe(
      `topomojo-${'x'.repeat(40)}.zip`,
    );
  });
});

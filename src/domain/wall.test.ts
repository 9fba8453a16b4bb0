import { describe, expect, it } from 'vitest';
import {
  lastActivityText,
  matchesWallFilter,
  NO_WALL_FILTER,
  reuseUnchanged,
  teamName,
  timeLeftText,
  wallOrder,
  wallWorkspaces,
  type WallTile,
} from './wall';
import { UNSET_DATE } from './time';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const at = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();

const tile = (id: string, over: Partial<WallTile> = {}): WallTile => ({
  gamespaceId: id,
  workspaceId: 'ws-a',
  workspaceName: 'Alpha Lab',
  managerName: 'Manager',
  players: [{ name: `Player ${id}` }],
  score: 0,
  startTime: at(-10),
  expirationTime: at(50),
  endTime: UNSET_DATE,
  lastActivity: null,
  machines: [{ name: 'kali' }],
  ...over,
});

describe('wall filter', () => {
  it('keeps a workspace’s gamespaces when one is chosen', () => {
    const tiles = [tile('g1'), tile('g2', { workspaceId: 'ws-b' })];
    const kept = tiles.filter((t) =>
      matchesWallFilter(t, { ...NO_WALL_FILTER, workspaceId: 'ws-b' }),
    );
    expect(kept.map((t) => t.gamespaceId)).toEqual(['g2']);
  });

  it('finds every word of the text, in any case, among players, workspace and machines', () => {
    const t = tile('g1', { players: [{ name: 'Ada Lovelace' }], machines: [{ name: 'web-01' }] });
    const text = (value: string) => matchesWallFilter(t, { workspaceId: null, text: value });
    expect(text('')).toBe(true);
    expect(text('  lovelace ')).toBe(true);
    expect(text('ALPHA web')).toBe(true);
    expect(text('ada bravo')).toBe(false);
  });
});

describe('wall order', () => {
  const opts = { filter: NO_WALL_FILTER, pinned: [] as string[] };

  it('puts the highest score first, ties by team name', () => {
    const tiles = [
      tile('a', { score: 10, players: [{ name: 'Zed' }] }),
      tile('b', { score: 90 }),
      tile('c', { score: 10, players: [{ name: 'Amy' }] }),
    ];
    expect(wallOrder(tiles, { ...opts, sort: 'score' })).toEqual(['b', 'c', 'a']);
  });

  it('puts the least time left first and a gamespace without expiry last', () => {
    const tiles = [
      tile('late', { expirationTime: at(90) }),
      tile('never', { expirationTime: UNSET_DATE }),
      tile('soon', { expirationTime: at(5) }),
    ];
    expect(wallOrder(tiles, { ...opts, sort: 'timeLeft' })).toEqual(['soon', 'late', 'never']);
  });

  it('puts the latest activity first and those without any last', () => {
    const tiles = [
      tile('quiet'),
      tile('old', { lastActivity: at(-30) }),
      tile('new', { lastActivity: at(-1) }),
    ];
    expect(wallOrder(tiles, { ...opts, sort: 'lastActivity' })).toEqual(['new', 'old', 'quiet']);
  });

  it('shows pinned gamespaces first, in the sort’s order among themselves', () => {
    const tiles = [tile('a', { score: 5 }), tile('b', { score: 50 }), tile('c', { score: 1 })];
    expect(wallOrder(tiles, { ...opts, sort: 'score', pinned: ['c', 'a'] })).toEqual([
      'a',
      'c',
      'b',
    ]);
  });

  it('puts raised hands first, the longest waiting first, pinned ones before them', () => {
    const hand = (minutes: number) => ({ help: { raisedAt: at(minutes) } });
    const tiles = [
      tile('top', { score: 90 }),
      tile('late', { score: 10, ...hand(-1) }),
      tile('early', { score: 20, ...hand(-9) }),
      tile('pin', { score: 0 }),
      tile('none', { score: 50, help: null }),
    ];
    expect(wallOrder(tiles, { ...opts, sort: 'score', pinned: ['pin'] })).toEqual([
      'pin',
      'early',
      'late',
      'top',
      'none',
    ]);
  });

  it('leaves out what the filter does not keep, pinned or not', () => {
    const tiles = [tile('a'), tile('b', { workspaceId: 'ws-b' })];
    expect(
      wallOrder(tiles, {
        filter: { workspaceId: 'ws-a', text: '' },
        sort: 'score',
        pinned: ['b'],
      }),
    ).toEqual(['a']);
  });
});

describe('wall texts', () => {
  it('names the player, the team, or the manager when there are no players', () => {
    expect(teamName({ players: [{ name: 'Ann' }], managerName: 'M' })).toBe('Ann');
    expect(teamName({ players: [{ name: 'Ann' }, { name: 'Bo' }], managerName: 'M' })).toBe(
      'Ann, Bo',
    );
    expect(teamName({ players: [], managerName: 'M' })).toBe('M');
  });

  it('counts the time left down as the play page does, and says when there is no limit', () => {
    expect(timeLeftText(tile('g'), NOW)).toBe('00:50:00');
    expect(timeLeftText(tile('g'), NOW + 1_000)).toBe('00:49:59');
    expect(timeLeftText(tile('g', { expirationTime: UNSET_DATE }), NOW)).toBe('No limit');
    expect(timeLeftText(tile('g'), NOW + 60 * 60_000)).toBe('00:00:00');
  });

  it('says how long ago the latest activity was', () => {
    expect(lastActivityText(null, NOW)).toBe('No activity yet');
    expect(lastActivityText(at(-3), NOW)).toBe('3m ago');
    expect(lastActivityText(at(0), NOW + 5_000)).toBe('5s ago');
  });

  it('lists the workspaces on the wall once each, by name', () => {
    expect(
      wallWorkspaces([
        { workspaceId: 'b', workspaceName: 'Bravo' },
        { workspaceId: 'a', workspaceName: 'Alpha' },
        { workspaceId: 'b', workspaceName: 'Bravo' },
      ]),
    ).toEqual([
      { id: 'a', name: 'Alpha' },
      { id: 'b', name: 'Bravo' },
    ]);
  });
});

describe('reuseUnchanged', () => {
  it('keeps the previous object of an unchanged entry and takes the new one of a changed one', () => {
    const before = [tile('a'), tile('b')];
    const next = [tile('a'), tile('b', { score: 5 }), tile('c')];
    const kept = reuseUnchanged(before, next);
    expect(kept[0]).toBe(before[0]);
    expect(kept[1]).toBe(next[1]);
    expect(kept[2]).toBe(next[2]);
  });
});

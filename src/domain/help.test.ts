import { describe, expect, it } from 'vitest';
import {
  helpStatusLine,
  isSendable,
  latestHelp,
  mergeHelp,
  queueStatusLine,
  replacesHelp,
  waitedText,
  type HelpFacts,
} from './help';

const at = (second: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, second)).toISOString();
const request = (id: string, second: number, fields: Partial<HelpFacts> = {}): HelpFacts => ({
  id,
  gamespaceId: 'gs-1',
  workspaceId: 'ws-1',
  status: 'open',
  raisedAt: at(second),
  ...fields,
});

describe('help requests as people read them', () => {
  it('sends 1 to max characters once trimmed', () => {
    expect(isSendable('  ', 5)).toBe(false);
    expect(isSendable(' hello ', 5)).toBe(true);
    expect(isSendable('hello!', 5)).toBe(false);
  });

  it('keeps the queue open first, oldest first, as requests change', () => {
    const a = request('a', 1);
    const b = request('b', 2);
    const c = request('c', 0, { status: 'answered' });
    expect(mergeHelp([b, c], a).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(mergeHelp([a, b], { ...a, status: 'cancelled' }).map((r) => r.id)).toEqual(['b', 'a']);
  });

  it('shows a player the open request, else the last raised, and hears only newer ones', () => {
    const old = request('a', 1, { status: 'answered' });
    const open = request('b', 2);
    expect(latestHelp([old, open])).toBe(open);
    expect(latestHelp([open, { ...old, raisedAt: at(3) }])).toBe(open);
    expect(latestHelp([old, request('c', 3, { status: 'cancelled' })])?.id).toBe('c');
    expect(latestHelp([])).toBeNull();
    expect(replacesHelp(open, old)).toBe(false);
    expect(replacesHelp(open, { ...open, claimedByName: 'Olga' })).toBe(true);
    expect(replacesHelp(null, old)).toBe(true);
  });

  it('says who is on it to the player and to the observers', () => {
    const open = request('a', 1);
    expect(helpStatusLine(open)).toBe('Waiting for someone');
    const claimed = { ...open, claimedById: 'o-1', claimedByName: 'Olga' };
    expect(helpStatusLine(claimed)).toBe('Olga is on it');
    expect(queueStatusLine(open, 'o-1')).toBe('Unclaimed');
    expect(queueStatusLine(claimed, 'o-1')).toBe('You are on it');
    expect(queueStatusLine(claimed, 'o-2')).toBe('Olga is on it');
    const answered = { ...claimed, status: 'answered' as const, answeredByName: 'Olga' };
    expect(helpStatusLine(answered)).toBe('Answered by Olga');
    expect(queueStatusLine(answered, 'o-1')).toBe('Answered by Olga');
    expect(helpStatusLine({ ...open, status: 'cancelled' })).toBe('Cancelled');
  });

  it('counts an open request waiting until now, a closed one until it closed', () => {
    const open = request('a', 0);
    expect(waitedText(open, Date.parse(at(59)))).toBe('59s');
    const closed = { ...open, status: 'answered' as const, closedAt: '2026-11-30T12:03:00.000Z' };
    expect(waitedText(closed, Date.parse('2026-11-30T13:00:00.000Z'))).toBe('3m');
  });
});

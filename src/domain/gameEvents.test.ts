import { describe, expect, it } from 'vitest';
import { gameEventLabel, gameEventLine, localTimeOf } from './gameEvents';

describe('gameEventLine', () => {
  it('names who did what to which machine, with the detail and the score', () => {
    const at = '2026-11-30T14:05:09.000Z';
    expect(
      gameEventLine({
        id: 'e1',
        kind: 'submission',
        at,
        actorName: 'Ann',
        detail: 'Only: 1 of 2 correct, 50 of 100 points',
        score: 50,
      }),
    ).toEqual({
      id: 'e1',
      time: localTimeOf(at),
      who: 'Ann',
      what: 'Answers submitted',
      detail: 'Only: 1 of 2 correct, 50 of 100 points',
    });
    expect(gameEventLine({ id: 'e4', kind: 'submission', at, score: 25 }).detail).toBe('Score 25');
    expect(
      gameEventLine({ id: 'e2', kind: 'console.open', at, actorName: 'Ann', machineName: 'kali' }),
    ).toMatchObject({ what: 'Console opened: kali', detail: '' });
  });

  it('reads a kind added after this SPA was built as its name, not as a failure', () => {
    const at = '2026-11-30T14:00:00.000Z';
    expect(gameEventLine({ id: 'a', kind: 'help.requested', at }).what).toBe('Help requested');
    expect(gameEventLine({ id: 'b', kind: 'hint', at, machineName: 'kali' }).what).toBe(
      'Hint: kali',
    );
    expect(gameEventLabel('help_closed')).toBe('Help closed');
    expect(gameEventLabel('...')).toBe('Event');
  });

  it('says System when no one did it', () => {
    expect(gameEventLine({ id: 'e3', kind: 'complete', at: '', detail: 'Time ran out' })).toEqual({
      id: 'e3',
      time: '',
      who: 'System',
      what: 'Game ended',
      detail: 'Time ran out',
    });
  });

  it('writes local time to the second', () => {
    const at = new Date(2026, 10, 30, 9, 4, 3, 120).toISOString();
    expect(localTimeOf(at)).toBe('2026-11-30 09:04:03');
  });
});

import { describe, expect, it } from 'vitest';
import { markLabel, timelineMarks, timelinePercent } from './replayTimeline';

const recording = { startedAt: '2026-11-30T10:00:00.000Z', durationMs: 60_000 };

describe('replay timeline', () => {
  it('places the events of the recording in time order, counted from its start', () => {
    const marks = timelineMarks(
      [
        { id: 's', kind: 'submission', at: '2026-11-30T10:00:30.000Z', score: 40 },
        { id: 'd', kind: 'deploy', at: '2026-11-30T10:00:00.000Z' },
        { id: 'o', kind: 'console.open', at: '2026-11-30T10:00:01.500Z', machineName: 'web01' },
      ],
      recording,
    );
    expect(marks.map((m) => [m.id, m.offsetMs])).toEqual([
      ['d', 0],
      ['o', 1_500],
      ['s', 30_000],
    ]);
  });

  it('leaves out events outside the recording and dates that do not parse', () => {
    const marks = timelineMarks(
      [
        { id: 'before', kind: 'deploy', at: '2026-11-30T09:59:59.999Z' },
        { id: 'end', kind: 'complete', at: '2026-11-30T10:01:00.000Z' },
        { id: 'after', kind: 'complete', at: '2026-11-30T10:01:00.001Z' },
        { id: 'bad', kind: 'deploy', at: 'yesterday' },
      ],
      recording,
    );
    expect(marks.map((m) => m.id)).toEqual(['end']);
    expect(
      timelineMarks([{ id: 'x', kind: 'deploy', at: recording.startedAt }], {
        startedAt: 'never',
        durationMs: 1,
      }),
    ).toEqual([]);
  });

  it('labels a mark with what happened, its score, where and by whom', () => {
    expect(
      markLabel({
        id: '1',
        kind: 'submission',
        at: '',
        score: 40,
        machineName: 'web01',
        actorName: 'Ann',
      }),
    ).toBe('Submission: score 40 (on web01, by Ann)');
    expect(markLabel({ id: '2', kind: 'deploy', at: '' })).toBe('Deployed');
    expect(markLabel({ id: '3', kind: 'file.put', at: '', detail: 'notes.txt' })).toBe(
      'File put in notes.txt',
    );
    expect(markLabel({ id: '4', kind: 'something.new', at: '' })).toBe('something.new');
  });

  it('places an offset on the timeline as a percentage, within 0 and 100', () => {
    expect(timelinePercent(15_000, 60_000)).toBe(25);
    expect(timelinePercent(-5, 60_000)).toBe(0);
    expect(timelinePercent(90_000, 60_000)).toBe(100);
    expect(timelinePercent(0, 0)).toBe(0);
  });
});

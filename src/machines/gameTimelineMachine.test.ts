import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import type { GameEvent } from '../api/gameEvents';
import { gameTimelineMachine, TIMELINE_REFRESH_MS } from './gameTimelineMachine';
import {
  selectIsTimelineLoading,
  selectTimelineError,
  selectTimelineEvents,
  timelineLines,
} from './gameTimelineMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { unreachedStateIds } from './testing/reachability';

const OPENED: GameEvent = {
  id: 'e1',
  gamespaceId: 'gs-1',
  kind: 'console.open',
  at: '2026-11-30T14:00:00.000Z',
  actorName: 'Ann',
  machineName: 'kali',
};
const SUBMITTED: GameEvent = {
  id: 'e2',
  gamespaceId: 'gs-1',
  kind: 'submission',
  at: '2026-11-30T14:01:00.000Z',
  actorName: 'Ann',
  detail: 'Only: 1 of 2 correct, 50 of 100 points',
  score: 50,
};

function startTimeline() {
  const loads: Deferred<GameEvent[]>[] = [];
  const clock = new SimulatedClock();
  const logic = gameTimelineMachine.provide({
    actors: {
      loadEvents: fromPromise(() => {
        const d = deferred<GameEvent[]>();
        loads.push(d);
        return d.promise;
      }),
    },
  });
  const actor = createActor(logic, { input: { gamespaceId: 'gs-1' }, clock }).start();
  return { actor, loads, clock, snapshot: () => actor.getSnapshot() };
}

describe('gameTimelineMachine', () => {
  it('loads nothing until its tab is shown, then the log', async () => {
    const t = startTimeline();
    expect(t.loads).toHaveLength(0);
    t.actor.send({ type: 'timeline.shown' });
    expect(t.loads).toHaveLength(1);
    expect(selectIsTimelineLoading(t.snapshot())).toBe(true);
    t.loads[0]!.resolve([OPENED, SUBMITTED]);
    await flush();
    expect(selectIsTimelineLoading(t.snapshot())).toBe(false);
    expect(timelineLines(selectTimelineEvents(t.snapshot()))?.map((l) => l.what)).toEqual([
      'Console opened: kali',
      'Answers submitted',
    ]);
  });

  it('loads again every TIMELINE_REFRESH_MS while shown, and stops once hidden', async () => {
    const t = startTimeline();
    t.actor.send({ type: 'timeline.shown' });
    t.loads[0]!.resolve([OPENED]);
    await flush();
    t.clock.increment(TIMELINE_REFRESH_MS - 1);
    expect(t.loads).toHaveLength(1);
    t.clock.increment(1);
    expect(t.loads).toHaveLength(2);
    t.loads[1]!.resolve([OPENED, SUBMITTED]);
    await flush();
    expect(selectTimelineEvents(t.snapshot())).toHaveLength(2);
    t.actor.send({ type: 'timeline.hidden' });
    t.clock.increment(10 * TIMELINE_REFRESH_MS);
    expect(t.loads).toHaveLength(2);
    expect(t.snapshot().value).toBe('hidden');
  });

  it('keeps the log it had when a load fails, says why, and loads on Refresh', async () => {
    const t = startTimeline();
    t.actor.send({ type: 'timeline.shown' });
    t.loads[0]!.resolve([OPENED]);
    await flush();
    t.actor.send({ type: 'timeline.refreshRequested' });
    t.loads[1]!.reject({ status: 403, message: 'Forbidden' });
    await flush();
    expect(selectTimelineError(t.snapshot())).not.toBeNull();
    expect(selectTimelineEvents(t.snapshot())).toEqual([OPENED]);
    t.actor.send({ type: 'timeline.refreshRequested' });
    t.loads[2]!.resolve([OPENED, SUBMITTED]);
    await flush();
    expect(selectTimelineError(t.snapshot())).toBeNull();
    expect(selectTimelineEvents(t.snapshot())).toHaveLength(2);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(gameTimelineMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ gamespaceId: 'gs-1' }],
      }),
    ).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import type { GameEvent } from '../api/gameEvents';
import { gameTimelineMachine, mergeEvents, TIMELINE_REFRESH_MS } from './gameTimelineMachine';
import {
  selectIsTimelineLive,
  selectIsTimelineLoading,
  selectTimelineError,
  selectTimelineEvents,
  timelineLines,
} from './gameTimelineMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
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
/** A kind this SPA does not know (added by the server later). */
const HELP: GameEvent = {
  id: 'e3',
  gamespaceId: 'gs-1',
  kind: 'help.requested',
  at: '2026-11-30T14:02:00.000Z',
  actorName: 'Ann',
};

function startTimeline(workspaceId: string | null = 'ws-1') {
  const loads: Deferred<GameEvent[]>[] = [];
  /** The live feeds started (their workspace), and how many were stopped. */
  const feeds = { started: [] as Array<string | null>, stopped: 0 };
  const clock = new SimulatedClock();
  const logic = gameTimelineMachine.provide({
    actors: {
      loadEvents: fromPromise(() => {
        const d = deferred<GameEvent[]>();
        loads.push(d);
        return d.promise;
      }),
      liveEvents: fromCallback(
        ({ input }: { input: { gamespaceId: string; workspaceId: string | null } }) => {
          feeds.started.push(input.workspaceId);
          return () => {
            feeds.stopped += 1;
          };
        },
      ),
    },
  });
  const actor = createActor(logic, { input: { gamespaceId: 'gs-1', workspaceId }, clock }).start();
  return { actor, loads, feeds, clock, snapshot: () => actor.getSnapshot() };
}

describe('gameTimelineMachine', () => {
  it('loads nothing and hears nothing until its tab is shown, then the log', async () => {
    const t = startTimeline();
    expect(t.loads).toHaveLength(0);
    expect(t.feeds.started).toEqual([]);
    t.actor.send({ type: 'timeline.shown' });
    expect(t.loads).toHaveLength(1);
    expect(t.feeds.started).toEqual(['ws-1']);
    expect(selectIsTimelineLoading(t.snapshot())).toBe(true);
    t.loads[0]!.resolve([OPENED, SUBMITTED]);
    await flush();
    expect(selectIsTimelineLoading(t.snapshot())).toBe(false);
    expect(timelineLines(selectTimelineEvents(t.snapshot()))?.map((l) => l.what)).toEqual([
      'Console opened: kali',
      'Answers submitted',
    ]);
  });

  it('adds events as they are recorded, once each and in order of time, without loading', async () => {
    const t = startTimeline();
    t.actor.send({ type: 'timeline.shown' });
    t.actor.send({ type: 'timeline.liveChanged', live: true });
    t.loads[0]!.resolve([OPENED]);
    await flush();
    expect(selectIsTimelineLive(t.snapshot())).toBe(true);
    t.actor.send({ type: 'timeline.eventRecorded', event: HELP });
    t.actor.send({ type: 'timeline.eventRecorded', event: SUBMITTED });
    t.actor.send({ type: 'timeline.eventRecorded', event: HELP });
    expect(selectTimelineEvents(t.snapshot())?.map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
    // A kind added later reads as its name.
    expect(timelineLines(selectTimelineEvents(t.snapshot()))?.at(-1)?.what).toBe('Help requested');
    t.clock.increment(10 * TIMELINE_REFRESH_MS);
    expect(t.loads).toHaveLength(1);
  });

  it('keeps what it heard while the log was loading', async () => {
    const t = startTimeline();
    t.actor.send({ type: 'timeline.shown' });
    t.actor.send({ type: 'timeline.eventRecorded', event: SUBMITTED });
    t.loads[0]!.resolve([OPENED]);
    await flush();
    expect(selectTimelineEvents(t.snapshot())?.map((e) => e.id)).toEqual(['e1', 'e2']);
  });

  it('loads every TIMELINE_REFRESH_MS only while the channel is not joined, and once on joining', async () => {
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
    // Joined: what was missed is loaded once, then nothing more on its own.
    t.actor.send({ type: 'timeline.liveChanged', live: true });
    expect(t.loads).toHaveLength(3);
    t.loads[2]!.resolve([OPENED, SUBMITTED]);
    await flush();
    t.clock.increment(10 * TIMELINE_REFRESH_MS);
    expect(t.loads).toHaveLength(3);
    // The hub went away: polling again.
    t.actor.send({ type: 'timeline.liveChanged', live: false });
    t.clock.increment(TIMELINE_REFRESH_MS);
    expect(t.loads).toHaveLength(4);
  });

  it('stops hearing and loading once hidden', async () => {
    const t = startTimeline();
    t.actor.send({ type: 'timeline.shown' });
    t.loads[0]!.resolve([OPENED]);
    await flush();
    t.actor.send({ type: 'timeline.hidden' });
    expect(t.feeds.stopped).toBe(1);
    t.clock.increment(10 * TIMELINE_REFRESH_MS);
    expect(t.loads).toHaveLength(1);
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

  it('merges by id and orders by time, then id', () => {
    const same = { ...OPENED, id: 'e0' };
    expect(mergeEvents([SUBMITTED, OPENED], [same, { ...SUBMITTED, score: 60 }])).toEqual([
      same,
      OPENED,
      { ...SUBMITTED, score: 60 },
    ]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(gameTimelineMachine, {
        serializeState: (s) =>
          JSON.stringify([s.value, (s as unknown as { context: { live: boolean } }).context.live]),
        inputs: [{ gamespaceId: 'gs-1', workspaceId: 'ws-1' }],
        payloads: [
          { type: 'timeline.liveChanged', live: true },
          { type: 'timeline.liveChanged', live: false },
          { type: 'timeline.eventRecorded', event: OPENED },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the Events tab as its reader sees it: a log loaded when shown, then heard
 * live while the workspace's observe channel is joined, and loaded again now and then only while
 * it is not. The model's paths drive the real actor, each load settled by the step that says so.
 */
describe('gameTimelineMachine against the tab model', () => {
  const model = createMachine({
    id: 'timelineModel',
    initial: 'hidden',
    states: {
      hidden: { on: { SHOW: 'loading' } },
      loading: {
        on: {
          LOADED: 'polling',
          LOAD_FAILED: 'polling',
          JOINED: 'loadingJoined',
          RECORDED: 'loading',
          HIDE: 'hidden',
        },
      },
      // Joined while loading: the load ends live.
      loadingJoined: {
        on: { LOADED: 'live', LOAD_FAILED: 'live', LEFT: 'loading', HIDE: 'hidden' },
      },
      polling: {
        on: {
          WAITED: 'loading',
          REFRESH: 'loading',
          JOINED: 'loadingJoined',
          RECORDED: 'polling',
          HIDE: 'hidden',
        },
      },
      live: {
        on: { LEFT: 'polling', REFRESH: 'loadingJoined', RECORDED: 'live', HIDE: 'hidden' },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, gameTimelineMachine, {
        states: {
          hidden: 'hidden',
          loading: 'shown.loading',
          loadingJoined: 'shown.loading',
          polling: 'shown.polling',
          live: 'shown.live',
        },
        events: {
          SHOW: 'timeline.shown',
          HIDE: 'timeline.hidden',
          LOADED: 'xstate.done.actor.loadEvents',
          LOAD_FAILED: 'xstate.error.actor.loadEvents',
          JOINED: 'timeline.liveChanged',
          LEFT: 'timeline.liveChanged',
          RECORDED: 'timeline.eventRecorded',
          REFRESH: 'timeline.refreshRequested',
          WAITED: 'xstate.after.refreshInterval.gameTimeline.shown.polling',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const t = startTimeline();
      let loadsAsked = 0;
      let recorded = 0;
      const expectShown = (loading: boolean, live: boolean) => {
        expect(t.snapshot().matches('shown')).toBe(true);
        expect(selectIsTimelineLoading(t.snapshot())).toBe(loading);
        expect(selectIsTimelineLive(t.snapshot())).toBe(live);
      };
      const settle = async (outcome: GameEvent[] | Error) => {
        const load = t.loads.at(-1)!;
        if (outcome instanceof Error) load.reject(outcome);
        else load.resolve(outcome);
        await flush();
      };
      await path.test({
        states: {
          hidden: () => {
            expect(t.snapshot().value).toBe('hidden');
            expect(t.feeds.started.length).toBe(t.feeds.stopped);
          },
          loading: () => {
            expectShown(true, false);
            expect(t.loads.length).toBeGreaterThanOrEqual(loadsAsked);
            loadsAsked = t.loads.length;
          },
          loadingJoined: () => expectShown(true, true),
          polling: () => expectShown(false, false),
          live: async () => {
            expectShown(false, true);
            const asked = t.loads.length;
            t.clock.increment(10 * TIMELINE_REFRESH_MS);
            await flush();
            expect(t.loads).toHaveLength(asked);
          },
        },
        events: {
          SHOW: () => void t.actor.send({ type: 'timeline.shown' }),
          HIDE: () => void t.actor.send({ type: 'timeline.hidden' }),
          LOADED: () => settle([OPENED]),
          LOAD_FAILED: () => settle(new Error('Forbidden')),
          JOINED: () => void t.actor.send({ type: 'timeline.liveChanged', live: true }),
          LEFT: () => void t.actor.send({ type: 'timeline.liveChanged', live: false }),
          RECORDED: () => {
            const event = { ...SUBMITTED, id: `r${++recorded}` };
            t.actor.send({ type: 'timeline.eventRecorded', event });
            expect(selectTimelineEvents(t.snapshot())?.map((e) => e.id)).toContain(event.id);
          },
          REFRESH: () => void t.actor.send({ type: 'timeline.refreshRequested' }),
          WAITED: async () => {
            const asked = t.loads.length;
            t.clock.increment(TIMELINE_REFRESH_MS);
            await flush();
            expect(t.loads).toHaveLength(asked + 1);
          },
        },
      });
    });
  }
});

import { describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { modelPaths, transitionCoverage } from '../../src/machines/testing/modelPaths';
import { unreachedStateIds } from '../../src/machines/testing/reachability';
import {
  startWarmImage,
  warmImageMachine,
  type WarmImageEvent,
  type WarmImageSnapshot,
} from './warmImage';

const REQUESTED = 1_700_000_000_000;
const start = () => startWarmImage({ key: 'k1', requested: REQUESTED });
type WarmState = WarmImageSnapshot['value'];

/** One event of each type, as the driver sends it. */
const EVENTS: Record<WarmImageEvent['type'], WarmImageEvent> = {
  'warm.booting': { type: 'warm.booting', at: REQUESTED + 1 },
  'warm.booted': { type: 'warm.booted', at: REQUESTED + 2 },
  'warm.saved': { type: 'warm.saved', at: REQUESTED + 3 },
  'warm.failed': { type: 'warm.failed', error: 'the agent did not answer' },
};

/** The shortest way a build reaches each state. */
const TO: Record<WarmState, WarmImageEvent['type'][]> = {
  queued: [],
  booting: ['warm.booting'],
  saving: ['warm.booting', 'warm.booted'],
  ready: ['warm.booting', 'warm.booted', 'warm.saved'],
  failed: ['warm.failed'],
};

/** Where each event takes a build from each state; an event a state ignores is absent. */
const MOVES: Record<WarmState, Partial<Record<WarmImageEvent['type'], WarmState>>> = {
  queued: { 'warm.booting': 'booting', 'warm.failed': 'failed' },
  booting: { 'warm.booted': 'saving', 'warm.failed': 'failed' },
  saving: { 'warm.saved': 'ready', 'warm.failed': 'failed' },
  ready: {},
  failed: {},
};

describe('warmImageMachine', () => {
  it('records when it booted and was saved, and why a build failed', () => {
    const build = start();
    for (const step of TO.ready) build.send(EVENTS[step]);
    expect(build.getSnapshot().context).toMatchObject({
      key: 'k1',
      bootStarted: REQUESTED + 1,
      booted: REQUESTED + 2,
      saved: REQUESTED + 3,
      error: null,
    });
    const failed = start();
    failed.send(EVENTS['warm.booting']);
    failed.send(EVENTS['warm.failed']);
    expect(failed.getSnapshot().value).toBe('failed');
    expect(failed.getSnapshot().context.error).toBe('the agent did not answer');
    expect(failed.getSnapshot().status).toBe('done');
  });

  // Every state against every event: a move the table lists, or nothing changes at all.
  for (const [state, path] of Object.entries(TO) as [WarmState, WarmImageEvent['type'][]][]) {
    for (const event of Object.values(EVENTS)) {
      const target = MOVES[state][event.type];
      it(`${state} ${target ? `moves to ${target}` : 'ignores'} on ${event.type}`, () => {
        const build = start();
        for (const step of path) build.send(EVENTS[step]);
        expect(build.getSnapshot().value).toBe(state);
        const before = build.getSnapshot();
        build.send(event);
        const after = build.getSnapshot();
        expect(after.value).toBe(target ?? state);
        if (!target) expect(after.context).toEqual(before.context);
      });
    }
  }
});

/** Model-based: every transition of the model walked on the real machine. */
describe('warmImageMachine against its model', () => {
  const model = createMachine({
    id: 'warmImageModel',
    initial: 'queued',
    states: {
      queued: { on: { BOOT: 'booting', FAIL: 'failed' } },
      booting: { on: { BOOTED: 'saving', FAIL: 'failed' } },
      saving: { on: { SAVED: 'ready', FAIL: 'failed' } },
      ready: { type: 'final' },
      failed: { type: 'final' },
    },
  });
  const SENDS: Record<string, WarmImageEvent> = {
    BOOT: EVENTS['warm.booting'],
    BOOTED: EVENTS['warm.booted'],
    SAVED: EVENTS['warm.saved'],
    FAIL: EVENTS['warm.failed'],
  };
  const paths = modelPaths(model);

  it('reaches every state of the real machine from a new build', () => {
    expect(
      unreachedStateIds(warmImageMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ key: 'k1', requested: REQUESTED }],
        payloads: Object.values(EVENTS),
      }),
    ).toEqual([]);
  });

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, () => {
      const build = createActor(warmImageMachine, {
        input: { key: 'k1', requested: REQUESTED },
      }).start();
      for (const step of path.steps.slice(1)) {
        build.send(SENDS[step.event.type]!);
        expect(build.getSnapshot().value).toBe(step.state.value);
      }
    });
  }
});

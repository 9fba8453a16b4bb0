import { describe, expect, it } from 'vitest';
import { createActor, createMachine, SimulatedClock } from 'xstate';
import {
  CURSOR_THROTTLE_MS,
  documentCursorsMachine,
  type CursorPositions,
  type DocumentCursorsSnapshot,
} from './documentCursorsMachine';
import { selectRemoteCursors } from './documentEditorMachine.selectors';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const at = (column: number): CursorPositions => ({ positions: [{ lineNumber: 1, column }] });

/** The cursors with a recorded broadcast. */
function startCursors() {
  const clock = new SimulatedClock();
  const sent: Array<{ workspaceId: string; cursor: CursorPositions }> = [];
  const actor = createActor(
    documentCursorsMachine.provide({
      actions: { broadcastCursor: (_, params) => void sent.push(params) },
    }),
    { clock, input: { workspaceId: 'ws-1' } },
  ).start();
  const move = (column: number) => actor.send({ type: 'editor.cursorMoved', ...at(column) });
  return { actor, clock, sent, move, snapshot: () => actor.getSnapshot() };
}

describe('documentCursorsMachine', () => {
  it('sends a move at once, then at most one a second, the latest last', () => {
    const c = startCursors();
    c.move(1);
    c.move(2);
    c.move(3);
    expect(c.sent).toEqual([{ workspaceId: 'ws-1', cursor: at(1) }]);
    c.clock.increment(CURSOR_THROTTLE_MS);
    expect(c.sent.map((s) => s.cursor)).toEqual([at(1), at(3)]);
    c.clock.increment(CURSOR_THROTTLE_MS * 3);
    expect(c.sent).toHaveLength(2);
    c.move(4);
    expect(c.sent.map((s) => s.cursor)).toEqual([at(1), at(3), at(4)]);
  });

  it('shows other authors’ cursors by actor with their names, the latest move of each', () => {
    const c = startCursors();
    const remote = (actorId: string, name: string, positions: unknown) =>
      c.actor.send({ type: 'document.cursorMovedRemotely', actorId, name, positions });
    remote('u-ada', 'Ada', at(1));
    remote('u-bob', 'Bob', at(2));
    remote('u-ada', 'Ada', at(5));
    remote('u-x', 'X', 7);
    remote('u-y', 'Y', { positions: [{ lineNumber: 'one' }] });
    expect(selectRemoteCursors(c.snapshot())).toEqual([
      { actorId: 'u-ada', name: 'Ada', ...at(5) },
      { actorId: 'u-bob', name: 'Bob', ...at(2) },
    ]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(documentCursorsMachine, {
        serializeState: (snapshot) => {
          const { context } = snapshot as DocumentCursorsSnapshot;
          return JSON.stringify([snapshot.value, context.cursor !== null]);
        },
        inputs: [{ workspaceId: 'ws-1' }],
        payloads: [{ type: 'editor.cursorMoved', ...at(1) }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test of the cursor throttle (spec §9: moves are sent at most once a second, the
 * latest one last), driving the real actor with a simulated clock.
 */
describe('documentCursorsMachine against the throttle model', () => {
  type ModelEvent = { type: 'MOVE' } | { type: 'WAIT' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'cursorThrottleModel',
    initial: 'idle',
    states: {
      idle: { on: { MOVE: 'throttled', WAIT: 'idle' } },
      throttled: { on: { MOVE: 'pending', WAIT: 'idle' } },
      pending: { on: { MOVE: 'pending', WAIT: 'throttled' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, documentCursorsMachine, {
        states: { idle: 'idle', throttled: 'throttled', pending: 'throttled' },
        events: {
          MOVE: 'editor.cursorMoved',
          WAIT: 'xstate.after.cursorThrottle.documentCursors.throttled',
        },
        // Other authors' cursors change what is shown, not the throttle: the unit test above.
        unmodelledEvents: ['document.cursorMovedRemotely'],
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
      const c = startCursors();
      let moves = 0;
      let latest = 0;
      let expectedSent: number[] = [];
      const expectCursors = (state: 'idle' | 'throttled', waiting: boolean) => () => {
        expect(c.snapshot().matches(state)).toBe(true);
        expect(c.snapshot().context.cursor !== null).toBe(waiting);
        expect(c.sent.map((s) => s.cursor.positions[0]?.column)).toEqual(expectedSent);
      };
      await path.test({
        states: {
          idle: expectCursors('idle', false),
          throttled: expectCursors('throttled', false),
          pending: expectCursors('throttled', true),
        },
        events: {
          MOVE: () => {
            latest = ++moves;
            // A move in idle goes at once; later ones wait for the throttle.
            if (c.snapshot().matches('idle')) expectedSent = [...expectedSent, latest];
            c.move(latest);
          },
          WAIT: () => {
            if (c.snapshot().context.cursor !== null) expectedSent = [...expectedSent, latest];
            c.clock.increment(CURSOR_THROTTLE_MS);
          },
        },
      });
    });
  }
});

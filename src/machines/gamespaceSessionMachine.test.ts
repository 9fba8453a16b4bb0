import { EMPTY, Subject, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromCallback,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
  type EventObject,
} from 'xstate';
import type { GameState, LaunchSettings } from '../api/play';
import { UNSET_DATE } from '../domain/time';
import {
  gamespaceSessionMachine,
  INVITE_COPIED_MS,
  PLAY_PAGE_LAUNCH,
  STATE_REFRESH_MS,
  type GamespaceSessionEvent,
} from './gamespaceSessionMachine';
import {
  selectCanDeploy,
  selectCanDestroy,
  selectCanEnd,
  selectCanInvite,
  selectCanReset,
  selectCanStart,
  selectClock,
  selectConfirmation,
  selectErrors,
  selectInviteLink,
  selectIsLaunching,
  selectIsOver,
  selectQuiz,
  selectShowCopied,
  selectWindow,
} from './gamespaceSessionMachine.selectors';
import { flush } from './testing/deferred';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const T0 = Date.parse('2030-01-01T10:00:00Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const preview: GameState = { id: null, workspaceId: null, name: 'Lab', markdown: '# Lab' };
/** A gamespace launched at T0 for an hour. */
const active = (extra: Partial<GameState> = {}): GameState => ({
  id: 'gs1',
  workspaceId: 'ws1',
  name: 'Lab',
  slug: 'lab',
  isActive: true,
  startTime: iso(T0),
  endTime: UNSET_DATE,
  expirationTime: iso(T0 + 60 * MINUTE),
  vms: [],
  ...extra,
});

interface Calls {
  loaded: string[];
  registered: LaunchSettings[];
  changed: string[];
  deleted: string[];
  listening: string[];
  copied: string[];
}

function startSession(options: {
  load: (id: string) => GameState | Error;
  register?: () => GameState | Error;
  change?: (action: string) => GameState | Error;
  copy?: 'fails';
}) {
  const calls: Calls = {
    loaded: [],
    registered: [],
    changed: [],
    deleted: [],
    listening: [],
    copied: [],
  };
  const hub = new Subject<GamespaceSessionEvent>();
  const clock = new SimulatedClock();
  const answer = <T>(value: T | Error): T => {
    if (value instanceof Error) throw { status: 400, message: value.message };
    return value;
  };
  const actor = createActor(
    gamespaceSessionMachine.provide({
      actors: {
        loadGamespace: fromPromise(async ({ input }) => {
          calls.loaded.push(input.id);
          return answer(options.load(input.id));
        }),
        registerGamespace: fromPromise(async ({ input }) => {
          calls.registered.push(input);
          return answer(options.register ? options.register() : active());
        }),
        changeGamespace: fromPromise(async ({ input }) => {
          calls.changed.push(`${input.action} ${input.id}`);
          return answer(options.change ? options.change(input.action) : active());
        }),
        deleteGamespace: fromPromise(async ({ input }) => {
          calls.deleted.push(input.id);
        }),
        inviteToGamespace: fromPromise(async () => ({ code: 'c0de' })),
        copyToClipboard: fromPromise(async ({ input }) => {
          if (options.copy === 'fails') throw new Error('denied');
          calls.copied.push(input.text);
        }),
        listenToChannel: fromCallback<EventObject, { channelId: string }>(({ input }) => {
          calls.listening.push(input.channelId);
          return () => {
            calls.listening = calls.listening.filter((id) => id !== input.channelId);
          };
        }),
        gameEvents: fromEventObservable(() => hub),
        clock: fromEventObservable(
          () => EMPTY as Observable<{ type: 'clock.ticked'; now: number }>,
        ),
        questionSet: createMachine({}) as never,
      },
    }),
    { input: { id: 'ws1', now: T0 - MINUTE, origin: 'https://topo.test' }, clock },
  ).start();
  const tick = (now: number) => actor.send({ type: 'clock.ticked', now });
  const snapshot = () => actor.getSnapshot();
  return { actor, calls, hub, clock, tick, snapshot };
}

describe('gamespaceSessionMachine', () => {
  it('launches from the preview after confirmation, with a spinner, and joins the active channel', async () => {
    const sut = startSession({ load: () => preview });
    await flush();
    expect(selectWindow(sut.snapshot())).toBe('before');
    expect(selectCanStart(sut.snapshot())).toBe(true);
    sut.actor.send({ type: 'session.startRequested' });
    expect(selectConfirmation(sut.snapshot())).toBe('start');
    expect(sut.calls.registered).toEqual([]);
    sut.actor.send({ type: 'session.actionConfirmed' });
    expect(selectIsLaunching(sut.snapshot())).toBe(true);
    expect(selectCanStart(sut.snapshot())).toBe(false);
    await flush();
    expect(sut.calls.registered).toEqual([{ ...PLAY_PAGE_LAUNCH, resourceId: 'ws1' }]);
    expect(selectIsLaunching(sut.snapshot())).toBe(false);
    expect(sut.calls.listening).toEqual(['gs1']);
    // Still before the start at the page's time; the clock counts down to it.
    expect(selectClock(sut.snapshot())).toBe('00:01:00');
    sut.tick(T0 + MINUTE);
    expect(selectWindow(sut.snapshot())).toBe('during');
    expect(selectClock(sut.snapshot())).toBe('00:59:00');
    expect(selectCanStart(sut.snapshot())).toBe(false);
    expect(selectCanEnd(sut.snapshot())).toBe(true);
    expect(selectCanReset(sut.snapshot())).toBe(true);
  });

  it('does not launch when the start is cancelled', async () => {
    const sut = startSession({ load: () => preview });
    await flush();
    sut.actor.send({ type: 'session.startRequested' });
    sut.actor.send({ type: 'session.actionCancelled' });
    await flush();
    expect(sut.calls.registered).toEqual([]);
    expect(selectConfirmation(sut.snapshot())).toBeNull();
  });

  it('lists a launch error and offers Start again', async () => {
    const sut = startSession({
      load: () => preview,
      register: () => new Error('GamespaceLimitReached'),
    });
    await flush();
    sut.actor.send({ type: 'session.startRequested' });
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    expect(selectErrors(sut.snapshot())).toEqual(['Gamespace Limit Reached']);
    expect(selectCanStart(sut.snapshot())).toBe(true);
    sut.actor.send({ type: 'session.errorDismissed', index: 0 });
    expect(selectErrors(sut.snapshot())).toEqual([]);
  });

  it('is over once the expiry passes: Game Over, Start again, no End, the channel left', async () => {
    const sut = startSession({ load: () => active() });
    await flush();
    sut.tick(T0 + 10 * MINUTE);
    expect(selectIsOver(sut.snapshot())).toBe(false);
    sut.tick(T0 + 60 * MINUTE);
    expect(selectWindow(sut.snapshot())).toBe('after');
    expect(selectIsOver(sut.snapshot())).toBe(true);
    expect(selectClock(sut.snapshot())).toBe('00:00:00');
    expect(selectCanStart(sut.snapshot())).toBe(true);
    expect(selectCanEnd(sut.snapshot())).toBe(false);
    // The server says so too: the expired gamespace is inactive.
    sut.hub.next({ type: 'game.updated', state: active({ isActive: false }) });
    expect(sut.calls.listening).toEqual([]);
  });

  it('replaces the state with each GameEvent', async () => {
    const sut = startSession({ load: () => active() });
    await flush();
    sut.tick(T0 + MINUTE);
    sut.hub.next({ type: 'game.updated', state: active({ endTime: iso(T0 + MINUTE) }) });
    expect(sut.snapshot().context.game?.endTime).toBe(iso(T0 + MINUTE));
    expect(selectIsOver(sut.snapshot())).toBe(true);
    expect(selectCanStart(sut.snapshot())).toBe(true);
    // Ended before its expiry: the clock stops at zero instead of counting down to it.
    expect(selectClock(sut.snapshot())).toBe('00:00:00');
  });

  it('ends the game with complete after confirmation, and lists a complete error', async () => {
    let fail = true;
    const sut = startSession({
      load: () => active(),
      change: () =>
        fail ? new Error('ActionForbidden') : active({ endTime: iso(T0 + 2 * MINUTE) }),
    });
    await flush();
    sut.tick(T0 + 2 * MINUTE);
    sut.actor.send({ type: 'session.endRequested' });
    expect(selectConfirmation(sut.snapshot())).toBe('end');
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    expect(sut.calls.changed).toEqual(['complete gs1']);
    expect(selectErrors(sut.snapshot())).toEqual(['Action Forbidden']);
    fail = false;
    sut.actor.send({ type: 'session.endRequested' });
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    expect(selectIsOver(sut.snapshot())).toBe(true);
  });

  it('deploys when there are no machines and destroys when there are', async () => {
    const sut = startSession({
      load: () => active(),
      change: (action) =>
        active({ vms: action === 'start' ? [{ id: 'vm1', name: 'web', isRunning: true }] : [] }),
    });
    await flush();
    sut.tick(T0 + MINUTE);
    expect(selectCanDeploy(sut.snapshot())).toBe(true);
    expect(selectCanDestroy(sut.snapshot())).toBe(false);
    sut.actor.send({ type: 'session.deployRequested' });
    expect(selectConfirmation(sut.snapshot())).toBe('deploy');
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    expect(selectCanDeploy(sut.snapshot())).toBe(false);
    expect(selectCanDestroy(sut.snapshot())).toBe(true);
    sut.actor.send({ type: 'session.destroyRequested' });
    expect(selectConfirmation(sut.snapshot())).toBe('destroy');
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    expect(sut.calls.changed).toEqual(['start gs1', 'stop gs1']);
    expect(selectCanDeploy(sut.snapshot())).toBe(true);
  });

  it('resets by deleting the gamespace, then shows the workspace again', async () => {
    let deleted = false;
    const sut = startSession({ load: () => (deleted ? preview : active()) });
    await flush();
    sut.tick(T0 + MINUTE);
    sut.actor.send({ type: 'session.resetRequested' });
    expect(selectConfirmation(sut.snapshot())).toBe('reset');
    deleted = true;
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    await flush();
    expect(sut.calls.deleted).toEqual(['gs1']);
    expect(sut.calls.loaded).toEqual(['ws1', 'ws1']);
    expect(sut.snapshot().context.game).toEqual(preview);
    expect(sut.calls.listening).toEqual([]);
    expect(selectCanStart(sut.snapshot())).toBe(true);
  });

  it("copies the invitation link and shows 'copied' for 3 s", async () => {
    const sut = startSession({ load: () => active() });
    await flush();
    sut.tick(T0 + MINUTE);
    sut.actor.send({ type: 'session.inviteRequested' });
    await flush();
    await flush();
    expect(sut.calls.copied).toEqual(['https://topo.test/mojo/gs1/lab/c0de']);
    expect(selectInviteLink(sut.snapshot())).toBe('https://topo.test/mojo/gs1/lab/c0de');
    expect(selectShowCopied(sut.snapshot())).toBe(true);
    sut.clock.increment(INVITE_COPIED_MS - 1);
    expect(selectShowCopied(sut.snapshot())).toBe(true);
    sut.clock.increment(1);
    expect(selectShowCopied(sut.snapshot())).toBe(false);
  });

  it('offers no invitation without a gamespace', async () => {
    const sut = startSession({ load: () => preview });
    await flush();
    expect(selectCanInvite(sut.snapshot())).toBe(false);
  });

  it('runs the quiz once the gamespace is started, and not before', async () => {
    const sut = startSession({ load: () => preview });
    await flush();
    expect(selectQuiz(sut.snapshot())).toBeUndefined();
    sut.actor.send({ type: 'session.startRequested' });
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    expect(selectQuiz(sut.snapshot())).toBeDefined();
  });
});

describe('gamespaceSessionMachine time window (model-based)', () => {
  // The window moves forward only, through ticks of the stored state's clock; completing ends
  // the game during the window.
  const model = createMachine({
    id: 'sessionWindowModel',
    initial: 'before',
    states: {
      before: { on: { START_REACHED: 'during', EXPIRY_PASSED: 'over' } },
      during: { on: { TICK: 'during', EXPIRY_PASSED: 'over', COMPLETED: 'ended' } },
      ended: { on: { EXPIRY_PASSED: 'over' } },
      over: { on: { TICK: 'over' } },
    },
  });
  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const sut = startSession({ load: () => active() });
      await flush();
      let now = T0 - MINUTE;
      const expect$ = (window: string, over: boolean, start: boolean) => () => {
        expect(selectWindow(sut.snapshot())).toBe(window);
        expect(selectIsOver(sut.snapshot())).toBe(over);
        expect(selectCanStart(sut.snapshot())).toBe(start);
        expect(selectCanEnd(sut.snapshot())).toBe(window === 'during' && !over);
      };
      await path.test({
        states: {
          before: expect$('before', false, true),
          during: expect$('during', false, false),
          ended: expect$('during', true, true),
          over: expect$('after', true, true),
        },
        events: {
          START_REACHED: () => sut.tick((now = T0)),
          TICK: () => sut.tick((now += STATE_REFRESH_MS)),
          EXPIRY_PASSED: () => sut.tick((now = T0 + 60 * MINUTE)),
          COMPLETED: () =>
            sut.hub.next({ type: 'game.updated', state: active({ endTime: iso(now) }) }),
        },
      });
    });
  }
});

describe('gamespaceSessionMachine reachability', () => {
  it('reaches every state', () => {
    expect(
      unreachedStateIds(gamespaceSessionMachine, {
        serializeState: (s) =>
          JSON.stringify([
            s.value,
            (s as unknown as { context: { game: GameState | null } }).context.game?.id ?? null,
            // The confirmed action decides what runs.
            (s as unknown as { context: { action: string | null } }).context.action,
          ]),
        inputs: [{ id: 'ws1', now: T0 + MINUTE, origin: '' }],
        payloads: [
          { type: 'xstate.done.actor.loadGamespace', output: active() },
          { type: 'xstate.done.actor.registerGamespace', output: active() },
          { type: 'xstate.done.actor.inviteToGamespace', output: { code: 'c0de' } },
          { type: 'clock.ticked', now: T0 + MINUTE },
          { type: 'clock.ticked', now: T0 + 90 * MINUTE },
          { type: 'game.updated', state: active({ vms: [{ id: 'vm1' }] }) },
          { type: 'quiz.graded', state: active() },
          { type: 'session.errorDismissed', index: 0 },
        ],
      }),
    ).toEqual([]);
  });
});

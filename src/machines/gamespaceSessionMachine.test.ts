import { Subject } from 'rxjs';
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
  EXTENSION_MINUTES,
  gamespaceActionMachine,
  PLAY_PAGE_LAUNCH,
} from './gamespaceActionMachine';
import { gamespacePlayMachine, INVITE_COPIED_MS } from './gamespacePlayMachine';
import {
  gamespaceSessionMachine,
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
  selectAttemptsText,
  selectConfirmation,
  selectEndReason,
  selectErrors,
  selectExtendersText,
  selectGamespacePlay,
  selectGameVms,
  selectInviteLink,
  selectIsLaunching,
  selectIsLoading,
  selectIsNotFound,
  selectIsOver,
  selectQuiz,
  selectScoreText,
  selectShowCopied,
  selectShowsExtend,
  selectTimeWarning,
  selectWindow,
} from './gamespaceSessionMachine.selectors';
import type { ClockRequest } from './gamespaceSessionMachine.actors';
import { gameVmsMachine } from './gameVmsMachine';
import { selectVmControllers } from './gameVmsMachine.selectors';
import { flush } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
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
  // The manager's view; an invited player's says false.
  canManage: true,
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
  /** Times the session asked its clock for the time. */
  clockAsked: number;
}

function startSession(options: {
  load: (id: string) => GameState | Error;
  register?: () => GameState | Error;
  change?: (action: string, expirationTime?: string) => GameState | Error;
  copy?: 'fails';
  invite?: 'fails';
  controlsMachines?: boolean;
  /** What the clock answers when the session asks it for the time. */
  clockNow?: number;
}) {
  const calls: Calls = {
    loaded: [],
    registered: [],
    changed: [],
    deleted: [],
    listening: [],
    copied: [],
    clockAsked: 0,
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
        gamespaceAction: gamespaceActionMachine.provide({
          actors: {
            registerGamespace: fromPromise(async ({ input }) => {
              calls.registered.push(input);
              return answer(options.register ? options.register() : active());
            }),
            changeGamespace: fromPromise(async ({ input }) => {
              calls.changed.push(`${input.action} ${input.id}`);
              return answer(
                options.change ? options.change(input.action, input.expirationTime) : active(),
              );
            }),
            deleteGamespace: fromPromise(async ({ input }) => {
              calls.deleted.push(input.id);
            }),
          },
        }),
        gamespacePlay: gamespacePlayMachine.provide({
          actors: {
            inviteToGamespace: fromPromise(async () =>
              answer(options.invite === 'fails' ? new Error('ActionForbidden') : { code: 'c0de' }),
            ),
            copyToClipboard: fromPromise(async ({ input }) => {
              if (options.copy === 'fails') throw new Error('denied');
              calls.copied.push(input.text);
            }),
            questionSet: createMachine({}) as never,
            gameVms: gameVmsMachine.provide({
              actors: { vmController: createMachine({}) as never },
            }),
          },
        }),
        listenToChannel: fromCallback<EventObject, { channelId: string }>(({ input }) => {
          calls.listening.push(input.channelId);
          return () => {
            calls.listening = calls.listening.filter((id) => id !== input.channelId);
          };
        }),
        gameEvents: fromEventObservable(() => hub),
        // The page's clock: ticks come from the test (tick); asked for the time, it answers with
        // options.clockNow, or not at all.
        clock: fromCallback<ClockRequest, undefined>(({ sendBack, receive }) => {
          receive(() => {
            calls.clockAsked += 1;
            if (options.clockNow !== undefined) {
              sendBack({ type: 'clock.ticked', now: options.clockNow });
            }
          });
        }),
      },
    }),
    {
      input: {
        id: 'ws1',
        now: T0 - MINUTE,
        origin: 'https://topo.test',
        controlsMachines: options.controlsMachines,
      },
      clock,
    },
  ).start();
  const tick = (now: number) => actor.send({ type: 'clock.ticked', now });
  const snapshot = () => actor.getSnapshot();
  // The gamespace's quiz, machines and invitation are its play's (a child, while there is one).
  const play = () => selectGamespacePlay(snapshot())?.getSnapshot();
  return { actor, calls, hub, clock, tick, snapshot, play };
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

  it('plays a game it launched from the answer, not from the next tick', async () => {
    // The page's last tick was before the start the server gave; the answer came after it.
    const sut = startSession({ load: () => preview, clockNow: T0 + 1_000, controlsMachines: true });
    await flush();
    sut.actor.send({ type: 'session.startRequested' });
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    expect(sut.calls.clockAsked).toBe(1);
    expect(selectWindow(sut.snapshot())).toBe('during');
    expect(selectCanEnd(sut.snapshot())).toBe(true);
    // The machines' controllers start with the answer too.
    expect(sut.play()?.value).toMatchObject({ machines: 'shown' });
  });

  it('shows not found at once for an id that names no gamespace nor workspace, with no Start', async () => {
    const sut = startSession({ load: () => new Error('ResourceNotFound') });
    await flush();
    expect(selectIsLoading(sut.snapshot())).toBe(false);
    expect(selectIsNotFound(sut.snapshot())).toBe(true);
    expect(selectCanStart(sut.snapshot())).toBe(false);
    sut.actor.send({ type: 'session.startRequested' });
    expect(selectConfirmation(sut.snapshot())).toBeNull();
    expect(sut.calls.registered).toEqual([]);
  });

  it('still offers a launch when the load fails for another reason', async () => {
    const sut = startSession({ load: () => new Error('Error') });
    await flush();
    expect(selectIsNotFound(sut.snapshot())).toBe(false);
    expect(selectCanStart(sut.snapshot())).toBe(true);
  });

  it('shows the score and the attempts, updated by each grade and GameEvent', async () => {
    const challenge = { score: 0, maxPoints: 100, attempts: 0, maxAttempts: 3 };
    const sut = startSession({ load: () => active({ challenge }) });
    await flush();
    sut.tick(T0 + MINUTE);
    expect(selectScoreText(sut.snapshot())).toBe('Score 0 / 100');
    expect(selectAttemptsText(sut.snapshot())).toBe('Attempts 0 / 3');
    sut.actor.send({
      type: 'quiz.graded',
      state: active({ challenge: { ...challenge, score: 30, attempts: 1 } }),
    });
    expect(selectScoreText(sut.snapshot())).toBe('Score 30 / 100');
    expect(selectAttemptsText(sut.snapshot())).toBe('Attempts 1 / 3');
    sut.hub.next({
      type: 'game.updated',
      state: active({ challenge: { ...challenge, score: 60, attempts: 2, maxAttempts: 0 } }),
    });
    expect(selectScoreText(sut.snapshot())).toBe('Score 60 / 100');
    // Unlimited attempts have no maximum to show.
    expect(selectAttemptsText(sut.snapshot())).toBe('Attempts 2');
    expect(selectEndReason(sut.snapshot())).toBeNull();
  });

  it('says why the game ended: full score, attempts used up, time up, or ended', async () => {
    const challenge = { score: 40, maxPoints: 100, attempts: 1, maxAttempts: 3 };
    const sut = startSession({ load: () => active({ challenge }) });
    await flush();
    sut.tick(T0 + 10 * MINUTE);
    const endedWith = (extra: Partial<typeof challenge>) => {
      sut.actor.send({
        type: 'quiz.graded',
        state: active({ challenge: { ...challenge, ...extra }, endTime: iso(T0 + 9 * MINUTE) }),
      });
      return selectEndReason(sut.snapshot());
    };
    expect(endedWith({ score: 100 })).toBe('allAnswered');
    expect(endedWith({ attempts: 3 })).toBe('attemptsUsedUp');
    expect(endedWith({})).toBe('ended');
    sut.hub.next({ type: 'game.updated', state: active({ challenge }) });
    expect(selectEndReason(sut.snapshot())).toBeNull();
    sut.tick(T0 + 60 * MINUTE);
    expect(selectEndReason(sut.snapshot())).toBe('timeUp');
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
    expect(selectErrors(sut.snapshot())).toEqual(['You are not allowed to do this.']);
    fail = false;
    sut.actor.send({ type: 'session.endRequested' });
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    expect(selectIsOver(sut.snapshot())).toBe(true);
  });

  it('warns at 5 minutes and in the last minute, and offers Extend to those who may manage', async () => {
    const expiry = T0 + 60 * MINUTE;
    const sut = startSession({
      load: () => active({ canManage: true }),
      change: (_, expirationTime) => active({ expirationTime, canManage: true }),
    });
    await flush();
    sut.tick(expiry - 5 * MINUTE - 1);
    expect(selectTimeWarning(sut.snapshot())).toBeNull();
    expect(selectShowsExtend(sut.snapshot())).toBe(true);
    sut.tick(expiry - 5 * MINUTE);
    expect(selectTimeWarning(sut.snapshot())).toBe('fiveMinutes');
    sut.tick(expiry - MINUTE);
    expect(selectTimeWarning(sut.snapshot())).toBe('lastMinute');
    // A hub event, the same for everyone, does not take the manager's rights away.
    sut.hub.next({ type: 'game.updated', state: active({ vms: [{ id: 'vm1' }] }) });
    expect(selectShowsExtend(sut.snapshot())).toBe(true);
    sut.actor.send({ type: 'session.extendRequested' });
    expect(selectConfirmation(sut.snapshot())).toBe('extend');
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    const extended = expiry + EXTENSION_MINUTES * MINUTE;
    expect(sut.calls.changed).toEqual(['extend gs1']);
    expect(sut.snapshot().context.game?.expirationTime).toBe(iso(extended));
    expect(selectTimeWarning(sut.snapshot())).toBeNull();
    expect(selectClock(sut.snapshot())).toBe('00:16:00');
  });

  it('offers no Extend to a player who may not manage, and says who may', async () => {
    const sut = startSession({
      load: () =>
        active({
          canManage: false,
          managerName: 'Ann',
          players: [
            { subjectName: 'Ann', isManager: true },
            { subjectName: 'Bo', isManager: true },
            { subjectName: 'Cy', isManager: false },
          ],
        }),
    });
    await flush();
    sut.tick(T0 + 58 * MINUTE);
    expect(selectTimeWarning(sut.snapshot())).toBe('fiveMinutes');
    expect(selectShowsExtend(sut.snapshot())).toBe(false);
    sut.actor.send({ type: 'session.extendRequested' });
    expect(selectConfirmation(sut.snapshot())).toBeNull();
    expect(selectExtendersText(sut.snapshot())).toBe(
      'Only Ann, Bo or an administrator can extend the game.',
    );
    sut.hub.next({ type: 'game.updated', state: active({ managerName: '', players: [] }) });
    expect(selectExtendersText(sut.snapshot())).toBe(
      "Only the game's manager or an administrator can extend the game.",
    );
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
    expect(selectInviteLink(sut.play())).toBe('https://topo.test/mojo/gs1/lab/c0de');
    expect(selectShowCopied(sut.play())).toBe(true);
    sut.clock.increment(INVITE_COPIED_MS - 1);
    expect(selectShowCopied(sut.play())).toBe(true);
    sut.clock.increment(1);
    expect(selectShowCopied(sut.play())).toBe(false);
  });

  it('keeps offering the invitation after hub events and grades, which carry no rights', async () => {
    const sut = startSession({ load: () => active() });
    await flush();
    sut.tick(T0 + MINUTE);
    expect(selectCanInvite(sut.play())).toBe(true);
    const { canManage: _, ...withoutRights } = active({ vms: [{ id: 'vm1' }] });
    sut.hub.next({ type: 'game.updated', state: withoutRights });
    expect(selectCanInvite(sut.play())).toBe(true);
    sut.actor.send({ type: 'quiz.graded', state: withoutRights });
    expect(selectCanInvite(sut.play())).toBe(true);
    sut.actor.send({ type: 'session.inviteRequested' });
    await flush();
    await flush();
    expect(sut.calls.copied).toEqual(['https://topo.test/mojo/gs1/lab/c0de']);
  });

  it('lists an invitation that could not be made', async () => {
    const sut = startSession({ load: () => active(), invite: 'fails' });
    await flush();
    sut.tick(T0 + MINUTE);
    sut.actor.send({ type: 'session.inviteRequested' });
    await flush();
    expect(selectErrors(sut.snapshot())).toEqual(['You are not allowed to do this.']);
    expect(selectInviteLink(sut.play())).toBeNull();
    expect(selectCanInvite(sut.play())).toBe(true);
  });

  it('offers no invitation without a gamespace', async () => {
    const sut = startSession({ load: () => preview });
    await flush();
    expect(selectCanInvite(sut.play())).toBe(false);
  });

  it('runs the quiz once the gamespace is started, and not before', async () => {
    const sut = startSession({ load: () => preview });
    await flush();
    expect(selectQuiz(sut.play())).toBeUndefined();
    sut.actor.send({ type: 'session.startRequested' });
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    expect(selectQuiz(sut.play())).toBeDefined();
  });

  it('gives a new launch after the game is over its own channel, quiz and invitations', async () => {
    const sut = startSession({
      load: () => active(),
      register: () =>
        active({
          id: 'gs2',
          startTime: iso(T0 + 60 * MINUTE),
          expirationTime: iso(T0 + 120 * MINUTE),
        }),
    });
    await flush();
    sut.tick(T0 + 60 * MINUTE);
    const quiz = selectQuiz(sut.play());
    expect(quiz).toBeDefined();
    expect(selectCanInvite(sut.play())).toBe(false);
    sut.actor.send({ type: 'session.startRequested' });
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    expect(sut.calls.listening).toEqual(['gs2']);
    expect(selectQuiz(sut.play())).toBeDefined();
    expect(selectQuiz(sut.play())).not.toBe(quiz);
    expect(quiz?.getSnapshot().status).toBe('stopped');
    expect(selectCanInvite(sut.play())).toBe(true);
  });
});

describe("gamespaceSessionMachine: the game's machines", () => {
  const web = { id: 'vm1', name: 'web', isRunning: true };
  const db = { id: 'vm2', name: 'db', isRunning: true };
  const controllersOf = (sut: ReturnType<typeof startSession>) => {
    const gameVms = selectGameVms(sut.play());
    return gameVms ? selectVmControllers(gameVms.getSnapshot()) : undefined;
  };

  it('runs a controller for each machine during play, follows the state, and stops them once the game is over', async () => {
    const sut = startSession({ load: () => active({ vms: [web] }), controlsMachines: true });
    await flush();
    // Before the start the game is not in play: no machine is controlled yet.
    expect(controllersOf(sut)).toBeUndefined();
    sut.tick(T0 + MINUTE);
    const first = controllersOf(sut);
    expect(Object.keys(first ?? {})).toEqual(['vm1']);
    sut.hub.next({ type: 'game.updated', state: active({ vms: [web, db] }) });
    const second = controllersOf(sut);
    expect(Object.keys(second ?? {})).toEqual(['vm1', 'vm2']);
    expect(second?.vm1).toBe(first?.vm1);
    sut.tick(T0 + 60 * MINUTE);
    expect(controllersOf(sut)).toBeUndefined();
    expect(second?.vm2?.getSnapshot().status).toBe('stopped');
  });

  it('runs controllers for the machines an action deploys, and for those a grade lists', async () => {
    const sut = startSession({
      load: () => active(),
      change: () => active({ vms: [web] }),
      controlsMachines: true,
    });
    await flush();
    sut.tick(T0 + MINUTE);
    expect(Object.keys(controllersOf(sut) ?? {})).toEqual([]);
    sut.actor.send({ type: 'session.deployRequested' });
    sut.actor.send({ type: 'session.actionConfirmed' });
    await flush();
    expect(Object.keys(controllersOf(sut) ?? {})).toEqual(['vm1']);
    sut.actor.send({ type: 'quiz.graded', state: active({ vms: [web, db] }) });
    expect(Object.keys(controllersOf(sut) ?? {})).toEqual(['vm1', 'vm2']);
  });

  it('controls no machine on a page that does not (the launch page)', async () => {
    const sut = startSession({ load: () => active({ vms: [web] }) });
    await flush();
    sut.tick(T0 + MINUTE);
    expect(selectGameVms(sut.play())).toBeUndefined();
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

  it('agrees with the machine', () => {
    expect(
      modelDisagreements(model, gamespaceSessionMachine, {
        states: {
          before: 'window.before',
          during: 'window.during',
          ended: 'window.during',
          over: 'window.after',
        },
        events: {
          START_REACHED: 'clock.ticked',
          TICK: 'clock.ticked',
          EXPIRY_PASSED: 'clock.ticked',
          COMPLETED: 'game.updated',
        },
        // The model is of the window; the page's other regions have the tests above (and the
        // gamespace's parts, gamespacePlayMachine.test.ts).
        unmodelledStates: ['activity', 'gamespace'],
        unmodelledEvents: [
          'quiz.graded',
          'invite.failed',
          'game.changed',
          'session.errorDismissed',
          'session.startRequested',
          'session.endRequested',
          'session.resetRequested',
          'session.deployRequested',
          'session.destroyRequested',
          'session.extendRequested',
          'session.actionConfirmed',
          'session.actionCancelled',
          'session.inviteRequested',
        ],
      }),
    ).toEqual([]);
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
        inputs: [
          { id: 'ws1', now: T0 + MINUTE, origin: '' },
          { id: 'ws1', now: T0 + MINUTE, origin: '', controlsMachines: true },
        ],
        payloads: [
          { type: 'xstate.done.actor.loadGamespace', output: active() },
          {
            type: 'xstate.error.actor.loadGamespace',
            error: { status: 400, message: 'ResourceNotFound' },
          },
          {
            type: 'xstate.done.actor.gamespaceAction',
            output: { type: 'changed', game: active() },
          },
          { type: 'clock.ticked', now: T0 + MINUTE },
          { type: 'clock.ticked', now: T0 + 90 * MINUTE },
          { type: 'game.updated', state: active({ vms: [{ id: 'vm1' }] }) },
          // A gamespace shown but no longer active: its channel is left.
          { type: 'game.updated', state: active({ isActive: false }) },
          { type: 'quiz.graded', state: active() },
          { type: 'session.errorDismissed', index: 0 },
        ],
      }),
    ).toEqual([]);
  });
});

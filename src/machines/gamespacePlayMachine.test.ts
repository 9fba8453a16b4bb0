import { describe, expect, it } from 'vitest';
import {
  assign,
  createActor,
  createMachine,
  fromCallback,
  fromPromise,
  setup,
  SimulatedClock,
  type AnyActorRef,
} from 'xstate';
import type { GameState } from '../api/play';
import { UNSET_DATE } from '../domain/time';
import {
  gamespacePlayMachine,
  INVITE_COPIED_MS,
  type GamespacePlayEvent,
  type GamespacePlayReport,
} from './gamespacePlayMachine';
import {
  selectCanInvite,
  selectGameVms,
  selectInviteLink,
  selectQuiz,
  selectShowCopied,
} from './gamespaceSessionMachine.selectors';
import { gameVmsMachine, type GameVm } from './gameVmsMachine';
import { selectVmControllers } from './gameVmsMachine.selectors';
import type { QuestionSetInput } from './questionSetMachine';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import type { VmControllerInput } from './vmControllerMachine';

const T0 = Date.parse('2030-01-01T10:00:00Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A gamespace registered but not started. */
const registered: GameState = {
  id: 'gs1',
  workspaceId: 'ws1',
  slug: 'lab',
  isActive: true,
  // The manager's view; an invited player's says false.
  canManage: true,
  startTime: UNSET_DATE,
  endTime: UNSET_DATE,
  expirationTime: UNSET_DATE,
  vms: [],
};
/** Started at T0 for an hour. */
const started = (extra: Partial<GameState> = {}): GameState => ({
  ...registered,
  startTime: iso(T0),
  expirationTime: iso(T0 + 60 * MINUTE),
  ...extra,
});

const web: GameVm = { id: 'vm1', name: 'web', isRunning: true };
const db: GameVm = { id: 'vm2', name: 'db', isRunning: true };

/** A quiz that keeps its input and the events it is told. */
const stubQuiz = setup({
  types: {
    input: {} as QuestionSetInput,
    context: {} as { input: QuestionSetInput; heard: string[] },
  },
}).createMachine({
  context: ({ input }) => ({ input, heard: [] }),
  on: {
    '*': {
      actions: assign({
        heard: ({ context, event }) => [
          ...context.heard,
          event.type === 'quiz.playabilityChanged'
            ? `playable ${String(event.playable)}`
            : event.type,
        ],
      }),
    },
  },
});

const stubController = setup({
  types: { input: {} as VmControllerInput, context: {} as { input: VmControllerInput } },
}).createMachine({ context: ({ input }) => ({ input }) });

interface Call {
  kind: 'inviteToGamespace' | 'copyToClipboard';
  input: unknown;
  answer: Deferred<unknown>;
}

/** The parts of `game` at `now`, each call waiting for the test, on a simulated clock. */
function startPlay(game: GameState, now: number, controlsMachines = true) {
  const clock = new SimulatedClock();
  const calls: Call[] = [];
  const reports: GamespacePlayReport[] = [];
  const call = <T, I>(kind: Call['kind']) =>
    fromPromise<T, I>(({ input }) => {
      const answer = deferred<unknown>();
      calls.push({ kind, input, answer });
      return answer.promise as Promise<T>;
    });
  const parentRef = createActor(
    fromCallback<GamespacePlayReport>(({ receive }) => receive((event) => reports.push(event))),
  ).start();
  const actor = createActor(
    gamespacePlayMachine.provide({
      actors: {
        questionSet: stubQuiz as never,
        gameVms: gameVmsMachine.provide({ actors: { vmController: stubController as never } }),
        inviteToGamespace: call<{ code: string }, { id: string }>('inviteToGamespace'),
        copyToClipboard: call<void, { text: string }>('copyToClipboard'),
      },
    }),
    { clock, input: { game, now, origin: 'https://topo.test', controlsMachines, parentRef } },
  ).start();
  const snapshot = () => actor.getSnapshot();
  const send = (event: GamespacePlayEvent) => actor.send(event);
  const quiz = () =>
    selectQuiz(snapshot())?.getSnapshot() as
      { context: { input: QuestionSetInput; heard: string[] } } | undefined;
  const controllers = () => {
    const gameVms = selectGameVms(snapshot());
    return gameVms ? Object.keys(selectVmControllers(gameVms.getSnapshot())) : undefined;
  };
  const settle = async (kind: Call['kind'], how: (answer: Deferred<unknown>) => void) => {
    const open = calls.filter((c) => c.kind === kind).at(-1);
    if (!open) throw new Error(`no ${kind} call`);
    how(open.answer);
    await flush();
  };
  return { actor, clock, calls, reports, parentRef, snapshot, send, quiz, controllers, settle };
}

describe('gamespacePlayMachine', () => {
  it('runs the quiz once the gamespace is started, and has it report its grades to the session', () => {
    const p = startPlay(registered, T0 - MINUTE);
    expect(p.quiz()).toBeUndefined();
    p.send({ type: 'game.changed', state: started() });
    expect(p.quiz()?.context.input).toEqual({
      gamespaceId: 'gs1',
      playable: false,
      reportTo: p.parentRef,
    });
  });

  it('tells the quiz when play begins and ends, and has it refresh on each GameEvent', () => {
    const p = startPlay(started(), T0 - MINUTE);
    p.send({ type: 'clock.ticked', now: T0 + MINUTE });
    p.send({ type: 'game.updated', state: started({ vms: [web] }) });
    p.send({ type: 'quiz.graded', state: started() });
    p.send({ type: 'clock.ticked', now: T0 + 60 * MINUTE });
    expect(p.quiz()?.context.heard).toEqual([
      'playable true',
      'playable true',
      'quiz.refreshRequested',
      'playable true',
      'playable false',
    ]);
    expect(p.snapshot().context.game.endTime).toBe(UNSET_DATE);
  });

  it('tells the quiz at once when an action of the page ends the game, not at the next tick', () => {
    const p = startPlay(started(), T0 + MINUTE);
    p.send({ type: 'game.changed', state: started({ endTime: iso(T0 + MINUTE) }) });
    expect(p.quiz()?.context.heard).toEqual(['playable false']);
    expect(p.snapshot().context.game.endTime).toBe(iso(T0 + MINUTE));
  });

  it('runs a controller for each machine during play, follows the state, and stops them after', () => {
    const p = startPlay(started({ vms: [web] }), T0 - MINUTE);
    expect(p.controllers()).toBeUndefined();
    p.send({ type: 'clock.ticked', now: T0 + MINUTE });
    expect(p.controllers()).toEqual(['vm1']);
    const first = selectGameVms(p.snapshot());
    p.send({ type: 'game.changed', state: started({ vms: [web, db] }) });
    expect(p.controllers()).toEqual(['vm1', 'vm2']);
    expect(selectGameVms(p.snapshot())).toBe(first);
    p.send({ type: 'clock.ticked', now: T0 + 60 * MINUTE });
    expect(p.controllers()).toBeUndefined();
    expect((first as AnyActorRef).getSnapshot().status).toBe('stopped');
  });

  it('controls no machine on a page that does not (the launch page)', () => {
    const p = startPlay(started({ vms: [web] }), T0 + MINUTE, false);
    expect(p.controllers()).toBeUndefined();
  });

  it("copies the invitation link and shows 'copied' for 3 s", async () => {
    const p = startPlay(started(), T0 + MINUTE);
    p.send({ type: 'session.inviteRequested' });
    expect(p.calls.map((c) => [c.kind, c.input])).toEqual([['inviteToGamespace', { id: 'gs1' }]]);
    await p.settle('inviteToGamespace', (a) => a.resolve({ code: 'c0de' }));
    expect(selectInviteLink(p.snapshot())).toBe('https://topo.test/mojo/gs1/lab/c0de');
    expect(p.calls.at(-1)?.input).toEqual({ text: 'https://topo.test/mojo/gs1/lab/c0de' });
    expect(selectShowCopied(p.snapshot())).toBe(false);
    await p.settle('copyToClipboard', (a) => a.resolve(undefined));
    expect(selectShowCopied(p.snapshot())).toBe(true);
    p.clock.increment(INVITE_COPIED_MS - 1);
    expect(selectShowCopied(p.snapshot())).toBe(true);
    p.clock.increment(1);
    expect(selectShowCopied(p.snapshot())).toBe(false);
  });

  it('keeps the link to copy by hand when the clipboard refuses', async () => {
    const p = startPlay(started(), T0 + MINUTE);
    p.send({ type: 'session.inviteRequested' });
    await p.settle('inviteToGamespace', (a) => a.resolve({ code: 'c0de' }));
    await p.settle('copyToClipboard', (a) => a.reject(new Error('denied')));
    expect(selectInviteLink(p.snapshot())).toBe('https://topo.test/mojo/gs1/lab/c0de');
    expect(selectShowCopied(p.snapshot())).toBe(false);
    expect(p.reports).toEqual([]);
    expect(selectCanInvite(p.snapshot())).toBe(true);
  });

  it('tells the session when no invitation could be made, and offers it again', async () => {
    const p = startPlay(started(), T0 + MINUTE);
    p.send({ type: 'session.inviteRequested' });
    expect(selectCanInvite(p.snapshot())).toBe(false);
    const refusal = { status: 400, message: 'ActionForbidden' };
    await p.settle('inviteToGamespace', (a) => a.reject(refusal));
    expect(p.reports).toEqual([{ type: 'invite.failed', error: refusal }]);
    expect(selectInviteLink(p.snapshot())).toBeNull();
    expect(selectCanInvite(p.snapshot())).toBe(true);
  });

  it('offers no invitation once the game is over', () => {
    const p = startPlay(started(), T0 + MINUTE);
    expect(selectCanInvite(p.snapshot())).toBe(true);
    p.send({ type: 'clock.ticked', now: T0 + 60 * MINUTE });
    expect(selectCanInvite(p.snapshot())).toBe(false);
    p.send({ type: 'session.inviteRequested' });
    expect(p.calls).toEqual([]);
  });

  it('reaches every state', () => {
    const parentRef = createActor(fromCallback(() => undefined));
    expect(
      unreachedStateIds(gamespacePlayMachine, {
        serializeState: (snapshot) => {
          const { context } = snapshot as unknown as { context: { game: GameState; now: number } };
          return JSON.stringify([snapshot.value, context.game.startTime, context.now]);
        },
        inputs: [
          { game: registered, now: T0 + MINUTE, origin: '', controlsMachines: true, parentRef },
        ],
        payloads: [
          { type: 'game.changed', state: started() },
          { type: 'game.updated', state: started({ vms: [web] }) },
          { type: 'quiz.graded', state: registered },
          { type: 'clock.ticked', now: T0 + 90 * MINUTE },
          { type: 'xstate.done.actor.inviteToGamespace', output: { code: 'c0de' } },
        ],
      }),
    ).toEqual([]);
  });
});

describe('gamespacePlayMachine over a game (model-based)', () => {
  // The quiz and the machines follow the game: nothing before it starts, both during play, the
  // quiz alone (no longer playable) once it is over, by its end or by its expiry.
  const model = createMachine({
    id: 'gamespacePlayModel',
    initial: 'registered',
    states: {
      registered: { on: { STARTED: 'inPlay' } },
      inPlay: { on: { DEPLOYED: 'inPlay', ENDED: 'over', EXPIRED: 'over' } },
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
      modelDisagreements(model, gamespacePlayMachine, {
        states: {
          registered: ['quiz.hidden', 'machines.hidden'],
          inPlay: ['quiz.shown', 'machines.shown'],
          over: ['quiz.shown', 'machines.hidden'],
        },
        events: {
          STARTED: 'game.changed',
          DEPLOYED: 'game.updated',
          ENDED: 'game.changed',
          EXPIRED: 'clock.ticked',
          TICK: 'clock.ticked',
        },
        // The invitation has its own model below; grades are told like GameEvents.
        unmodelledStates: ['invite'],
        unmodelledEvents: ['quiz.graded', 'session.inviteRequested'],
      }),
    ).toEqual([]);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const p = startPlay(registered, T0 + MINUTE);
      let now = T0 + MINUTE;
      let game = registered;
      const playable = () =>
        p
          .quiz()
          ?.context.heard.filter((e) => e.startsWith('playable'))
          .at(-1);
      await path.test({
        states: {
          registered: () => {
            expect(p.quiz()).toBeUndefined();
            expect(p.controllers()).toBeUndefined();
          },
          inPlay: () => {
            expect(p.quiz()?.context.input.gamespaceId).toBe('gs1');
            expect(p.controllers()).toEqual((game.vms ?? []).map((vm) => vm.id));
            expect(selectCanInvite(p.snapshot())).toBe(true);
          },
          over: () => {
            expect(p.quiz()).toBeDefined();
            expect(p.controllers()).toBeUndefined();
            expect(selectCanInvite(p.snapshot())).toBe(false);
          },
        },
        events: {
          STARTED: () => p.send({ type: 'game.changed', state: (game = started()) }),
          DEPLOYED: () => p.send({ type: 'game.updated', state: (game = started({ vms: [web] })) }),
          ENDED: () => {
            p.send({ type: 'game.changed', state: (game = started({ endTime: iso(now) })) });
            expect(playable()).toBe('playable false');
          },
          EXPIRED: () => {
            p.send({ type: 'clock.ticked', now: (now = T0 + 60 * MINUTE) });
            expect(playable()).toBe('playable false');
          },
          TICK: () => p.send({ type: 'clock.ticked', now: (now += MINUTE) }),
        },
      });
    });
  }
});

describe('gamespacePlayMachine invitation (model-based)', () => {
  // An invitation: its code, then the clipboard, then 'copied' for a while; either call may fail.
  const model = createMachine({
    id: 'gamespaceInviteModel',
    initial: 'idle',
    states: {
      idle: { on: { INVITE: 'inviting' } },
      inviting: { on: { CODE_GIVEN: 'copying', REFUSED: 'idle' } },
      copying: { on: { COPIED: 'copied', DENIED: 'idle' } },
      copied: { on: { ELAPSED: 'idle' } },
    },
  });
  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  it('agrees with the machine', () => {
    expect(
      modelDisagreements(model, gamespacePlayMachine, {
        states: {
          idle: 'invite.idle',
          inviting: 'invite.inviting',
          copying: 'invite.copying',
          copied: 'invite.copied',
        },
        events: {
          INVITE: 'session.inviteRequested',
          CODE_GIVEN: 'xstate.done.actor.inviteToGamespace',
          REFUSED: 'xstate.error.actor.inviteToGamespace',
          COPIED: 'xstate.done.actor.copyToClipboard',
          DENIED: 'xstate.error.actor.copyToClipboard',
          ELAPSED: 'xstate.after.inviteCopied.gamespacePlay.invite.copied',
        },
        // The game's own course has the model above.
        unmodelledStates: ['quiz', 'machines'],
        unmodelledEvents: ['clock.ticked', 'game.updated', 'quiz.graded', 'game.changed'],
      }),
    ).toEqual([]);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const p = startPlay(started(), T0 + MINUTE);
      let failures = 0;
      const made = (kind: Call['kind']) => p.calls.filter((c) => c.kind === kind).length;
      let invites = 0;
      let copies = 0;
      await path.test({
        states: {
          idle: () => {
            expect(selectCanInvite(p.snapshot())).toBe(true);
            expect(selectShowCopied(p.snapshot())).toBe(false);
            expect(p.reports).toHaveLength(failures);
          },
          inviting: () => {
            expect(made('inviteToGamespace')).toBe(invites);
            expect(selectCanInvite(p.snapshot())).toBe(false);
          },
          copying: () => {
            expect(made('copyToClipboard')).toBe(copies);
            expect(selectInviteLink(p.snapshot())).toBe('https://topo.test/mojo/gs1/lab/c0de');
          },
          copied: () => expect(selectShowCopied(p.snapshot())).toBe(true),
        },
        events: {
          INVITE: () => {
            invites += 1;
            p.send({ type: 'session.inviteRequested' });
          },
          CODE_GIVEN: () => {
            copies += 1;
            return p.settle('inviteToGamespace', (a) => a.resolve({ code: 'c0de' }));
          },
          REFUSED: () => {
            failures += 1;
            return p.settle('inviteToGamespace', (a) => a.reject({ status: 400, message: 'X' }));
          },
          COPIED: () => p.settle('copyToClipboard', (a) => a.resolve(undefined)),
          DENIED: () => p.settle('copyToClipboard', (a) => a.reject(new Error('denied'))),
          ELAPSED: () => void p.clock.increment(INVITE_COPIED_MS),
        },
      });
    });
  }
});

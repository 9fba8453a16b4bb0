import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { GameState } from '../api/play';
import {
  EXTENSION_MINUTES,
  gamespaceActionMachine,
  PLAY_PAGE_LAUNCH,
  type SessionAction,
} from './gamespaceActionMachine';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const game: GameState = { id: 'gs1', workspaceId: 'ws1', name: 'Lab', isActive: true };
const preview: GameState = { id: null, workspaceId: null, name: 'Lab' };

interface Call {
  kind: 'registerGamespace' | 'changeGamespace' | 'deleteGamespace';
  input: unknown;
  answer: Deferred<unknown>;
}

/** One confirmed action, its call waiting for the test to answer it. */
function startAction(action: SessionAction, shown: GameState | null = game) {
  const calls: Call[] = [];
  const call = <T, I>(kind: Call['kind']) =>
    fromPromise<T, I>(({ input }) => {
      const answer = deferred<unknown>();
      calls.push({ kind, input, answer });
      return answer.promise as Promise<T>;
    });
  const actor = createActor(
    gamespaceActionMachine.provide({
      actors: {
        registerGamespace: call('registerGamespace'),
        changeGamespace: call('changeGamespace'),
        deleteGamespace: call('deleteGamespace'),
      },
    }),
    { input: { action, game: shown, loadId: 'ws1' } },
  );
  // Its parent hears of a failure; here the test reads it from the snapshot.
  actor.subscribe({ error: () => undefined });
  actor.start();
  const answer = async (value: unknown) => {
    calls.at(-1)?.answer.resolve(value);
    await flush();
  };
  const fail = async (error: unknown) => {
    calls.at(-1)?.answer.reject(error);
    await flush();
  };
  return { actor, calls, answer, fail };
}

const sent = (calls: Call[]) => calls.map((c) => [c.kind, c.input]);

describe('gamespaceActionMachine', () => {
  it("launches the workspace with the play page's settings, and answers with the new gamespace", async () => {
    const a = startAction('start', preview);
    expect(sent(a.calls)).toEqual([
      ['registerGamespace', { ...PLAY_PAGE_LAUNCH, resourceId: 'ws1' }],
    ]);
    await a.answer(game);
    expect(a.actor.getSnapshot().output).toEqual({ type: 'changed', game });
  });

  it("launches a gamespace's own workspace again", () => {
    const a = startAction('start', { ...game, workspaceId: 'ws7' });
    expect(sent(a.calls)).toEqual([
      ['registerGamespace', { ...PLAY_PAGE_LAUNCH, resourceId: 'ws7' }],
    ]);
  });

  it.each([
    ['end', 'complete'],
    ['deploy', 'start'],
    ['destroy', 'stop'],
  ] as const)('sends %s as %s of the gamespace', async (action, change) => {
    const a = startAction(action);
    expect(sent(a.calls)).toEqual([['changeGamespace', { id: 'gs1', action: change }]]);
    await a.answer({ ...game, isActive: false });
    expect(a.actor.getSnapshot().output).toEqual({
      type: 'changed',
      game: { ...game, isActive: false },
    });
  });

  it('extends the gamespace by moving its expiry on by the extension', async () => {
    const expiry = Date.parse('2030-01-01T11:00:00Z');
    const a = startAction('extend', { ...game, expirationTime: new Date(expiry).toISOString() });
    expect(sent(a.calls)).toEqual([
      [
        'changeGamespace',
        {
          id: 'gs1',
          action: 'extend',
          expirationTime: new Date(expiry + EXTENSION_MINUTES * 60_000).toISOString(),
        },
      ],
    ]);
  });

  it('resets by deleting the gamespace, then names its workspace to load', async () => {
    const a = startAction('reset');
    expect(sent(a.calls)).toEqual([['deleteGamespace', { id: 'gs1' }]]);
    await a.answer(undefined);
    expect(a.actor.getSnapshot().output).toEqual({ type: 'reset', loadId: 'ws1' });
  });

  it("fails with the call's own error, for the session to list", async () => {
    const a = startAction('end');
    const refusal = { status: 400, message: 'ActionForbidden' };
    await a.fail(refusal);
    expect(a.actor.getSnapshot().status).toBe('error');
    expect(a.actor.getSnapshot().error).toBe(refusal);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(gamespaceActionMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: (['start', 'end', 'reset'] as const).map((action) => ({
          action,
          game,
          loadId: 'ws1',
        })),
        payloads: [
          { type: 'xstate.done.actor.registerGamespace', output: game },
          { type: 'xstate.done.actor.changeGamespace', output: game },
        ],
      }),
    ).toEqual([]);
  });
});

describe('gamespaceActionMachine against an abstract model', () => {
  // The action is chosen by the input; the server answers its call or refuses it.
  const model = createMachine({
    id: 'gamespaceActionModel',
    initial: 'confirmed',
    states: {
      confirmed: { on: { START: 'launching', END: 'changing', RESET: 'resetting' } },
      launching: { on: { ANSWERED: 'changed', REFUSED: 'failed' } },
      changing: { on: { ANSWERED: 'changed', REFUSED: 'failed' } },
      resetting: { on: { ANSWERED: 'reset', REFUSED: 'failed' } },
      changed: {},
      reset: {},
      failed: {},
    },
  });
  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  it('agrees with the machine', () => {
    expect(
      modelDisagreements(model, gamespaceActionMachine, {
        states: {
          confirmed: 'choosing',
          launching: 'launching',
          changing: 'changing',
          resetting: 'resetting',
          changed: 'done',
          reset: 'done',
          // A refusal fails the actor where its call was (checked by its status).
          failed: ['launching', 'changing', 'resetting'],
        },
        events: {
          // The action is the actor's input, not an event.
          START: [],
          END: [],
          RESET: [],
          ANSWERED: [
            'xstate.done.actor.registerGamespace',
            'xstate.done.actor.changeGamespace',
            'xstate.done.actor.deleteGamespace',
          ],
          REFUSED: [],
        },
      }),
    ).toEqual([]);
  });

  for (const path of paths) {
    it(path.description, async () => {
      let a: ReturnType<typeof startAction> | null = null;
      const current = () => {
        if (!a) throw new Error('no action started');
        return a;
      };
      const calling = (kind: Call['kind']) => () => {
        expect(current().calls.map((c) => c.kind)).toEqual([kind]);
        expect(current().actor.getSnapshot().status).toBe('active');
      };
      await path.test({
        states: {
          confirmed: () => expect(a).toBeNull(),
          launching: calling('registerGamespace'),
          changing: calling('changeGamespace'),
          resetting: calling('deleteGamespace'),
          changed: () =>
            expect(current().actor.getSnapshot().output).toEqual({ type: 'changed', game }),
          reset: () =>
            expect(current().actor.getSnapshot().output).toEqual({ type: 'reset', loadId: 'ws1' }),
          failed: () => expect(current().actor.getSnapshot().status).toBe('error'),
        },
        events: {
          START: () => void (a = startAction('start', preview)),
          END: () => void (a = startAction('end')),
          RESET: () => void (a = startAction('reset')),
          ANSWERED: () => current().answer(game),
          REFUSED: () => current().fail({ status: 400, message: 'Error' }),
        },
      });
    });
  }
});

import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { GameState, LaunchSettings } from '../api/play';
import {
  gamespaceLaunchMachine,
  PLAY_TAB_LAUNCH,
  type LaunchOptions,
} from './gamespaceLaunchMachine';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

function startLaunch(answer: GameState | Error) {
  const registered: LaunchSettings[] = [];
  const opened: string[] = [];
  const actor = createActor(
    gamespaceLaunchMachine.provide({
      actors: {
        registerGamespace: fromPromise<GameState, LaunchSettings>(async ({ input }) => {
          registered.push(input);
          if (answer instanceof Error) throw { status: 400, message: answer.message };
          return answer;
        }),
      },
      actions: { openGamespace: (_, { id, slug }) => opened.push(`/mojo/${id}/${slug}`) },
    }),
    { input: { workspaceId: 'ws1' } },
  ).start();
  return { actor, registered, opened };
}

describe('gamespaceLaunchMachine', () => {
  it("starts from the spec defaults, but asks for the longest game allowed (the workspace's duration) rather than 60 minutes", () => {
    expect(PLAY_TAB_LAUNCH).toEqual({
      variant: 0,
      maxAttempts: 3,
      maxMinutes: 0,
      points: 100,
      allowReset: true,
      allowPreview: false,
      startGamespace: true,
    });
  });

  it('registers with the edited settings and opens the play page', async () => {
    const { actor, registered, opened } = startLaunch({ id: 'gs1', slug: 'lab' });
    actor.send({ type: 'launch.numberChanged', option: 'maxMinutes', value: 30 });
    actor.send({ type: 'launch.numberChanged', option: 'points', value: -1 });
    actor.send({ type: 'launch.flagChanged', option: 'allowPreview', value: true });
    actor.send({ type: 'launch.requested' });
    await flush();
    expect(registered).toEqual([
      { ...PLAY_TAB_LAUNCH, maxMinutes: 30, allowPreview: true, resourceId: 'ws1' },
    ]);
    expect(opened).toEqual(['/mojo/gs1/lab']);
  });

  it('shows a failed launch and stays', async () => {
    const { actor, opened } = startLaunch(new Error('GamespaceLimitReached'));
    actor.send({ type: 'launch.requested' });
    await flush();
    expect(actor.getSnapshot().context.error).toBe('Gamespace Limit Reached');
    expect(opened).toEqual([]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(gamespaceLaunchMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ workspaceId: 'ws1' }],
        payloads: [
          { type: 'xstate.done.actor.registerGamespace', output: { id: 'gs1', slug: 'lab' } },
          { type: 'launch.numberChanged', option: 'points', value: 50 },
          { type: 'launch.flagChanged', option: 'allowReset', value: false },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the Play tab's settings and Launch (spec §2), with edits and a second Launch
 * during a launch, each registration answered by the test. The test keeps the settings it
 * expects and checks each registration's body, the error shown and the pages opened.
 */
describe('gamespaceLaunchMachine against its model', () => {
  type ModelEvent =
    | { type: 'NUMBER_EDITED' }
    | { type: 'INVALID_NUMBER_EDITED' }
    | { type: 'FLAG_EDITED' }
    | { type: 'LAUNCHED' }
    | { type: 'REGISTERED' }
    | { type: 'FAILED' };

  const edits = (own: string) => ({
    NUMBER_EDITED: own,
    INVALID_NUMBER_EDITED: own,
    FLAG_EDITED: own,
    LAUNCHED: 'launching',
  });

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'gamespaceLaunchModel',
    initial: 'editing',
    states: {
      editing: { on: edits('editing') },
      editingAfterFailure: { on: edits('editingAfterFailure') },
      // Settings are not taken while a launch is in flight, nor a second Launch.
      launching: {
        on: {
          NUMBER_EDITED: 'launching',
          LAUNCHED: 'launching',
          REGISTERED: 'editing',
          FAILED: 'editingAfterFailure',
        },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, gamespaceLaunchMachine, {
        states: { editing: 'editing', editingAfterFailure: 'editing', launching: 'launching' },
        events: {
          NUMBER_EDITED: 'launch.numberChanged',
          INVALID_NUMBER_EDITED: 'launch.numberChanged',
          FLAG_EDITED: 'launch.flagChanged',
          LAUNCHED: 'launch.requested',
          REGISTERED: 'xstate.done.actor.registerGamespace',
          FAILED: 'xstate.error.actor.registerGamespace',
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
      const registrations: Array<{ body: LaunchSettings; result: Deferred<GameState> }> = [];
      const opened: string[] = [];
      const actor = createActor(
        gamespaceLaunchMachine.provide({
          actors: {
            registerGamespace: fromPromise<GameState, LaunchSettings>(({ input }) => {
              const result = deferred<GameState>();
              registrations.push({ body: input, result });
              return result.promise;
            }),
          },
          actions: { openGamespace: (_, { id, slug }) => opened.push(`/mojo/${id}/${slug}`) },
        }),
        { input: { workspaceId: 'ws1' } },
      ).start();
      let options: LaunchOptions = PLAY_TAB_LAUNCH;
      const bodies: LaunchSettings[] = [];
      const pages: string[] = [];
      let current = 'editing';
      const expectTab = (state: string, value: string, error: string | null) => () => {
        current = state;
        const snapshot = actor.getSnapshot();
        expect(snapshot.value).toBe(value);
        expect(snapshot.context.options).toEqual(options);
        expect(snapshot.context.error).toBe(error);
        expect(registrations.map((r) => r.body)).toEqual(bodies);
        expect(opened).toEqual(pages);
      };
      await path.test({
        states: {
          editing: expectTab('editing', 'editing', null),
          editingAfterFailure: expectTab(
            'editingAfterFailure',
            'editing',
            'Gamespace Limit Reached',
          ),
          launching: expectTab('launching', 'launching', null),
        },
        events: {
          NUMBER_EDITED: () => {
            const value = options.maxMinutes + 5;
            if (current !== 'launching') options = { ...options, maxMinutes: value };
            actor.send({ type: 'launch.numberChanged', option: 'maxMinutes', value });
          },
          INVALID_NUMBER_EDITED: () =>
            actor.send({ type: 'launch.numberChanged', option: 'points', value: -1 }),
          FLAG_EDITED: () => {
            options = { ...options, allowPreview: !options.allowPreview };
            actor.send({
              type: 'launch.flagChanged',
              option: 'allowPreview',
              value: options.allowPreview,
            });
          },
          LAUNCHED: () => {
            if (current !== 'launching') bodies.push({ ...options, resourceId: 'ws1' });
            actor.send({ type: 'launch.requested' });
          },
          REGISTERED: async () => {
            pages.push(`/mojo/gs${registrations.length}/lab`);
            registrations.at(-1)?.result.resolve({ id: `gs${registrations.length}`, slug: 'lab' });
            await flush();
          },
          FAILED: async () => {
            registrations.at(-1)?.result.reject(new Error('GamespaceLimitReached'));
            await flush();
          },
        },
      });
    });
  }
});

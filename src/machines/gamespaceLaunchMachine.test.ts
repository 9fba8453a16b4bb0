import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { GameState, LaunchSettings } from '../api/play';
import { gamespaceLaunchMachine, PLAY_TAB_LAUNCH } from './gamespaceLaunchMachine';
import { flush } from './testing/deferred';
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
  it('starts from the spec defaults', () => {
    expect(PLAY_TAB_LAUNCH).toEqual({
      variant: 0,
      maxAttempts: 3,
      maxMinutes: 60,
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

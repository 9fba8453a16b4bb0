import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { gamespaceCleanupMachine } from './gamespaceCleanupMachine';
import {
  selectCanRequestGamespaceDelete,
  selectGamespaceCleanupErrors,
  selectGamespacesDeleted,
  selectIsConfirmingGamespaceDelete,
  selectIsDeletingGamespaces,
} from './gamespaceCleanupMachine.selectors';
import { flush } from './testing/deferred';
import { unreachedStateIds } from './testing/reachability';

function startCleanup(outcome: 'ok' | { reject: unknown } = 'ok') {
  const calls: string[] = [];
  const actor = createActor(
    gamespaceCleanupMachine.provide({
      actors: {
        endGamespaces: fromPromise<unknown, { workspaceId: string }>(async ({ input }) => {
          calls.push(input.workspaceId);
          if (outcome !== 'ok') throw outcome.reject;
        }),
      },
    }),
    { input: { workspaceId: 'ws-1' } },
  ).start();
  return { actor, calls };
}

describe('gamespaceCleanupMachine', () => {
  it("asks first, then deletes the workspace's gamespaces", async () => {
    const { actor, calls } = startCleanup();
    actor.send({ type: 'gamespaces.deleteRequested' });
    expect(selectIsConfirmingGamespaceDelete(actor.getSnapshot())).toBe(true);
    expect(calls).toEqual([]);
    actor.send({ type: 'gamespaces.deleteConfirmed' });
    expect(selectIsDeletingGamespaces(actor.getSnapshot())).toBe(true);
    expect(selectCanRequestGamespaceDelete(actor.getSnapshot())).toBe(false);
    await flush();
    expect(calls).toEqual(['ws-1']);
    expect(selectGamespacesDeleted(actor.getSnapshot())).toBe(true);
    expect(selectCanRequestGamespaceDelete(actor.getSnapshot())).toBe(true);
  });

  it('deletes nothing when cancelled', () => {
    const { actor, calls } = startCleanup();
    actor.send({ type: 'gamespaces.deleteRequested' });
    actor.send({ type: 'gamespaces.deleteCancelled' });
    expect(selectIsConfirmingGamespaceDelete(actor.getSnapshot())).toBe(false);
    expect(calls).toEqual([]);
  });

  it('lists a failure until dismissed', async () => {
    const { actor } = startCleanup({ reject: { status: 403, message: 'ActionForbidden' } });
    actor.send({ type: 'gamespaces.deleteRequested' });
    actor.send({ type: 'gamespaces.deleteConfirmed' });
    await flush();
    expect(selectGamespaceCleanupErrors(actor.getSnapshot())).toEqual(['Action Forbidden']);
    actor.send({ type: 'gamespaces.errorDismissed', index: 0 });
    expect(selectGamespaceCleanupErrors(actor.getSnapshot())).toEqual([]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(gamespaceCleanupMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ workspaceId: 'ws-1' }],
      }),
    ).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import { gamespaceCleanupMachine } from './gamespaceCleanupMachine';
import {
  selectCanRequestGamespaceDelete,
  selectGamespaceCleanupErrors,
  selectGamespacesDeleted,
  selectHasGamespaces,
  selectIsConfirmingGamespaceDelete,
  selectIsDeletingGamespaces,
} from './gamespaceCleanupMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

function startCleanup(outcome: 'ok' | { reject: unknown } = 'ok', activeGamespaceCount = 2) {
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
    { input: { workspaceId: 'ws-1', activeGamespaceCount } },
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
    // None is left to delete.
    expect(selectCanRequestGamespaceDelete(actor.getSnapshot())).toBe(false);
  });

  it('offers nothing to delete when the workspace has no gamespace under way', () => {
    const { actor, calls } = startCleanup('ok', 0);
    expect(selectCanRequestGamespaceDelete(actor.getSnapshot())).toBe(false);
    expect(selectHasGamespaces(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'gamespaces.deleteRequested' });
    expect(selectIsConfirmingGamespaceDelete(actor.getSnapshot())).toBe(false);
    expect(calls).toEqual([]);
    expect(selectHasGamespaces(startCleanup('ok', 1).actor.getSnapshot())).toBe(true);
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
    expect(selectGamespaceCleanupErrors(actor.getSnapshot())).toEqual([
      'You are not allowed to do this.',
    ]);
    actor.send({ type: 'gamespaces.errorDismissed', index: 0 });
    expect(selectGamespaceCleanupErrors(actor.getSnapshot())).toEqual([]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(gamespaceCleanupMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [
          { workspaceId: 'ws-1', activeGamespaceCount: 1 },
          { workspaceId: 'ws-1', activeGamespaceCount: 0 },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the warning's confirmed delete (spec §2, §5), with failures listed until
 * closed, checking what the view reads and that only a confirmation deletes.
 */
describe('gamespaceCleanupMachine against its model', () => {
  type ModelEvent =
    | { type: 'REQUESTED' }
    | { type: 'CONFIRMED' }
    | { type: 'CANCELLED' }
    | { type: 'SUCCEEDED' }
    | { type: 'FAILED' }
    | { type: 'ALERTS_CLOSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'gamespaceCleanupModel',
    initial: 'idle',
    states: {
      idle: { on: { REQUESTED: 'confirming', ALERTS_CLOSED: 'idle' } },
      confirming: {
        on: { CONFIRMED: 'deleting', CANCELLED: 'idle', ALERTS_CLOSED: 'confirming' },
      },
      deleting: { on: { SUCCEEDED: 'deleted', FAILED: 'idle', ALERTS_CLOSED: 'deleting' } },
      deleted: { on: { ALERTS_CLOSED: 'deleted' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, gamespaceCleanupMachine, {
        states: {
          idle: 'idle',
          confirming: 'confirming',
          deleting: 'deleting',
          deleted: 'deleted',
        },
        // A workspace with no gamespace: the test above; `checking` is left at once.
        unmodelledStates: ['none', 'checking'],
        events: {
          REQUESTED: 'gamespaces.deleteRequested',
          CONFIRMED: 'gamespaces.deleteConfirmed',
          CANCELLED: 'gamespaces.deleteCancelled',
          SUCCEEDED: 'xstate.done.actor.endGamespaces',
          FAILED: 'xstate.error.actor.endGamespaces',
          ALERTS_CLOSED: 'gamespaces.errorDismissed',
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
      const calls: Deferred<unknown>[] = [];
      const actor = createActor(
        gamespaceCleanupMachine.provide({
          actors: {
            endGamespaces: fromPromise<unknown, { workspaceId: string }>(() => {
              const call = deferred<unknown>();
              calls.push(call);
              return call.promise;
            }),
          },
        }),
        { input: { workspaceId: 'ws-1', activeGamespaceCount: 1 } },
      ).start();
      let alerts: string[] = [];
      let confirmations = 0;
      const expectWarning = (state: string) => () => {
        const snapshot = actor.getSnapshot();
        expect(selectIsConfirmingGamespaceDelete(snapshot)).toBe(state === 'confirming');
        expect(selectIsDeletingGamespaces(snapshot)).toBe(state === 'deleting');
        expect(selectGamespacesDeleted(snapshot)).toBe(state === 'deleted');
        expect(selectCanRequestGamespaceDelete(snapshot)).toBe(state === 'idle');
        expect(selectGamespaceCleanupErrors(snapshot)).toEqual(alerts);
        expect(calls).toHaveLength(confirmations);
      };
      await path.test({
        states: {
          idle: expectWarning('idle'),
          confirming: expectWarning('confirming'),
          deleting: expectWarning('deleting'),
          deleted: expectWarning('deleted'),
        },
        events: {
          REQUESTED: () => actor.send({ type: 'gamespaces.deleteRequested' }),
          CONFIRMED: () => {
            confirmations += 1;
            actor.send({ type: 'gamespaces.deleteConfirmed' });
          },
          CANCELLED: () => actor.send({ type: 'gamespaces.deleteCancelled' }),
          SUCCEEDED: async () => {
            calls.at(-1)?.resolve(undefined);
            await flush();
          },
          FAILED: async () => {
            alerts = [...alerts, 'You are not allowed to do this.'];
            calls.at(-1)?.reject({ status: 403, message: 'ActionForbidden' });
            await flush();
          },
          ALERTS_CLOSED: () => {
            for (const _ of alerts) actor.send({ type: 'gamespaces.errorDismissed', index: 0 });
            alerts = [];
          },
        },
      });
    });
  }
});

import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { Worker } from '../api/workspace';
import { collaboratorsMachine } from './collaboratorsMachine';
import {
  selectCanRequestRemoval,
  selectCollaboratorErrors,
  selectCollaborators,
  selectIsConfirmingRemoval,
  selectOnlyManagerId,
  selectIsRemoving,
  selectRemovalTargetId,
} from './collaboratorsMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const WORKERS: Worker[] = [
  { subjectId: 'u-1', subjectName: 'Creator', permission: 'manager' },
  { subjectId: 'u-2', subjectName: 'Player', permission: 'editor' },
];

function startCollaborators(workers: Worker[] = WORKERS) {
  const removals: Array<{
    input: { workspaceId: string; subjectId: string };
    result: Deferred<unknown>;
  }> = [];
  const actor = createActor(
    collaboratorsMachine.provide({
      actors: {
        removeWorker: fromPromise<unknown, { workspaceId: string; subjectId: string }>(
          ({ input }) => {
            const result = deferred<unknown>();
            removals.push({ input, result });
            return result.promise;
          },
        ),
      },
    }),
    { input: { workspaceId: 'ws-1', workers } },
  ).start();
  const names = () => selectCollaborators(actor.getSnapshot()).map((c) => c.name);
  return { actor, removals, names };
}

describe('collaboratorsMachine', () => {
  it('lists the workers with their names and permissions', () => {
    const { actor } = startCollaborators([
      ...WORKERS,
      { subjectId: 'u-3', subjectName: null, permission: 255 },
    ]);
    expect(selectCollaborators(actor.getSnapshot())).toEqual([
      { subjectId: 'u-1', name: 'Creator', permission: 'manager' },
      { subjectId: 'u-2', name: 'Player', permission: 'editor' },
      { subjectId: 'u-3', name: 'anonymous', permission: 'manager' },
    ]);
  });

  it('asks for confirmation before removing, and a cancel removes nobody', () => {
    const { actor, removals, names } = startCollaborators();
    actor.send({ type: 'collaborator.removeRequested', subjectId: 'u-2' });
    expect(selectIsConfirmingRemoval(actor.getSnapshot())).toBe(true);
    expect(selectRemovalTargetId(actor.getSnapshot())).toBe('u-2');
    expect(selectCanRequestRemoval(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'collaborator.removeCancelled' });
    expect(selectIsConfirmingRemoval(actor.getSnapshot())).toBe(false);
    expect(selectRemovalTargetId(actor.getSnapshot())).toBeNull();
    expect(removals).toHaveLength(0);
    expect(names()).toEqual(['Creator', 'Player']);
  });

  it('removes a confirmed collaborator through the server, then from the list', async () => {
    const { actor, removals, names } = startCollaborators();
    actor.send({ type: 'collaborator.removeRequested', subjectId: 'u-2' });
    actor.send({ type: 'collaborator.removeConfirmed' });
    expect(selectIsRemoving(actor.getSnapshot())).toBe(true);
    expect(removals.map((r) => r.input)).toEqual([{ workspaceId: 'ws-1', subjectId: 'u-2' }]);
    removals[0]?.result.resolve(undefined);
    await flush();
    expect(names()).toEqual(['Creator']);
    expect(selectCanRequestRemoval(actor.getSnapshot())).toBe(true);
  });

  it('does not offer to remove the only manager, whom the server would keep', () => {
    const { actor, removals } = startCollaborators();
    expect(selectOnlyManagerId(actor.getSnapshot())).toBe('u-1');
    actor.send({ type: 'collaborator.removeRequested', subjectId: 'u-1' });
    expect(selectIsConfirmingRemoval(actor.getSnapshot())).toBe(false);
    expect(removals).toHaveLength(0);
    // With a second manager, either may go.
    actor.send({
      type: 'workers.updatedRemotely',
      workers: [...WORKERS, { subjectId: 'u-3', subjectName: 'Co', permission: 255 }],
    });
    expect(selectOnlyManagerId(actor.getSnapshot())).toBeNull();
    actor.send({ type: 'collaborator.removeRequested', subjectId: 'u-1' });
    expect(selectIsConfirmingRemoval(actor.getSnapshot())).toBe(true);
  });

  it('lists a refusal (a non-manager asking) as a dismissible error and keeps the collaborator', async () => {
    const { actor, removals, names } = startCollaborators();
    actor.send({ type: 'collaborator.removeRequested', subjectId: 'u-2' });
    actor.send({ type: 'collaborator.removeConfirmed' });
    removals[0]?.result.reject({ status: 400, message: 'ActionForbidden' });
    await flush();
    expect(selectCollaboratorErrors(actor.getSnapshot())).toEqual([
      'You are not allowed to do this.',
    ]);
    expect(names()).toEqual(['Creator', 'Player']);
    actor.send({ type: 'collaborator.errorDismissed', index: 0 });
    expect(selectCollaboratorErrors(actor.getSnapshot())).toEqual([]);
  });

  it('ignores a removal request for someone not listed', () => {
    const { actor } = startCollaborators();
    actor.send({ type: 'collaborator.removeRequested', subjectId: 'u-9' });
    expect(selectIsConfirmingRemoval(actor.getSnapshot())).toBe(false);
  });

  it('replaces the list on a remote update', () => {
    const { actor, names } = startCollaborators();
    actor.send({
      type: 'workers.updatedRemotely',
      workers: [{ subjectId: 'u-1', subjectName: 'Creator', permission: 'manager' }],
    });
    expect(names()).toEqual(['Creator']);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(collaboratorsMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ workspaceId: 'ws-1', workers: WORKERS }],
        payloads: [{ type: 'collaborator.removeRequested', subjectId: 'u-2' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: Remove with its confirmation (spec §5), refusals listed until closed, and
 * the workspace's remote updates arriving at any moment. The test keeps the list it expects.
 */
describe('collaboratorsMachine against its model', () => {
  type ModelEvent =
    | { type: 'REQUESTED' }
    | { type: 'REQUESTED_UNKNOWN' }
    | { type: 'CONFIRMED' }
    | { type: 'CANCELLED' }
    | { type: 'REMOVED' }
    | { type: 'REFUSED' }
    | { type: 'UPDATED' }
    | { type: 'ALERTS_CLOSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'collaboratorsModel',
    initial: 'idle',
    states: {
      idle: {
        on: {
          REQUESTED: 'confirming',
          REQUESTED_UNKNOWN: 'idle',
          UPDATED: 'idle',
          ALERTS_CLOSED: 'idle',
        },
      },
      confirming: {
        on: {
          CONFIRMED: 'removing',
          CANCELLED: 'idle',
          UPDATED: 'confirming',
          ALERTS_CLOSED: 'confirming',
        },
      },
      removing: {
        on: { REMOVED: 'idle', REFUSED: 'idle', UPDATED: 'removing', ALERTS_CLOSED: 'removing' },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, collaboratorsMachine, {
        states: { idle: 'idle', confirming: 'confirming', removing: 'removing' },
        events: {
          REQUESTED: 'collaborator.removeRequested',
          REQUESTED_UNKNOWN: 'collaborator.removeRequested',
          CONFIRMED: 'collaborator.removeConfirmed',
          CANCELLED: 'collaborator.removeCancelled',
          REMOVED: 'xstate.done.actor.removeWorker',
          REFUSED: 'xstate.error.actor.removeWorker',
          UPDATED: 'workers.updatedRemotely',
          ALERTS_CLOSED: 'collaborator.errorDismissed',
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
      const { actor, removals, names } = startCollaborators();
      let listed = WORKERS.map((w) => w.subjectId);
      let target: string | null = null;
      let alerts: string[] = [];
      let confirmations = 0;
      const expectList = (state: 'idle' | 'confirming' | 'removing') => () => {
        const snapshot = actor.getSnapshot();
        expect(selectIsConfirmingRemoval(snapshot)).toBe(state === 'confirming');
        expect(selectIsRemoving(snapshot)).toBe(state === 'removing');
        expect(selectCanRequestRemoval(snapshot)).toBe(state === 'idle');
        expect(selectRemovalTargetId(snapshot)).toBe(state === 'idle' ? null : target);
        expect(selectCollaborators(snapshot).map((c) => c.subjectId)).toEqual(listed);
        expect(selectCollaboratorErrors(snapshot)).toEqual(alerts);
        expect(removals).toHaveLength(confirmations);
      };
      await path.test({
        states: {
          idle: expectList('idle'),
          confirming: expectList('confirming'),
          removing: expectList('removing'),
        },
        events: {
          REQUESTED: () => {
            target = listed.at(-1) ?? null;
            actor.send({ type: 'collaborator.removeRequested', subjectId: target ?? '' });
          },
          REQUESTED_UNKNOWN: () =>
            actor.send({ type: 'collaborator.removeRequested', subjectId: 'u-9' }),
          CONFIRMED: () => {
            confirmations += 1;
            actor.send({ type: 'collaborator.removeConfirmed' });
          },
          CANCELLED: () => actor.send({ type: 'collaborator.removeCancelled' }),
          REMOVED: async () => {
            listed = listed.filter((id) => id !== target);
            removals.at(-1)?.result.resolve(undefined);
            await flush();
          },
          REFUSED: async () => {
            alerts = [...alerts, 'You are not allowed to do this.'];
            removals.at(-1)?.result.reject({ status: 400, message: 'ActionForbidden' });
            await flush();
          },
          // Someone else's change: one more collaborator, the target still listed.
          UPDATED: () => {
            const workers = [
              ...WORKERS,
              { subjectId: 'u-3', subjectName: 'Guest', permission: 'editor' },
            ];
            listed = workers.map((w) => w.subjectId);
            actor.send({ type: 'workers.updatedRemotely', workers });
          },
          ALERTS_CLOSED: () => {
            for (const _ of alerts) actor.send({ type: 'collaborator.errorDismissed', index: 0 });
            alerts = [];
          },
        },
      });
      expect(names()).toHaveLength(listed.length);
    });
  }
});

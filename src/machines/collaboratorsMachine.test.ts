import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { Worker } from '../api/workspace';
import { collaboratorsMachine } from './collaboratorsMachine';
import {
  selectCanRequestRemoval,
  selectCollaboratorErrors,
  selectCollaborators,
  selectIsConfirmingRemoval,
  selectIsRemoving,
  selectRemovalTargetId,
} from './collaboratorsMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
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

  it('lists a refusal (the last manager) as a dismissible error and keeps the collaborator', async () => {
    const { actor, removals, names } = startCollaborators();
    actor.send({ type: 'collaborator.removeRequested', subjectId: 'u-1' });
    actor.send({ type: 'collaborator.removeConfirmed' });
    removals[0]?.result.reject({ status: 400, message: 'ActionForbidden' });
    await flush();
    expect(selectCollaboratorErrors(actor.getSnapshot())).toEqual(['Action Forbidden']);
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

import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { flush } from './testing/deferred';
import { unreachedStateIds } from './testing/reachability';
import { workspaceActionsMachine } from './workspaceActionsMachine';
import {
  selectCanRequestWorkspaceAction,
  selectIsWorkspaceActionBusy,
  selectPendingWorkspaceAction,
  selectWorkspaceActionErrors,
} from './workspaceActionsMachine.selectors';

type Outcome = 'ok' | { reject: unknown };

function startActions({ clone = 'ok', remove = 'ok' }: { clone?: Outcome; remove?: Outcome } = {}) {
  const calls: string[] = [];
  const navigations: string[] = [];
  const settle = async (outcome: Outcome) => {
    if (outcome !== 'ok') throw outcome.reject;
  };
  const actor = createActor(
    workspaceActionsMachine.provide({
      actors: {
        cloneWorkspace: fromPromise<{ id: string }, { workspaceId: string }>(async ({ input }) => {
          calls.push(`clone ${input.workspaceId}`);
          await settle(clone);
          return { id: 'ws-2' };
        }),
        deleteWorkspace: fromPromise<unknown, { workspaceId: string }>(async ({ input }) => {
          calls.push(`delete ${input.workspaceId}`);
          await settle(remove);
        }),
      },
      actions: {
        navigateToWorkspace: (_, { workspaceId }) => navigations.push(`/topo/${workspaceId}`),
        navigateHome: () => navigations.push('/'),
      },
    }),
    { input: { workspaceId: 'ws-1' } },
  ).start();
  return { actor, calls, navigations };
}

const confirm = { type: 'workspace.actionConfirmed' } as const;

describe('workspaceActionsMachine', () => {
  it('asks before cloning, then opens the copy', async () => {
    const { actor, calls, navigations } = startActions();
    actor.send({ type: 'workspace.cloneRequested' });
    expect(selectPendingWorkspaceAction(actor.getSnapshot())).toBe('clone');
    expect(calls).toEqual([]);
    actor.send(confirm);
    expect(selectIsWorkspaceActionBusy(actor.getSnapshot())).toBe(true);
    await flush();
    expect(calls).toEqual(['clone ws-1']);
    expect(navigations).toEqual(['/topo/ws-2']);
  });

  it('asks before deleting, then goes home', async () => {
    const { actor, calls, navigations } = startActions();
    actor.send({ type: 'workspace.deleteRequested' });
    expect(selectPendingWorkspaceAction(actor.getSnapshot())).toBe('delete');
    actor.send(confirm);
    await flush();
    expect(calls).toEqual(['delete ws-1']);
    expect(navigations).toEqual(['/']);
  });

  it('does nothing when the confirmation is cancelled', () => {
    const { actor, calls } = startActions();
    actor.send({ type: 'workspace.deleteRequested' });
    actor.send({ type: 'workspace.actionCancelled' });
    expect(selectPendingWorkspaceAction(actor.getSnapshot())).toBeNull();
    expect(selectCanRequestWorkspaceAction(actor.getSnapshot())).toBe(true);
    expect(calls).toEqual([]);
  });

  it('lists failures in the error box, camel-case split, until dismissed', async () => {
    const { actor, navigations } = startActions({
      clone: { reject: { status: 400, message: 'WorkspaceLimitReached' } },
      remove: { reject: { status: 403, message: 'ActionForbidden' } },
    });
    actor.send({ type: 'workspace.cloneRequested' });
    actor.send(confirm);
    await flush();
    actor.send({ type: 'workspace.deleteRequested' });
    actor.send(confirm);
    await flush();
    expect(selectWorkspaceActionErrors(actor.getSnapshot())).toEqual([
      'Workspace Limit Reached',
      'Action Forbidden',
    ]);
    expect(navigations).toEqual([]);
    actor.send({ type: 'workspace.actionErrorDismissed', index: 0 });
    expect(selectWorkspaceActionErrors(actor.getSnapshot())).toEqual(['Action Forbidden']);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(workspaceActionsMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ workspaceId: 'ws-1' }],
      }),
    ).toEqual([]);
  });
});

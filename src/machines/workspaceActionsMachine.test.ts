import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
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
  /** Each time the machine told the app (the sidebar) that the user's workspaces changed. */
  const announcements: string[] = [];
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
        announceWorkspacesChanged: () => announcements.push('changed'),
      },
    }),
    { input: { workspaceId: 'ws-1' } },
  ).start();
  return { actor, calls, navigations, announcements };
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

  it('tells the sidebar of a clone and of a delete once done, and of nothing that failed', async () => {
    const cloned = startActions();
    cloned.actor.send({ type: 'workspace.cloneRequested' });
    cloned.actor.send(confirm);
    expect(cloned.announcements).toEqual([]);
    await flush();
    expect(cloned.announcements).toEqual(['changed']);

    const deleted = startActions();
    deleted.actor.send({ type: 'workspace.deleteRequested' });
    deleted.actor.send(confirm);
    await flush();
    expect(deleted.announcements).toEqual(['changed']);

    const failed = startActions({
      remove: { reject: { status: 403, message: 'ActionForbidden' } },
    });
    failed.actor.send({ type: 'workspace.deleteRequested' });
    failed.actor.send(confirm);
    await flush();
    expect(failed.announcements).toEqual([]);
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
      'You have as many workspaces as you are allowed: delete one before creating another.',
      'You are not allowed to do this.',
    ]);
    expect(navigations).toEqual([]);
    actor.send({ type: 'workspace.actionErrorDismissed', index: 0 });
    expect(selectWorkspaceActionErrors(actor.getSnapshot())).toEqual([
      'You are not allowed to do this.',
    ]);
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

/**
 * Model-based test: Clone and Delete (spec §5 "Confirmation is required", §8), with the other
 * button pressed while one is being confirmed, and failures listed until closed. It checks what
 * the view reads, that only a confirmation calls the server, and where the page goes.
 */
describe('workspaceActionsMachine against its model', () => {
  type ModelEvent =
    | { type: 'CLONE_REQUESTED' }
    | { type: 'DELETE_REQUESTED' }
    | { type: 'CONFIRMED' }
    | { type: 'CANCELLED' }
    | { type: 'SUCCEEDED' }
    | { type: 'FAILED' }
    | { type: 'ALERTS_CLOSED' };

  const confirming = (own: string) => ({
    on: {
      CONFIRMED: own === 'confirmingClone' ? 'cloning' : 'deleting',
      CANCELLED: 'idle',
      CLONE_REQUESTED: own,
      DELETE_REQUESTED: own,
      ALERTS_CLOSED: own,
    },
  });
  const carrying = (own: string, done: string) => ({
    on: { SUCCEEDED: done, FAILED: 'idle', ALERTS_CLOSED: own },
  });

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'workspaceActionsModel',
    initial: 'idle',
    states: {
      idle: {
        on: {
          CLONE_REQUESTED: 'confirmingClone',
          DELETE_REQUESTED: 'confirmingDelete',
          ALERTS_CLOSED: 'idle',
        },
      },
      confirmingClone: confirming('confirmingClone'),
      cloning: carrying('cloning', 'cloned'),
      confirmingDelete: confirming('confirmingDelete'),
      deleting: carrying('deleting', 'deleted'),
      cloned: { type: 'final' },
      deleted: { type: 'final' },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, workspaceActionsMachine, {
        states: {
          idle: 'idle',
          confirmingClone: 'confirmingClone',
          cloning: 'cloning',
          confirmingDelete: 'confirmingDelete',
          deleting: 'deleting',
          cloned: 'done',
          deleted: 'done',
        },
        events: {
          CLONE_REQUESTED: 'workspace.cloneRequested',
          DELETE_REQUESTED: 'workspace.deleteRequested',
          CONFIRMED: 'workspace.actionConfirmed',
          CANCELLED: 'workspace.actionCancelled',
          SUCCEEDED: ['xstate.done.actor.cloneWorkspace', 'xstate.done.actor.deleteWorkspace'],
          FAILED: ['xstate.error.actor.cloneWorkspace', 'xstate.error.actor.deleteWorkspace'],
          ALERTS_CLOSED: 'workspace.actionErrorDismissed',
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
      const calls: Array<{ name: string; result: Deferred<unknown> }> = [];
      const call = (name: string) => () => {
        const result = deferred<unknown>();
        calls.push({ name, result });
        return result.promise;
      };
      const navigations: string[] = [];
      const actor = createActor(
        workspaceActionsMachine.provide({
          actors: {
            cloneWorkspace: fromPromise<{ id: string }, { workspaceId: string }>(async () => {
              await call('clone')();
              return { id: 'ws-2' };
            }),
            deleteWorkspace: fromPromise<unknown, { workspaceId: string }>(call('delete')),
          },
          actions: {
            navigateToWorkspace: (_, { workspaceId }) => navigations.push(`/topo/${workspaceId}`),
            navigateHome: () => navigations.push('/'),
            announceWorkspacesChanged: () => undefined,
          },
        }),
        { input: { workspaceId: 'ws-1' } },
      ).start();
      let alerts: string[] = [];
      const confirmed: string[] = [];
      /** What the model says is being confirmed: a confirmation calls that. */
      let confirming: 'clone' | 'delete' | null = null;
      const expectButtons =
        (pending: 'clone' | 'delete' | null, busy: boolean, went: string[] = []) =>
        () => {
          confirming = pending;
          const snapshot = actor.getSnapshot();
          expect(selectPendingWorkspaceAction(snapshot)).toBe(pending);
          expect(selectIsWorkspaceActionBusy(snapshot)).toBe(busy);
          expect(selectCanRequestWorkspaceAction(snapshot)).toBe(
            pending === null && !busy && went.length === 0,
          );
          expect(selectWorkspaceActionErrors(snapshot)).toEqual(alerts);
          expect(calls.map((c) => c.name)).toEqual(confirmed);
          expect(navigations).toEqual(went);
        };
      await path.test({
        states: {
          idle: expectButtons(null, false),
          confirmingClone: expectButtons('clone', false),
          cloning: expectButtons(null, true),
          confirmingDelete: expectButtons('delete', false),
          deleting: expectButtons(null, true),
          cloned: expectButtons(null, false, ['/topo/ws-2']),
          deleted: expectButtons(null, false, ['/']),
        },
        events: {
          CLONE_REQUESTED: () => actor.send({ type: 'workspace.cloneRequested' }),
          DELETE_REQUESTED: () => actor.send({ type: 'workspace.deleteRequested' }),
          CONFIRMED: () => {
            if (confirming) confirmed.push(confirming);
            actor.send(confirm);
          },
          CANCELLED: () => actor.send({ type: 'workspace.actionCancelled' }),
          SUCCEEDED: async () => {
            calls.at(-1)?.result.resolve(undefined);
            await flush();
          },
          FAILED: async () => {
            alerts = [...alerts, 'You are not allowed to do this.'];
            calls.at(-1)?.result.reject({ status: 403, message: 'ActionForbidden' });
            await flush();
          },
          ALERTS_CLOSED: () => {
            for (const _ of alerts) {
              actor.send({ type: 'workspace.actionErrorDismissed', index: 0 });
            }
            alerts = [];
          },
        },
      });
    });
  }
});

import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { newWorkspaceMachine, type CreatedWorkspace } from './newWorkspaceMachine';
import {
  selectCanCreate,
  selectCreateErrors,
  selectIsCreating,
} from './newWorkspaceMachine.selectors';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Each create call takes the next outcome: a workspace, or a rejection reason. */
function startNewWorkspace(...outcomes: (CreatedWorkspace | { reject: unknown })[]) {
  const navigations: string[] = [];
  let calls = 0;
  const actor = createActor(
    newWorkspaceMachine.provide({
      actors: {
        createWorkspace: fromPromise<CreatedWorkspace, void>(async () => {
          const outcome = outcomes[calls++];
          if (!outcome) throw new Error('unexpected call');
          if ('reject' in outcome) throw outcome.reject;
          return outcome;
        }),
      },
      actions: { navigateToWorkspace: (_, { workspace }) => navigations.push(workspace.id) },
    }),
  ).start();
  const view = () => {
    const snapshot = actor.getSnapshot();
    return {
      state: snapshot.value,
      creating: selectIsCreating(snapshot),
      canCreate: selectCanCreate(snapshot),
      errors: selectCreateErrors(snapshot),
    };
  };
  return { actor, navigations, view, calls: () => calls };
}

const create = { type: 'workspace.createRequested' } as const;
const dismiss = (index: number) => ({ type: 'workspace.errorDismissed', index }) as const;

describe('newWorkspaceMachine', () => {
  it('creates a workspace and opens it', async () => {
    const { actor, navigations, view } = startNewWorkspace({ id: 'ws-1' });
    expect(view()).toEqual({ state: 'idle', creating: false, canCreate: true, errors: [] });
    actor.send(create);
    expect(view()).toMatchObject({ state: 'creating', creating: true, canCreate: false });
    await flush();
    expect(view().state).toBe('created');
    expect(actor.getSnapshot().context.created).toEqual({ id: 'ws-1' });
    expect(navigations).toEqual(['ws-1']);
  });

  it('does not start a second creation while one is in flight', async () => {
    const { actor, calls } = startNewWorkspace({ id: 'ws-1' });
    actor.send(create);
    actor.send(create);
    await flush();
    expect(calls()).toBe(1);
  });

  it('lists failures with camel-case words split, the server message first', async () => {
    const { actor, navigations, view } = startNewWorkspace(
      { reject: { status: 400, message: 'WorkspaceLimitReached' } },
      { reject: { error: { message: 'ActionForbidden' }, message: 'Http failure' } },
    );
    actor.send(create);
    await flush();
    expect(view()).toEqual({
      state: 'failed',
      creating: false,
      canCreate: true,
      errors: ['Workspace Limit Reached'],
    });
    actor.send(create);
    await flush();
    expect(view().errors).toEqual(['Workspace Limit Reached', 'Action Forbidden']);
    expect(navigations).toEqual([]);
  });

  it('closes alerts one by one, and is idle once none is left', async () => {
    const { actor, view } = startNewWorkspace(
      { reject: { message: 'First' } },
      { reject: { message: 'Second' } },
    );
    actor.send(create);
    await flush();
    actor.send(create);
    await flush();
    actor.send(dismiss(0));
    expect(view()).toMatchObject({ state: 'failed', errors: ['Second'] });
    actor.send(dismiss(0));
    expect(view()).toMatchObject({ state: 'idle', errors: [] });
  });

  it('keeps earlier alerts during a new attempt and lets them be closed meanwhile', async () => {
    const { actor, navigations, view } = startNewWorkspace(
      { reject: { message: 'ResourceNotFound' } },
      { id: 'ws-2' },
    );
    actor.send(create);
    await flush();
    actor.send(create);
    expect(view()).toMatchObject({ state: 'creating', errors: ['Resource Not Found'] });
    actor.send(dismiss(0));
    expect(view()).toMatchObject({ state: 'creating', errors: [] });
    await flush();
    expect(navigations).toEqual(['ws-2']);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(newWorkspaceMachine, { serializeState: (s) => JSON.stringify(s.value) }),
    ).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import { newWorkspaceMachine, type CreatedWorkspace } from './newWorkspaceMachine';
import {
  selectCanCreate,
  selectCreateErrors,
  selectIsCreating,
} from './newWorkspaceMachine.selectors';
import { deferred, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Each create call takes the next outcome: a workspace, or a rejection reason. */
function startNewWorkspace(...outcomes: (CreatedWorkspace | { reject: unknown })[]) {
  const navigations: string[] = [];
  /** Each time the machine told the app (the sidebar) that the user's workspaces changed. */
  const announcements: string[] = [];
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
      actions: {
        navigateToWorkspace: (_, { workspace }) => navigations.push(workspace.id),
        announceWorkspacesChanged: () => announcements.push('changed'),
      },
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
  return { actor, navigations, announcements, view, calls: () => calls };
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

  it('tells the sidebar once the workspace exists, and not when the creation fails', async () => {
    const { actor, announcements } = startNewWorkspace(
      { reject: { message: 'ActionForbidden' } },
      { id: 'ws-1' },
    );
    actor.send(create);
    await flush();
    expect(announcements).toEqual([]);
    actor.send(create);
    expect(announcements).toEqual([]);
    await flush();
    expect(announcements).toEqual(['changed']);
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
      errors: [
        'You have as many workspaces as you are allowed: delete one before creating another.',
      ],
    });
    actor.send(create);
    await flush();
    expect(view().errors).toEqual([
      'You have as many workspaces as you are allowed: delete one before creating another.',
      'You are not allowed to do this.',
    ]);
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
    expect(view()).toMatchObject({
      state: 'creating',
      errors: ['It was not found: it may have been deleted.'],
    });
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

/**
 * Model-based test: the button with its alerts. Alerts are abstracted as none or some; closing
 * them all is one step. The test keeps the alerts it expects and checks them, the spinner and
 * that each entry into `creating` is one call.
 */
describe('newWorkspaceMachine against its model', () => {
  type ModelEvent =
    { type: 'CREATE' } | { type: 'SUCCEEDED' } | { type: 'FAILED' } | { type: 'ALERTS_CLOSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'newWorkspaceModel',
    initial: 'idle',
    states: {
      idle: { on: { CREATE: 'creating', ALERTS_CLOSED: 'idle' } },
      creating: {
        on: {
          CREATE: 'creating',
          SUCCEEDED: 'created',
          FAILED: 'failed',
          ALERTS_CLOSED: 'creating',
        },
      },
      failed: { on: { CREATE: 'creatingWithAlerts', ALERTS_CLOSED: 'idle' } },
      creatingWithAlerts: {
        on: {
          CREATE: 'creatingWithAlerts',
          SUCCEEDED: 'created',
          FAILED: 'failed',
          ALERTS_CLOSED: 'creating',
        },
      },
      created: { type: 'final' },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, newWorkspaceMachine, {
        states: {
          idle: 'idle',
          creating: 'creating',
          creatingWithAlerts: 'creating',
          failed: 'failed',
          created: 'created',
        },
        events: {
          CREATE: 'workspace.createRequested',
          SUCCEEDED: 'xstate.done.actor.createWorkspace',
          FAILED: 'xstate.error.actor.createWorkspace',
          ALERTS_CLOSED: 'workspace.errorDismissed',
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
      const calls: Deferred<CreatedWorkspace>[] = [];
      const navigations: string[] = [];
      const actor = createActor(
        newWorkspaceMachine.provide({
          actors: {
            createWorkspace: fromPromise<CreatedWorkspace, void>(() => {
              const call = deferred<CreatedWorkspace>();
              calls.push(call);
              return call.promise;
            }),
          },
          actions: {
            navigateToWorkspace: (_, { workspace }) => navigations.push(workspace.id),
            announceWorkspacesChanged: () => undefined,
          },
        }),
      ).start();
      let alerts: string[] = [];
      let callsExpected = 0;
      let previous = 'idle';
      const expectButton = (modelState: string, state: string, creating: boolean) => () => {
        const entered = previous !== modelState;
        if (creating && entered && !previous.startsWith('creating')) callsExpected += 1;
        previous = modelState;
        const snapshot = actor.getSnapshot();
        expect(snapshot.value).toBe(state);
        expect(selectIsCreating(snapshot)).toBe(creating);
        expect(selectCanCreate(snapshot)).toBe(!creating && state !== 'created');
        expect(selectCreateErrors(snapshot)).toEqual(alerts);
        expect(calls).toHaveLength(callsExpected);
        expect(navigations).toEqual(state === 'created' ? ['ws-1'] : []);
      };
      await path.test({
        states: {
          idle: expectButton('idle', 'idle', false),
          creating: expectButton('creating', 'creating', true),
          creatingWithAlerts: expectButton('creatingWithAlerts', 'creating', true),
          failed: expectButton('failed', 'failed', false),
          created: expectButton('created', 'created', false),
        },
        events: {
          CREATE: () => actor.send(create),
          SUCCEEDED: async () => {
            calls.at(-1)?.resolve({ id: 'ws-1' });
            await flush();
          },
          FAILED: async () => {
            alerts = [...alerts, `Failure ${calls.length}`];
            calls.at(-1)?.reject({ message: `Failure ${calls.length}` });
            await flush();
          },
          ALERTS_CLOSED: () => {
            for (const _ of alerts) actor.send(dismiss(0));
            alerts = [];
          },
        },
      });
    });
  }
});

import { describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { modelDisagreements } from '../../src/machines/testing/modelAgreement';
import { modelPaths, transitionCoverage } from '../../src/machines/testing/modelPaths';
import { unreachedStateIds } from '../../src/machines/testing/reachability';
import {
  clampProgress,
  deployMachine,
  deployTaskOf,
  isOver,
  startDeploy,
  type DeployEvent,
  type DeployState,
} from './deploy';

const STARTED = 1_700_000_000_000;
const start = () => startDeploy({ taskId: 'task-1', started: STARTED });
const taskOf = (actor: ReturnType<typeof start>) => deployTaskOf(actor.getSnapshot());

/** One event of each type, as a driver sends it. */
const EVENTS: Record<DeployEvent['type'], DeployEvent> = {
  'deploy.queued': { type: 'deploy.queued', ahead: 2 },
  'deploy.copyStarted': { type: 'deploy.copyStarted' },
  'deploy.cloneStarted': { type: 'deploy.cloneStarted' },
  'deploy.progressed': { type: 'deploy.progressed', percent: 42 },
  'deploy.copied': { type: 'deploy.copied' },
  'deploy.cloned': { type: 'deploy.cloned' },
  'deploy.configured': { type: 'deploy.configured', starts: true },
  'deploy.started': { type: 'deploy.started' },
  'deploy.failed': { type: 'deploy.failed', error: 'no room' },
  'deploy.cancelRequested': { type: 'deploy.cancelRequested' },
};

/** The shortest way a driver brings a deploy into each state. */
const TO: Record<DeployState, DeployEvent['type'][]> = {
  queued: [],
  copying: ['deploy.copyStarted'],
  cloning: ['deploy.cloneStarted'],
  configuring: ['deploy.cloneStarted', 'deploy.cloned'],
  starting: ['deploy.copyStarted', 'deploy.copied', 'deploy.configured'],
  running: ['deploy.copyStarted', 'deploy.copied', 'deploy.configured', 'deploy.started'],
  failed: ['deploy.failed'],
  cancelled: ['deploy.cancelRequested'],
};

/** Where each event takes a deploy from each state; a state an event leaves alone is absent. */
const MOVES: Record<DeployState, Partial<Record<DeployEvent['type'], DeployState>>> = {
  queued: {
    'deploy.queued': 'queued',
    'deploy.copyStarted': 'copying',
    'deploy.cloneStarted': 'cloning',
    'deploy.progressed': 'queued',
    'deploy.failed': 'failed',
    'deploy.cancelRequested': 'cancelled',
  },
  copying: {
    'deploy.copied': 'configuring',
    'deploy.progressed': 'copying',
    'deploy.failed': 'failed',
    'deploy.cancelRequested': 'cancelled',
  },
  cloning: {
    'deploy.cloned': 'configuring',
    'deploy.progressed': 'cloning',
    'deploy.failed': 'failed',
    'deploy.cancelRequested': 'cancelled',
  },
  configuring: {
    'deploy.configured': 'starting',
    'deploy.progressed': 'configuring',
    'deploy.failed': 'failed',
    'deploy.cancelRequested': 'cancelled',
  },
  starting: {
    'deploy.started': 'running',
    'deploy.progressed': 'starting',
    'deploy.failed': 'failed',
    'deploy.cancelRequested': 'cancelled',
  },
  running: {},
  failed: {},
  cancelled: {},
};

describe('deployMachine', () => {
  it('shows a deploy not yet under way as deploying, from the time it was given', () => {
    expect(taskOf(start())).toEqual({
      id: 'task-1',
      name: 'deploying',
      progress: 0,
      started: STARTED,
    });
  });

  it('shows its place in the clone queue, then cloning through configuring and starting', () => {
    const deploy = start();
    deploy.send({ type: 'deploy.queued', ahead: 3 });
    expect(taskOf(deploy)?.name).toBe('queued (3 ahead)');
    deploy.send({ type: 'deploy.queued', ahead: 1 });
    expect(taskOf(deploy)?.name).toBe('queued (1 ahead)');
    deploy.send({ type: 'deploy.queued', ahead: 0 });
    expect(taskOf(deploy)?.name).toBe('deploying');
    deploy.send({ type: 'deploy.cloneStarted' });
    deploy.send({ type: 'deploy.progressed', percent: 40.4 });
    expect(taskOf(deploy)).toMatchObject({ name: 'cloning', progress: 40 });
    deploy.send({ type: 'deploy.cloned' });
    deploy.send({ type: 'deploy.progressed', percent: 80 });
    expect(taskOf(deploy)).toMatchObject({ name: 'cloning', progress: 80 });
    deploy.send({ type: 'deploy.configured', starts: true });
    expect(deploy.getSnapshot().value).toBe('starting');
    expect(taskOf(deploy)).toMatchObject({ name: 'cloning', progress: 80 });
    deploy.send({ type: 'deploy.started' });
    expect(deploy.getSnapshot().value).toBe('running');
    expect(taskOf(deploy)).toBeNull();
  });

  it('is deployed once configured when its template leaves it off', () => {
    const deploy = start();
    deploy.send({ type: 'deploy.copyStarted' });
    deploy.send({ type: 'deploy.copied' });
    deploy.send({ type: 'deploy.configured', starts: false });
    expect(deploy.getSnapshot().value).toBe('running');
    expect(isOver(deploy.getSnapshot())).toBe(true);
  });

  it('keeps progress a whole number below 100 while under way', () => {
    expect([-5, 0, 12.5, 99.6, 100, 250].map(clampProgress)).toEqual([0, 0, 13, 99, 99, 99]);
  });

  it('remembers why it failed', () => {
    const deploy = start();
    deploy.send({ type: 'deploy.cloneStarted' });
    deploy.send({ type: 'deploy.failed', error: 'the template is locked' });
    expect(deploy.getSnapshot().value).toBe('failed');
    expect(deploy.getSnapshot().context.error).toBe('the template is locked');
    expect(taskOf(deploy)).toBeNull();
  });

  it('ignores progress, steps and a failure once cancelled, and keeps its task', () => {
    const deploy = start();
    deploy.send({ type: 'deploy.cloneStarted' });
    deploy.send({ type: 'deploy.progressed', percent: 30 });
    deploy.send({ type: 'deploy.cancelRequested' });
    for (const event of Object.values(EVENTS)) deploy.send(event);
    const after = deploy.getSnapshot();
    expect(after.value).toBe('cancelled');
    expect(after.context).toMatchObject({ progress: 30, error: null });
    expect(isOver(after)).toBe(true);
    // Its machine shows it until the driver has removed what it made.
    expect(deployTaskOf(after)).toMatchObject({ name: 'cloning', progress: 30 });
  });

  it('keeps the place in the queue a deploy was cancelled at', () => {
    const deploy = start();
    deploy.send({ type: 'deploy.queued', ahead: 4 });
    deploy.send({ type: 'deploy.cancelRequested' });
    expect(taskOf(deploy)?.name).toBe('queued (4 ahead)');
  });

  it('restores a stored deploy and derives its task the same way', () => {
    const snapshot = deployMachine.resolveState({
      value: 'copying',
      context: {
        taskId: 'row-task',
        started: STARTED,
        method: 'copy',
        ahead: null,
        progress: 55,
        error: null,
      },
    });
    expect(deployTaskOf(snapshot)).toEqual({
      id: 'row-task',
      name: 'deploying',
      progress: 55,
      started: STARTED,
    });
  });

  // Every state against every event: what a driver may send at any time is either a move the
  // table lists or changes nothing at all.
  for (const [state, path] of Object.entries(TO) as [DeployState, DeployEvent['type'][]][]) {
    for (const event of Object.values(EVENTS)) {
      const target = MOVES[state][event.type];
      it(`${state} ${target ? `moves to ${target}` : 'ignores'} on ${event.type}`, () => {
        const deploy = start();
        for (const step of path) deploy.send(EVENTS[step]);
        expect(deploy.getSnapshot().value).toBe(state);
        const before = deploy.getSnapshot();
        deploy.send(event);
        const after = deploy.getSnapshot();
        if (target) {
          expect(after.value).toBe(target);
        } else {
          expect(after.value).toBe(state);
          expect(after.context).toEqual(before.context);
        }
      });
    }
  }
});

/**
 * Model-based test: every transition of the deploy walked, and the task a machine shows checked
 * after each step against what the steps so far mean for it.
 */
describe('deployMachine against its model', () => {
  type ModelEvent =
    | { type: 'QUEUED' }
    | { type: 'COPY' }
    | { type: 'CLONE' }
    | { type: 'PROGRESS' }
    | { type: 'COPIED' }
    | { type: 'CLONED' }
    | { type: 'CONFIGURED_STARTING' }
    | { type: 'CONFIGURED_OFF' }
    | { type: 'STARTED' }
    | { type: 'FAIL' }
    | { type: 'CANCEL' };

  // Progress moves no state: a self-loop, which the paths walk like any other transition.
  const underWay = (state: string) => ({ PROGRESS: state, FAIL: 'failed', CANCEL: 'cancelled' });
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'deployModel',
    initial: 'queued',
    states: {
      queued: {
        on: { ...underWay('queued'), QUEUED: 'queued', COPY: 'copying', CLONE: 'cloning' },
      },
      copying: { on: { ...underWay('copying'), COPIED: 'configuring' } },
      cloning: { on: { ...underWay('cloning'), CLONED: 'configuring' } },
      configuring: {
        on: {
          ...underWay('configuring'),
          CONFIGURED_STARTING: 'starting',
          CONFIGURED_OFF: 'running',
        },
      },
      starting: { on: { ...underWay('starting'), STARTED: 'running' } },
      running: { type: 'final' },
      failed: { type: 'final' },
      cancelled: { type: 'final' },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, deployMachine, {
        states: Object.fromEntries(Object.keys(TO).map((s) => [s, s])),
        events: {
          QUEUED: 'deploy.queued',
          COPY: 'deploy.copyStarted',
          CLONE: 'deploy.cloneStarted',
          PROGRESS: 'deploy.progressed',
          COPIED: 'deploy.copied',
          CLONED: 'deploy.cloned',
          CONFIGURED_STARTING: 'deploy.configured',
          CONFIGURED_OFF: 'deploy.configured',
          STARTED: 'deploy.started',
          FAIL: 'deploy.failed',
          CANCEL: 'deploy.cancelRequested',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('reaches every state of the real machine from a new deploy', () => {
    expect(
      unreachedStateIds(deployMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ taskId: 'task-1', started: STARTED }],
        // A configured deploy starts or not as its template says: both are sent.
        payloads: [...Object.values(EVENTS), { type: 'deploy.configured', starts: false }],
      }),
    ).toEqual([]);
  });

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const deploy = createActor(deployMachine, {
        input: { taskId: 'task-7', started: STARTED },
      }).start();
      let name = 'deploying';
      let progress = 0;
      let ahead = 0;
      const expectTask =
        (state: DeployState, over = false) =>
        () => {
          const snapshot = deploy.getSnapshot();
          expect(snapshot.value).toBe(state);
          expect(isOver(snapshot)).toBe(over);
          // Only a deploy that ended running or failed shows no task any more.
          const ended = state === 'running' || state === 'failed';
          expect(deployTaskOf(snapshot)).toEqual(
            ended ? null : { id: 'task-7', name, progress, started: STARTED },
          );
        };
      await path.test({
        states: {
          queued: expectTask('queued'),
          copying: expectTask('copying'),
          cloning: expectTask('cloning'),
          configuring: expectTask('configuring'),
          starting: expectTask('starting'),
          running: expectTask('running', true),
          failed: expectTask('failed', true),
          cancelled: expectTask('cancelled', true),
        },
        events: {
          QUEUED: () => {
            ahead += 1;
            name = `queued (${ahead} ahead)`;
            deploy.send({ type: 'deploy.queued', ahead });
          },
          COPY: () => {
            name = 'deploying';
            deploy.send({ type: 'deploy.copyStarted' });
          },
          CLONE: () => {
            name = 'cloning';
            deploy.send({ type: 'deploy.cloneStarted' });
          },
          PROGRESS: () => {
            progress += 10;
            deploy.send({ type: 'deploy.progressed', percent: progress });
          },
          COPIED: () => deploy.send({ type: 'deploy.copied' }),
          CLONED: () => deploy.send({ type: 'deploy.cloned' }),
          CONFIGURED_STARTING: () => deploy.send({ type: 'deploy.configured', starts: true }),
          CONFIGURED_OFF: () => deploy.send({ type: 'deploy.configured', starts: false }),
          STARTED: () => deploy.send({ type: 'deploy.started' }),
          FAIL: () => deploy.send({ type: 'deploy.failed', error: 'no room' }),
          CANCEL: () => deploy.send({ type: 'deploy.cancelRequested' }),
        },
      });
    });
  }
});

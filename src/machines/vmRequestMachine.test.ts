import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { Vm, VmOperation } from '../api/vm';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import { vmRequestMachine, type VmRequest } from './vmRequestMachine';

const running: Vm = { id: 'vm-1', name: 'web-01#ws-1', status: 'deployed', state: 'running' };

interface Call {
  kind: 'initializeTemplate' | 'deployTemplate' | 'changeVmState';
  input: unknown;
  answer: Deferred<unknown>;
}

/** One request, its call waiting for the test to answer it. */
function startRequest(request: VmRequest) {
  const calls: Call[] = [];
  const call = <T, I>(kind: Call['kind']) =>
    fromPromise<T, I>(({ input }) => {
      const answer = deferred<unknown>();
      calls.push({ kind, input, answer });
      return answer.promise as Promise<T>;
    });
  const actor = createActor(
    vmRequestMachine.provide({
      actors: {
        initializeTemplate: call<number, { templateId: string }>('initializeTemplate'),
        deployTemplate: call<Vm, { templateId: string }>('deployTemplate'),
        changeVmState: call<Vm, VmOperation>('changeVmState'),
      },
    }),
    { input: { request, templateId: 'tm-1', vmId: 'vm-1' } },
  );
  // Its parent hears of a failure; here the test reads it from the snapshot.
  actor.subscribe({ error: () => undefined });
  actor.start();
  const answer = async (value: unknown) => {
    calls.at(-1)?.answer.resolve(value);
    await flush();
  };
  const fail = async (error: unknown) => {
    calls.at(-1)?.answer.reject(error);
    await flush();
  };
  return { actor, calls, answer, fail };
}

describe('vmRequestMachine', () => {
  it("initializes the template's disks and answers with the copy's progress", async () => {
    const r = startRequest('initialize');
    expect(r.calls.map((c) => [c.kind, c.input])).toEqual([
      ['initializeTemplate', { templateId: 'tm-1' }],
    ]);
    await r.answer(30);
    expect(r.actor.getSnapshot().status).toBe('done');
    expect(r.actor.getSnapshot().output).toEqual({ request: 'initialize', progress: 30 });
  });

  it('deploys the template and answers with the deployed machine', async () => {
    const r = startRequest('deploy');
    expect(r.calls.map((c) => [c.kind, c.input])).toEqual([
      ['deployTemplate', { templateId: 'tm-1' }],
    ]);
    await r.answer(running);
    expect(r.actor.getSnapshot().output).toEqual({ request: 'deploy', vm: running });
  });

  it.each(['start', 'stop', 'save', 'revert', 'delete'] as const)(
    'sends %s as a state change of the machine by its id',
    async (request) => {
      const r = startRequest(request);
      expect(r.calls.map((c) => [c.kind, c.input])).toEqual([
        ['changeVmState', { id: 'vm-1', type: request }],
      ]);
      await r.answer(null);
      expect(r.actor.getSnapshot().output).toEqual({ request, vm: null });
    },
  );

  it("fails with the call's own error, for its parent to list", async () => {
    const r = startRequest('stop');
    const refusal = { status: 400, message: 'WorkspaceNotIsolated' };
    await r.fail(refusal);
    expect(r.actor.getSnapshot().status).toBe('error');
    expect(r.actor.getSnapshot().error).toBe(refusal);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(vmRequestMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: (['initialize', 'deploy', 'start'] as const).map((request) => ({
          request,
          templateId: 'tm-1',
          vmId: 'vm-1',
        })),
      }),
    ).toEqual([]);
  });
});

describe('vmRequestMachine against an abstract model', () => {
  // The request is chosen by the input; the server answers it or refuses it.
  const model = createMachine({
    id: 'vmRequestModel',
    initial: 'chosen',
    states: {
      chosen: { on: { INITIALIZE: 'copying', DEPLOY: 'deploying', CHANGE: 'changing' } },
      copying: { on: { ANSWERED: 'answered', REFUSED: 'failed' } },
      deploying: { on: { ANSWERED: 'answered', REFUSED: 'failed' } },
      changing: { on: { ANSWERED: 'answered', REFUSED: 'failed' } },
      answered: {},
      failed: {},
    },
  });
  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  it('agrees with the machine', () => {
    expect(
      modelDisagreements(model, vmRequestMachine, {
        states: {
          chosen: 'choosing',
          copying: 'initializing',
          deploying: 'deploying',
          changing: 'changingState',
          answered: 'answered',
          // A refusal fails the actor where its call was (checked by its status).
          failed: ['initializing', 'deploying', 'changingState'],
        },
        events: {
          // The request is the actor's input, not an event.
          INITIALIZE: [],
          DEPLOY: [],
          CHANGE: [],
          ANSWERED: [
            'xstate.done.actor.initializeTemplate',
            'xstate.done.actor.deployTemplate',
            'xstate.done.actor.changeVmState',
          ],
          REFUSED: [],
        },
      }),
    ).toEqual([]);
  });

  for (const path of paths) {
    it(path.description, async () => {
      let r: ReturnType<typeof startRequest> | null = null;
      const current = () => {
        if (!r) throw new Error('no request started');
        return r;
      };
      const sent = (kind: Call['kind']) => () => {
        expect(current().calls.map((c) => c.kind)).toEqual([kind]);
        expect(current().actor.getSnapshot().status).toBe('active');
      };
      await path.test({
        states: {
          chosen: () => expect(r).toBeNull(),
          copying: sent('initializeTemplate'),
          deploying: sent('deployTemplate'),
          changing: sent('changeVmState'),
          answered: () => expect(current().actor.getSnapshot().status).toBe('done'),
          failed: () => expect(current().actor.getSnapshot().status).toBe('error'),
        },
        events: {
          INITIALIZE: () => void (r = startRequest('initialize')),
          DEPLOY: () => void (r = startRequest('deploy')),
          CHANGE: () => void (r = startRequest('start')),
          ANSWERED: () =>
            current().answer(current().calls[0]?.kind === 'initializeTemplate' ? 40 : running),
          REFUSED: () => current().fail({ status: 400, message: 'Error' }),
        },
      });
    });
  }
});

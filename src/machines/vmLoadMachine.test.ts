import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { Vm } from '../api/vm';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import { vmLoadMachine } from './vmLoadMachine';

const deployed: Vm = { id: 'vm-1', name: 'web-01#ws-1', status: 'deployed', state: 'running' };
const initialized: Vm = { id: '', name: 'web-01#ws-1', status: 'initialized', state: 'off' };

interface Call {
  kind: 'loadVm' | 'loadTemplateMachine';
  input: unknown;
  answer: Deferred<unknown>;
}

/** One load, by the machine's id or by the template, each call waiting for the test. */
function startLoad(vmId: string | null) {
  const calls: Call[] = [];
  const call = <T, I>(kind: Call['kind']) =>
    fromPromise<T, I>(({ input }) => {
      const answer = deferred<unknown>();
      calls.push({ kind, input, answer });
      return answer.promise as Promise<T>;
    });
  const actor = createActor(
    vmLoadMachine.provide({
      actors: {
        loadVm: call<Vm | null, { id: string }>('loadVm'),
        loadTemplateMachine: call<Vm, { templateId: string }>('loadTemplateMachine'),
      },
    }),
    { input: { templateId: 'tm-1', vmId } },
  ).start();
  const answer = async (value: unknown) => {
    calls.at(-1)?.answer.resolve(value);
    await flush();
  };
  const fail = async () => {
    calls.at(-1)?.answer.reject({ status: 500, message: 'Error' });
    await flush();
  };
  const output = () => {
    expect(actor.getSnapshot().status).toBe('done');
    return actor.getSnapshot().output;
  };
  return { actor, calls, answer, fail, output };
}

const kinds = (calls: Call[]) => calls.map((c) => [c.kind, c.input]);

describe('vmLoadMachine', () => {
  it('loads a deployed machine by its id', async () => {
    const l = startLoad('vm-1');
    expect(kinds(l.calls)).toEqual([['loadVm', { id: 'vm-1' }]]);
    await l.answer(deployed);
    expect(l.output()).toEqual(deployed);
  });

  it("loads the template's machine when none is deployed", async () => {
    const l = startLoad(null);
    expect(kinds(l.calls)).toEqual([['loadTemplateMachine', { templateId: 'tm-1' }]]);
    await l.answer(initialized);
    expect(l.output()).toEqual(initialized);
  });

  it("asks the template when the machine is gone, and answers with the template's machine", async () => {
    const l = startLoad('vm-1');
    await l.answer(null);
    expect(kinds(l.calls)).toEqual([
      ['loadVm', { id: 'vm-1' }],
      ['loadTemplateMachine', { templateId: 'tm-1' }],
    ]);
    await l.answer(initialized);
    expect(l.output()).toEqual(initialized);
  });

  it('answers null, without failing, when the machine cannot be loaded', async () => {
    const byId = startLoad('vm-1');
    await byId.fail();
    expect(byId.output()).toBeNull();
    expect(byId.calls).toHaveLength(1);
    const byTemplate = startLoad(null);
    await byTemplate.fail();
    expect(byTemplate.output()).toBeNull();
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(vmLoadMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [
          { templateId: 'tm-1', vmId: 'vm-1' },
          { templateId: 'tm-1', vmId: null },
        ],
        payloads: [
          { type: 'xstate.done.actor.loadVm', output: deployed },
          { type: 'xstate.done.actor.loadVm', output: null },
          { type: 'xstate.done.actor.loadTemplateMachine', output: initialized },
        ],
      }),
    ).toEqual([]);
  });
});

describe('vmLoadMachine against an abstract model', () => {
  // What is loaded is chosen by the input; each call is answered, answered empty, or fails.
  const model = createMachine({
    id: 'vmLoadModel',
    initial: 'chosen',
    states: {
      chosen: { on: { BY_ID: 'loadingVm', BY_TEMPLATE: 'loadingTemplate' } },
      loadingVm: { on: { FOUND: 'known', GONE: 'loadingTemplate', FAILED: 'unknown' } },
      loadingTemplate: { on: { FOUND: 'known', FAILED: 'unknown' } },
      known: {},
      unknown: {},
    },
  });
  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  it('agrees with the machine', () => {
    expect(
      modelDisagreements(model, vmLoadMachine, {
        states: {
          chosen: 'choosing',
          loadingVm: 'vm',
          loadingTemplate: 'template',
          known: 'loaded',
          unknown: 'loaded',
        },
        events: {
          // What is loaded is the actor's input, not an event.
          BY_ID: [],
          BY_TEMPLATE: [],
          FOUND: ['xstate.done.actor.loadVm', 'xstate.done.actor.loadTemplateMachine'],
          GONE: 'xstate.done.actor.loadVm',
          FAILED: ['xstate.error.actor.loadVm', 'xstate.error.actor.loadTemplateMachine'],
        },
      }),
    ).toEqual([]);
  });

  for (const path of paths) {
    it(path.description, async () => {
      let l: ReturnType<typeof startLoad> | null = null;
      const current = () => {
        if (!l) throw new Error('no load started');
        return l;
      };
      const waitingFor = (kind: Call['kind']) => () => {
        expect(current().calls.at(-1)?.kind).toBe(kind);
        expect(current().actor.getSnapshot().status).toBe('active');
      };
      await path.test({
        states: {
          chosen: () => expect(l).toBeNull(),
          loadingVm: waitingFor('loadVm'),
          loadingTemplate: waitingFor('loadTemplateMachine'),
          known: () =>
            expect(current().output()).toEqual(
              current().calls.at(-1)?.kind === 'loadVm' ? deployed : initialized,
            ),
          unknown: () => expect(current().output()).toBeNull(),
        },
        events: {
          BY_ID: () => void (l = startLoad('vm-1')),
          BY_TEMPLATE: () => void (l = startLoad(null)),
          FOUND: () =>
            current().answer(current().calls.at(-1)?.kind === 'loadVm' ? deployed : initialized),
          GONE: () => current().answer(null),
          FAILED: () => current().fail(),
        },
      });
    });
  }
});

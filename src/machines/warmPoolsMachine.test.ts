import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { WarmPool } from '../api/pools';
import {
  MAX_POOL_SIZE,
  poolFormProblem,
  warmPoolsMachine,
  type WarmPoolsSnapshot,
} from './warmPoolsMachine';
import {
  selectIsLoadingPools,
  selectIsSavingPool,
  selectPoolFormError,
  selectPoolFormSize,
  selectPoolFormWorkspace,
  selectPoolInvalidField,
  selectPoolListError,
  selectPools,
  selectPoolSaveError,
  selectSavedPool,
} from './warmPoolsMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const pool = (workspaceId: string, size: number): WarmPool => ({
  workspaceId,
  size,
  target: size,
  ready: 1,
  warming: size - 1,
  failed: 0,
  claimedLastHour: 2,
  misses: 1,
  schedules: [],
});

/** The server's answer to a size on a driver that cannot keep pools. */
const QEMU_REFUSAL = {
  status: 400,
  message:
    'InvalidOperation Warm pools need a hypervisor driver that can hand machines from one ' +
    'isolation tag to another; the qemu driver cannot.',
};

function start() {
  const loads: Deferred<WarmPool[]>[] = [];
  const saves: Array<{ input: { workspaceId: string; size: number }; answer: Deferred<WarmPool> }> =
    [];
  const actor = createActor(
    warmPoolsMachine.provide({
      actors: {
        listPools: fromPromise<WarmPool[], void>(() => {
          const answer = deferred<WarmPool[]>();
          loads.push(answer);
          return answer.promise;
        }),
        setPoolSize: fromPromise<WarmPool, { workspaceId: string; size: number }>(({ input }) => {
          const answer = deferred<WarmPool>();
          saves.push({ input, answer });
          return answer.promise;
        }),
      },
    }),
  ).start();
  const fill = (workspaceId: string, size: string) => {
    actor.send({ type: 'pool.workspaceEdited', text: workspaceId });
    actor.send({ type: 'pool.sizeEdited', text: size });
  };
  return { actor, loads, saves, fill, snap: () => actor.getSnapshot() };
}

describe('poolFormProblem', () => {
  it('asks for a workspace, and for a whole size from 0 to the maximum', () => {
    const workspaceProblem = { field: 'workspace', message: 'Enter the id of a workspace.' };
    expect(poolFormProblem('', '3')).toEqual(workspaceProblem);
    expect(poolFormProblem('  ', '3')).toEqual(workspaceProblem);
    const sizeProblem = {
      field: 'size',
      message: `The size must be a whole number from 0 to ${MAX_POOL_SIZE}.`,
    };
    for (const size of ['', '-1', '2.5', 'ten', String(MAX_POOL_SIZE + 1)]) {
      expect(poolFormProblem('ws', size)).toEqual(sizeProblem);
    }
    expect(poolFormProblem('ws', '0')).toBeNull();
    expect(poolFormProblem(' ws ', ` ${MAX_POOL_SIZE} `)).toBeNull();
  });
});

describe('warmPoolsMachine', () => {
  it('lists the pools, and keeps them with the reason when a refresh fails', async () => {
    const p = start();
    expect(selectIsLoadingPools(p.snap())).toBe(true);
    p.loads[0]!.resolve([pool('ws-a', 2)]);
    await flush();
    expect(selectIsLoadingPools(p.snap())).toBe(false);
    expect(selectPools(p.snap()).map((x) => x.workspaceId)).toEqual(['ws-a']);
    p.actor.send({ type: 'pools.refreshRequested' });
    expect(p.loads).toHaveLength(2);
    p.loads[1]!.reject({ status: 0, message: 'Failed to fetch' });
    await flush();
    expect(selectPoolListError(p.snap())).toBe(
      'The server could not be reached: check your connection and try again.',
    );
    expect(selectPools(p.snap())).toHaveLength(1);
  });

  it('sends nothing for a bad form, says why, and keeps what was typed', () => {
    const p = start();
    p.fill('ws-a', '51');
    p.actor.send({ type: 'pool.saveRequested' });
    expect(p.saves).toHaveLength(0);
    expect(selectPoolFormError(p.snap())).toBe(
      `The size must be a whole number from 0 to ${MAX_POOL_SIZE}.`,
    );
    expect(selectPoolInvalidField(p.snap())).toBe('size');
    expect(selectPoolFormWorkspace(p.snap())).toBe('ws-a');
    expect(selectPoolFormSize(p.snap())).toBe('51');
    // Typing again clears the complaint.
    p.actor.send({ type: 'pool.sizeEdited', text: '5' });
    expect(selectPoolFormError(p.snap())).toBeNull();
  });

  it('saves the trimmed form, then loads the list again', async () => {
    const p = start();
    p.loads[0]!.resolve([]);
    await flush();
    p.fill(' ws-a ', ' 4 ');
    p.actor.send({ type: 'pool.saveRequested' });
    expect(selectIsSavingPool(p.snap())).toBe(true);
    expect(p.saves[0]!.input).toEqual({ workspaceId: 'ws-a', size: 4 });
    p.saves[0]!.answer.resolve(pool('ws-a', 4));
    await flush();
    expect(selectIsSavingPool(p.snap())).toBe(false);
    expect(selectSavedPool(p.snap())?.size).toBe(4);
    expect(p.loads).toHaveLength(2);
    p.loads[1]!.resolve([pool('ws-a', 4)]);
    await flush();
    expect(selectPools(p.snap()).map((x) => x.size)).toEqual([4]);
  });

  it('starts the load again when a save ends during one, so the list is not older than the save', async () => {
    const p = start();
    p.fill('ws-a', '1');
    p.actor.send({ type: 'pool.saveRequested' });
    p.saves[0]!.answer.resolve(pool('ws-a', 1));
    await flush();
    expect(p.loads).toHaveLength(2);
    expect(selectIsLoadingPools(p.snap())).toBe(true);
  });

  it("shows the server's refusal naming the driver, and keeps the form", async () => {
    const p = start();
    p.fill('ws-a', '3');
    p.actor.send({ type: 'pool.saveRequested' });
    p.saves[0]!.answer.reject(QEMU_REFUSAL);
    await flush();
    expect(selectPoolSaveError(p.snap())).toContain('the qemu driver cannot');
    expect(selectPoolFormWorkspace(p.snap())).toBe('ws-a');
    expect(selectPoolFormSize(p.snap())).toBe('3');
    expect(p.loads).toHaveLength(1);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(warmPoolsMachine, {
        // Saving depends on what was typed: the fields are part of the state (two values each).
        serializeState: (snapshot) => {
          const { workspaceId, size } = (snapshot as WarmPoolsSnapshot).context;
          return JSON.stringify([snapshot.value, workspaceId, size]);
        },
        payloads: [
          { type: 'pool.workspaceEdited', text: 'ws-a' },
          { type: 'pool.sizeEdited', text: '3' },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test of the form: typing a valid or an invalid form, saving it, and the server's
 * answer, checking after each step what the view reads (the complaint, the refusal, the fields).
 */
describe('warmPoolsMachine form against its model', () => {
  type ModelEvent =
    | { type: 'TYPE_VALID' }
    | { type: 'TYPE_INVALID' }
    | { type: 'SAVE' }
    | { type: 'SAVED' }
    | { type: 'REFUSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'warmPoolsFormModel',
    initial: 'invalid',
    states: {
      invalid: { on: { TYPE_VALID: 'valid', SAVE: 'invalid' } },
      valid: { on: { TYPE_INVALID: 'invalid', SAVE: 'saving' } },
      saving: { on: { SAVED: 'valid', REFUSED: 'valid' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, warmPoolsMachine, {
        states: { invalid: 'form.editing', valid: 'form.editing', saving: 'form.saving' },
        events: {
          TYPE_VALID: ['pool.workspaceEdited', 'pool.sizeEdited'],
          TYPE_INVALID: 'pool.sizeEdited',
          SAVE: 'pool.saveRequested',
          SAVED: 'xstate.done.actor.setPoolSize',
          REFUSED: 'xstate.error.actor.setPoolSize',
        },
        // The list has tests of its own above.
        unmodelledStates: ['list'],
        unmodelledEvents: ['pools.refreshRequested'],
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
      const p = start();
      let workspaceId = '';
      let size = '';
      let formError: string | null = null;
      let saveError: string | null = null;
      const expectForm = (state: 'editing' | 'saving') => () => {
        const s = p.snap();
        expect(s.value).toMatchObject({ form: state });
        expect(selectIsSavingPool(s)).toBe(state === 'saving');
        expect(selectPoolFormWorkspace(s)).toBe(workspaceId);
        expect(selectPoolFormSize(s)).toBe(size);
        expect(selectPoolFormError(s)).toBe(formError);
        expect(selectPoolSaveError(s)).toBe(saveError);
      };
      await path.test({
        states: {
          invalid: expectForm('editing'),
          valid: expectForm('editing'),
          saving: expectForm('saving'),
        },
        events: {
          TYPE_VALID: () => {
            workspaceId = 'ws-a';
            size = '3';
            formError = null;
            p.fill(workspaceId, size);
          },
          TYPE_INVALID: () => {
            size = '-1';
            formError = null;
            p.actor.send({ type: 'pool.sizeEdited', text: size });
          },
          SAVE: () => {
            const problem = poolFormProblem(workspaceId, size);
            formError = problem?.message ?? null;
            if (problem === null) saveError = null;
            const before = p.saves.length;
            p.actor.send({ type: 'pool.saveRequested' });
            expect(p.saves.length - before).toBe(problem === null ? 1 : 0);
          },
          SAVED: async () => {
            p.saves.at(-1)!.answer.resolve(pool(workspaceId, Number(size)));
            await flush();
          },
          REFUSED: async () => {
            saveError =
              'This cannot be done: warm pools need a hypervisor driver that can hand machines ' +
              'from one isolation tag to another; the qemu driver cannot.';
            p.saves.at(-1)!.answer.reject(QEMU_REFUSAL);
            await flush();
          },
        },
      });
    });
  }
});

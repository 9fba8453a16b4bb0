import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, SimulatedClock } from 'xstate';
import type { WarmPool } from '../api/pools';
import { errorMessage } from '../domain/text';
import {
  MAX_MATCHES,
  MIN_SEARCH_LENGTH,
  WORKSPACE_SEARCH_DEBOUNCE_MS,
  warmPoolsMachine,
  type WarmPoolsSnapshot,
  type WorkspaceMatch,
} from './warmPoolsMachine';
import {
  isWorkspaceId,
  MAX_POOL_SIZE,
  moveHighlight,
  poolFormProblem,
} from './warmPoolsMachine.rules';
import {
  selectHighlightedMatch,
  selectIsChoosingWorkspace,
  selectIsLoadingPools,
  selectIsSavingPool,
  selectIsSearchingWorkspaces,
  selectPoolFormError,
  selectPoolFormSize,
  selectPoolFormWorkspace,
  selectPoolFormWorkspaceText,
  selectPoolInvalidField,
  selectPoolListError,
  selectPools,
  selectPoolSaveError,
  selectSavedPool,
  selectWorkspaceMatches,
  selectWorkspaceSearchError,
} from './warmPoolsMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

/** Workspace ids as the server makes them. */
const WS_A = 'a'.repeat(32);
const WS_B = 'b'.repeat(32);

const pool = (
  workspaceId: string,
  size: number,
  workspaceName: string | null = 'Lab',
): WarmPool => ({
  workspaceId,
  workspaceName,
  size,
  target: size,
  ready: 1,
  warming: size - 1,
  failed: 0,
  claimedLastHour: 2,
  misses: 1,
  schedules: [],
  unpoolable: null,
});

/** The server's answer to a size on a driver that cannot keep pools. */
const QEMU_REFUSAL = {
  status: 400,
  message:
    'InvalidOperation Warm pools need a hypervisor driver that can hand machines from one ' +
    'isolation tag to another; the qemu driver cannot.',
};

interface Search {
  input: { term: string; take: number };
  signal: AbortSignal;
  answer: Deferred<WorkspaceMatch[]>;
}

function start() {
  const clock = new SimulatedClock();
  const loads: Deferred<WarmPool[]>[] = [];
  const saves: Array<{ input: { workspaceId: string; size: number }; answer: Deferred<WarmPool> }> =
    [];
  const searches: Search[] = [];
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
        searchWorkspaces: fromPromise<WorkspaceMatch[], { term: string; take: number }>(
          ({ input, signal }) => {
            const answer = deferred<WorkspaceMatch[]>();
            searches.push({ input, signal, answer });
            return answer.promise;
          },
        ),
      },
    }),
    { clock },
  ).start();
  const fill = (workspaceId: string, size: string) => {
    actor.send({ type: 'pool.workspaceEdited', text: workspaceId });
    actor.send({ type: 'pool.sizeEdited', text: size });
  };
  /** Types a name and lets the pause pass, so that it is searched for. */
  const search = (text: string) => {
    actor.send({ type: 'pool.workspaceEdited', text });
    clock.increment(WORKSPACE_SEARCH_DEBOUNCE_MS);
  };
  /** Answers the newest search and lets the answer arrive. */
  const found = async (matches: WorkspaceMatch[]) => {
    searches.at(-1)!.answer.resolve(matches);
    await flush();
  };
  return {
    actor,
    clock,
    loads,
    saves,
    searches,
    fill,
    search,
    found,
    snap: () => actor.getSnapshot(),
  };
}

describe('poolFormProblem', () => {
  it('asks for a workspace, and for a whole size from 0 to the maximum', () => {
    const workspaceProblem = {
      field: 'workspace',
      message: 'Choose a workspace: type part of its name and pick it, or paste its id.',
    };
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
    p.loads[0]!.resolve([pool(WS_A, 2)]);
    await flush();
    expect(selectIsLoadingPools(p.snap())).toBe(false);
    expect(selectPools(p.snap()).map((x) => x.workspaceId)).toEqual([WS_A]);
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
    const tooMany = String(MAX_POOL_SIZE + 1);
    p.fill(WS_A, tooMany);
    p.actor.send({ type: 'pool.saveRequested' });
    expect(p.saves).toHaveLength(0);
    expect(selectPoolFormError(p.snap())).toBe(
      `The size must be a whole number from 0 to ${MAX_POOL_SIZE}.`,
    );
    expect(selectPoolInvalidField(p.snap())).toBe('size');
    expect(selectPoolFormWorkspace(p.snap())).toBe(WS_A);
    expect(selectPoolFormSize(p.snap())).toBe(tooMany);
    // Typing again clears the complaint.
    p.actor.send({ type: 'pool.sizeEdited', text: '5' });
    expect(selectPoolFormError(p.snap())).toBeNull();
  });

  it('saves the trimmed form, then loads the list again', async () => {
    const p = start();
    p.loads[0]!.resolve([]);
    await flush();
    p.fill(` ${WS_A} `, ' 4 ');
    p.actor.send({ type: 'pool.saveRequested' });
    expect(selectIsSavingPool(p.snap())).toBe(true);
    expect(p.saves[0]!.input).toEqual({ workspaceId: WS_A, size: 4 });
    p.saves[0]!.answer.resolve(pool(WS_A, 4));
    await flush();
    expect(selectIsSavingPool(p.snap())).toBe(false);
    expect(selectSavedPool(p.snap())?.size).toBe(4);
    expect(p.loads).toHaveLength(2);
    p.loads[1]!.resolve([pool(WS_A, 4)]);
    await flush();
    expect(selectPools(p.snap()).map((x) => x.size)).toEqual([4]);
  });

  it('starts the load again when a save ends during one, so the list is not older than the save', async () => {
    const p = start();
    p.fill(WS_A, '1');
    p.actor.send({ type: 'pool.saveRequested' });
    p.saves[0]!.answer.resolve(pool(WS_A, 1));
    await flush();
    expect(p.loads).toHaveLength(2);
    expect(selectIsLoadingPools(p.snap())).toBe(true);
  });

  it("shows the server's refusal naming the driver, and keeps the form", async () => {
    const p = start();
    p.fill(WS_A, '3');
    p.actor.send({ type: 'pool.saveRequested' });
    p.saves[0]!.answer.reject(QEMU_REFUSAL);
    await flush();
    expect(selectPoolSaveError(p.snap())).toContain('the qemu driver cannot');
    expect(selectPoolFormWorkspace(p.snap())).toBe(WS_A);
    expect(selectPoolFormSize(p.snap())).toBe('3');
    expect(p.loads).toHaveLength(1);
  });

  it('lets a refresh leave a save under way alone', async () => {
    const p = start();
    p.loads[0]!.resolve([]);
    await flush();
    p.fill(WS_A, '2');
    p.actor.send({ type: 'pool.saveRequested' });
    p.actor.send({ type: 'pools.refreshRequested' });
    expect(selectIsSavingPool(p.snap())).toBe(true);
    p.saves[0]!.answer.resolve(pool(WS_A, 2));
    await flush();
    expect(selectSavedPool(p.snap())?.size).toBe(2);
  });
});

describe('warmPoolsMachine workspace search', () => {
  const matches = (n: number): WorkspaceMatch[] =>
    Array.from({ length: n }, (_, i) => ({ id: String(i).padStart(32, 'c'), name: `Lab ${i}` }));

  it('tells a workspace id (ours or a GUID) from a name', () => {
    expect(isWorkspaceId(WS_A)).toBe(true);
    expect(isWorkspaceId(` ${WS_A.toUpperCase()} `)).toBe(true);
    expect(isWorkspaceId('0c9d6a1e-3b7f-4c2a-9e8d-1f2a3b4c5d6e')).toBe(true);
    expect(isWorkspaceId('Pool Lab')).toBe(false);
    expect(isWorkspaceId(WS_A.slice(1))).toBe(false);
  });

  it('moves a highlight through the matches, wrapping round both ways', () => {
    expect(moveHighlight(-1, 1, 3)).toBe(0);
    expect(moveHighlight(-1, -1, 3)).toBe(2);
    expect(moveHighlight(2, 1, 3)).toBe(0);
    expect(moveHighlight(0, -1, 3)).toBe(2);
    expect(moveHighlight(-1, 1, 0)).toBe(-1);
  });

  it('takes a pasted id as the workspace, without a search', () => {
    const p = start();
    p.search(` ${WS_A} `);
    expect(p.searches).toHaveLength(0);
    expect(selectPoolFormWorkspace(p.snap())).toBe(WS_A);
    expect(selectPoolFormWorkspaceText(p.snap())).toBe(` ${WS_A} `);
  });

  it(`searches a name of ${MIN_SEARCH_LENGTH} letters or more once typing pauses`, () => {
    const p = start();
    p.search('P');
    expect(p.searches).toHaveLength(0);
    p.actor.send({ type: 'pool.workspaceEdited', text: 'Po' });
    p.clock.increment(WORKSPACE_SEARCH_DEBOUNCE_MS - 1);
    p.actor.send({ type: 'pool.workspaceEdited', text: 'Poo' });
    p.clock.increment(WORKSPACE_SEARCH_DEBOUNCE_MS - 1);
    expect(p.searches).toHaveLength(0);
    p.clock.increment(1);
    expect(p.searches.map((s) => s.input)).toEqual([{ term: 'Poo', take: MAX_MATCHES }]);
    expect(selectIsSearchingWorkspaces(p.snap())).toBe(true);
    // A name being typed is not a choice.
    expect(selectPoolFormWorkspace(p.snap())).toBe('');
  });

  it(`offers at most ${MAX_MATCHES} matches, none highlighted`, async () => {
    const p = start();
    p.search('Lab');
    await p.found(matches(MAX_MATCHES + 2));
    expect(selectIsSearchingWorkspaces(p.snap())).toBe(false);
    expect(selectIsChoosingWorkspace(p.snap())).toBe(true);
    expect(selectWorkspaceMatches(p.snap())).toEqual(matches(MAX_MATCHES));
    expect(selectHighlightedMatch(p.snap())).toBe(-1);
  });

  it('cancels a search under way when the name changes, and searches the new one', () => {
    const p = start();
    p.search('Lab');
    p.search('Lab 2');
    expect(p.searches[0]!.signal.aborted).toBe(true);
    expect(p.searches.map((s) => s.input.term)).toEqual(['Lab', 'Lab 2']);
    // Shortened below the minimum: no search, nothing on show.
    p.search('L');
    expect(p.searches[1]!.signal.aborted).toBe(true);
    expect(p.snap().value).toMatchObject({ form: { editing: 'idle' } });
  });

  it('picks the highlighted match: its name in the field, its id for the save', async () => {
    const p = start();
    p.search('Lab');
    await p.found(matches(3));
    p.actor.send({ type: 'pool.highlightMoved', by: -1 });
    expect(selectHighlightedMatch(p.snap())).toBe(2);
    p.actor.send({ type: 'pool.highlightMoved', by: 1 });
    expect(selectHighlightedMatch(p.snap())).toBe(0);
    p.actor.send({ type: 'pool.matchPicked', workspaceId: matches(3)[0]!.id });
    expect(selectIsChoosingWorkspace(p.snap())).toBe(false);
    expect(selectPoolFormWorkspaceText(p.snap())).toBe('Lab 0');
    expect(selectPoolFormWorkspace(p.snap())).toBe(matches(3)[0]!.id);
    p.actor.send({ type: 'pool.sizeEdited', text: '2' });
    p.actor.send({ type: 'pool.saveRequested' });
    expect(p.saves[0]!.input).toEqual({ workspaceId: matches(3)[0]!.id, size: 2 });
  });

  it('undoes a pick when the name is typed again', async () => {
    const p = start();
    p.search('Lab');
    await p.found(matches(1));
    p.actor.send({ type: 'pool.matchPicked', workspaceId: matches(1)[0]!.id });
    p.actor.send({ type: 'pool.workspaceEdited', text: 'Lab 01' });
    expect(selectPoolFormWorkspace(p.snap())).toBe('');
    p.actor.send({ type: 'pool.sizeEdited', text: '2' });
    p.actor.send({ type: 'pool.saveRequested' });
    expect(p.saves).toHaveLength(0);
    expect(selectPoolInvalidField(p.snap())).toBe('workspace');
  });

  it('ignores a pick of a workspace it did not offer', async () => {
    const p = start();
    p.search('Lab');
    await p.found(matches(1));
    p.actor.send({ type: 'pool.matchPicked', workspaceId: WS_B });
    expect(selectIsChoosingWorkspace(p.snap())).toBe(true);
    expect(selectPoolFormWorkspace(p.snap())).toBe('');
  });

  it('puts the matches away on dismiss, keeping what was typed', async () => {
    const p = start();
    p.search('Lab');
    await p.found(matches(2));
    p.actor.send({ type: 'pool.matchesDismissed' });
    expect(selectIsChoosingWorkspace(p.snap())).toBe(false);
    expect(selectPoolFormWorkspaceText(p.snap())).toBe('Lab');
  });

  it('says why a search failed, and still takes a pasted id', async () => {
    const p = start();
    p.search('Lab');
    p.searches[0]!.answer.reject({ status: 0, message: 'Failed to fetch' });
    await flush();
    expect(selectWorkspaceSearchError(p.snap())).toBe(
      'The server could not be reached: check your connection and try again.',
    );
    expect(selectIsChoosingWorkspace(p.snap())).toBe(false);
    p.search(WS_A);
    expect(selectPoolFormWorkspace(p.snap())).toBe(WS_A);
    // The next search that answers clears the reason.
    p.search('Lab');
    await p.found([]);
    expect(selectWorkspaceSearchError(p.snap())).toBeNull();
  });

  it("fills the form from a listed pool's Edit, and ignores a pool not listed", async () => {
    const p = start();
    p.loads[0]!.resolve([pool(WS_A, 2, 'Coral Lab'), pool(WS_B, 5, null)]);
    await flush();
    p.search('Lab');
    p.actor.send({ type: 'pool.editRequested', workspaceId: WS_A });
    expect(p.searches[0]!.signal.aborted).toBe(true);
    expect(selectPoolFormWorkspaceText(p.snap())).toBe('Coral Lab');
    expect(selectPoolFormWorkspace(p.snap())).toBe(WS_A);
    expect(selectPoolFormSize(p.snap())).toBe('2');
    // A deleted workspace's pool has no name: its id stands in.
    p.actor.send({ type: 'pool.editRequested', workspaceId: WS_B });
    expect(selectPoolFormWorkspaceText(p.snap())).toBe(WS_B);
    p.actor.send({ type: 'pool.editRequested', workspaceId: 'f'.repeat(32) });
    expect(selectPoolFormWorkspace(p.snap())).toBe(WS_B);
  });

  it('asks for a pick when saved with the matches on show, and keeps them on show', async () => {
    const p = start();
    p.actor.send({ type: 'pool.sizeEdited', text: '1' });
    p.search('Lab');
    await p.found(matches(2));
    p.actor.send({ type: 'pool.saveRequested' });
    expect(p.saves).toHaveLength(0);
    expect(selectPoolInvalidField(p.snap())).toBe('workspace');
    expect(selectIsChoosingWorkspace(p.snap())).toBe(true);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(warmPoolsMachine, {
        // Saving depends on what was typed: the fields are part of the state (a few values each).
        serializeState: (snapshot) => {
          const { workspaceId, size } = (snapshot as WarmPoolsSnapshot).context;
          return JSON.stringify([snapshot.value, workspaceId, size]);
        },
        payloads: [
          { type: 'pool.workspaceEdited', text: WS_A },
          { type: 'pool.workspaceEdited', text: 'Lab' },
          { type: 'pool.workspaceEdited', text: 'L' },
          { type: 'pool.sizeEdited', text: '3' },
          { type: 'pool.highlightMoved', by: 1 },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test of the form: typing a valid or an invalid form, a row's Edit, saving it, and
 * the server's answer, checking after each step what the view reads (the complaint, the refusal,
 * the fields).
 */
describe('warmPoolsMachine form against its model', () => {
  type ModelEvent =
    | { type: 'TYPE_VALID' }
    | { type: 'TYPE_INVALID' }
    | { type: 'EDIT_ROW' }
    | { type: 'SAVE' }
    | { type: 'SAVED' }
    | { type: 'REFUSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'warmPoolsFormModel',
    initial: 'invalid',
    states: {
      invalid: { on: { TYPE_VALID: 'valid', EDIT_ROW: 'valid', SAVE: 'invalid' } },
      valid: { on: { TYPE_INVALID: 'invalid', EDIT_ROW: 'valid', SAVE: 'saving' } },
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
          EDIT_ROW: 'pool.editRequested',
          SAVE: 'pool.saveRequested',
          SAVED: 'xstate.done.actor.setPoolSize',
          REFUSED: 'xstate.error.actor.setPoolSize',
        },
        // The list has tests of its own above; the workspace search has its model below.
        unmodelledStates: ['list'],
        unmodelledEvents: [
          'pools.refreshRequested',
          'pool.highlightMoved',
          'pool.matchPicked',
          'pool.matchesDismissed',
          'xstate.after.searchDebounce.warmPools.form.editing.debouncing',
        ],
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
      p.loads[0]!.resolve([pool(WS_B, 5, 'Coral Lab')]);
      await flush();
      let workspaceId = '';
      let size = '';
      let formError: string | null = null;
      let saveError: string | null = null;
      const expectForm = (state: 'editing' | 'saving') => () => {
        const s = p.snap();
        expect(s.matches({ form: state })).toBe(true);
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
            workspaceId = WS_A;
            size = '3';
            formError = null;
            p.fill(workspaceId, size);
          },
          TYPE_INVALID: () => {
            size = '-1';
            formError = null;
            p.actor.send({ type: 'pool.sizeEdited', text: size });
          },
          EDIT_ROW: () => {
            workspaceId = WS_B;
            size = '5';
            formError = null;
            saveError = null;
            p.actor.send({ type: 'pool.editRequested', workspaceId: WS_B });
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

/**
 * Model-based test of the workspace field: names typed and searched once typing pauses, ids
 * pasted, the matches answered or the search failed, a highlight moved, a pick, a dismissal;
 * checking after each step what the view reads (the field, the choice, the matches, the reason).
 */
describe('warmPoolsMachine workspace search against its model', () => {
  type ModelEvent =
    | { type: 'TYPE_NAME' }
    | { type: 'TYPE_SHORT' }
    | { type: 'PASTE_ID' }
    | { type: 'PAUSED' }
    | { type: 'FOUND' }
    | { type: 'FAILED' }
    | { type: 'HIGHLIGHT' }
    | { type: 'PICK' }
    | { type: 'DISMISS' };

  // Whatever is on show, typing decides what comes next: a name waits for a pause, a short
  // text or an id puts the matches away.
  const typing = { TYPE_NAME: 'debouncing', TYPE_SHORT: 'idle', PASTE_ID: 'idle' } as const;
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'warmPoolsSearchModel',
    initial: 'idle',
    states: {
      idle: { on: { ...typing } },
      debouncing: { on: { ...typing, PAUSED: 'searching' } },
      searching: { on: { ...typing, FOUND: 'choosing', FAILED: 'failed' } },
      choosing: {
        on: { ...typing, HIGHLIGHT: 'choosing', PICK: 'idle', DISMISS: 'idle' },
      },
      failed: { on: { ...typing } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, warmPoolsMachine, {
        states: {
          idle: 'form.editing.idle',
          debouncing: 'form.editing.debouncing',
          searching: 'form.editing.searching',
          choosing: 'form.editing.choosing',
          failed: 'form.editing.searchFailed',
        },
        events: {
          TYPE_NAME: 'pool.workspaceEdited',
          TYPE_SHORT: 'pool.workspaceEdited',
          PASTE_ID: 'pool.workspaceEdited',
          PAUSED: 'xstate.after.searchDebounce.warmPools.form.editing.debouncing',
          FOUND: 'xstate.done.actor.searchWorkspaces',
          FAILED: 'xstate.error.actor.searchWorkspaces',
          HIGHLIGHT: 'pool.highlightMoved',
          PICK: 'pool.matchPicked',
          DISMISS: 'pool.matchesDismissed',
        },
        // The list and saving have their tests and model above.
        unmodelledStates: ['list', 'form.saving'],
        unmodelledEvents: [
          'pools.refreshRequested',
          'pool.sizeEdited',
          'pool.editRequested',
          'pool.saveRequested',
          'xstate.done.actor.setPoolSize',
          'xstate.error.actor.setPoolSize',
        ],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  const SERVER_ERROR = { status: 500, message: 'Error' };
  const FOUND: WorkspaceMatch[] = [
    { id: WS_A, name: 'Lab A' },
    { id: WS_B, name: 'Lab B' },
  ];

  for (const path of paths) {
    it(path.description, async () => {
      const p = start();
      let text = '';
      let workspaceId = '';
      let highlighted = -1;
      let names = 0;
      /** The search the machine waits for, if any (the others were cancelled). */
      const live = () => p.searches.find((s) => !s.signal.aborted && !settled.has(s));
      const settled = new Set<Search>();
      const expectField = (state: string) => () => {
        const s = p.snap();
        expect(s.value).toMatchObject({ form: { editing: state } });
        expect(selectPoolFormWorkspaceText(s)).toBe(text);
        expect(selectPoolFormWorkspace(s)).toBe(workspaceId);
        expect(selectIsSearchingWorkspaces(s)).toBe(state === 'searching');
        expect(selectIsChoosingWorkspace(s)).toBe(state === 'choosing');
      };
      const type = (typed: string) => {
        text = typed;
        workspaceId = isWorkspaceId(typed) ? typed : '';
        p.actor.send({ type: 'pool.workspaceEdited', text: typed });
      };
      await path.test({
        states: {
          idle: expectField('idle'),
          debouncing: () => {
            expectField('debouncing')();
            expect(live()).toBeUndefined();
          },
          searching: () => {
            expectField('searching')();
            expect(live()?.input).toEqual({ term: text, take: MAX_MATCHES });
          },
          choosing: () => {
            expectField('choosing')();
            expect(selectWorkspaceMatches(p.snap())).toEqual(FOUND);
            expect(selectHighlightedMatch(p.snap())).toBe(highlighted);
          },
          failed: () => {
            expectField('searchFailed')();
            expect(selectWorkspaceSearchError(p.snap())).toBe(errorMessage(SERVER_ERROR));
          },
        },
        events: {
          TYPE_NAME: () => type(`Lab ${++names}`),
          TYPE_SHORT: () => type('L'),
          PASTE_ID: () => type(WS_B),
          PAUSED: () => p.clock.increment(WORKSPACE_SEARCH_DEBOUNCE_MS),
          FOUND: async () => {
            highlighted = -1;
            const s = live()!;
            settled.add(s);
            s.answer.resolve(FOUND);
            await flush();
          },
          FAILED: async () => {
            const s = live()!;
            settled.add(s);
            s.answer.reject(SERVER_ERROR);
            await flush();
          },
          HIGHLIGHT: () => {
            highlighted = moveHighlight(highlighted, 1, FOUND.length);
            p.actor.send({ type: 'pool.highlightMoved', by: 1 });
          },
          PICK: () => {
            text = FOUND[1]!.name;
            workspaceId = FOUND[1]!.id;
            p.actor.send({ type: 'pool.matchPicked', workspaceId });
          },
          DISMISS: () => p.actor.send({ type: 'pool.matchesDismissed' }),
        },
      });
    });
  }
});

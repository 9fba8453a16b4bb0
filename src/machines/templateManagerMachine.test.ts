import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, SimulatedClock } from 'xstate';
import type { PageQuery } from './pagedSearchMachine';
import { templateDetailMachine } from './templateDetailMachine';
import {
  TEMPLATE_SEARCH_DEBOUNCE_MS,
  templateListSearchMachine,
  templateManagerMachine,
  type TemplateManagerSnapshot,
  type TemplateRow,
} from './templateManagerMachine';
import {
  selectCanClone,
  selectCreating,
  selectDetail,
  selectManagerError,
  selectSelectedId,
} from './templateManagerMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const row = (id: string): TemplateRow => ({
  id,
  name: id,
  workspaceId: 'ws1',
  workspaceName: 'Lab',
  parentName: null,
  isLinked: false,
  isPublished: false,
});

function start(term = 'ws1') {
  const clock = new SimulatedClock();
  const queries: PageQuery[] = [];
  const loads: string[] = [];
  const clones: string[] = [];
  const actor = createActor(
    templateManagerMachine.provide({
      actors: {
        templateSearch: templateListSearchMachine.provide({
          actors: {
            fetchPage: fromPromise(async ({ input }) => {
              queries.push(input);
              return [row('a'), row('b')];
            }),
          },
        }),
        templateDetail: templateDetailMachine.provide({
          actors: {
            loadDetail: fromPromise(async ({ input }) => {
              loads.push(input.id);
              return {
                ...row(input.id),
                description: '',
                audience: '',
                networks: '',
                guestinfo: '',
                detail: '',
                isPublished: false,
                isLinked: false,
              };
            }),
            saveDetail: fromPromise(async (): Promise<unknown> => undefined),
          },
        }),
        createTemplate: fromPromise(async () => 'new'),
        cloneTemplate: fromPromise(async ({ input }) => {
          clones.push(input.id);
          return `${input.id}-clone`;
        }),
      },
    }),
    { input: { term }, clock },
  ).start();
  return { actor, clock, queries, loads, clones };
}

describe('templateManagerMachine', () => {
  it('searches the term it opens with (a workspace id), then what is typed after a pause', async () => {
    const { actor, clock, queries } = start('ws1');
    await flush();
    expect(queries).toEqual([{ term: 'ws1', filter: [], skip: 0, take: 100 }]);
    const search = actor.getSnapshot().children.search!;
    search.send({ type: 'search.termChanged', term: 'rou' });
    search.send({ type: 'search.termChanged', term: 'router' });
    clock.increment(TEMPLATE_SEARCH_DEBOUNCE_MS - 1);
    expect(queries).toHaveLength(1);
    clock.increment(1);
    await flush();
    expect(queries.map((q) => q.term)).toEqual(['ws1', 'router']);
  });

  it('opens the selected template, one at a time', async () => {
    const { actor, loads } = start();
    expect(selectCanClone(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'template.selected', id: 'a' });
    const first = actor.getSnapshot().context.detail;
    actor.send({ type: 'template.selected', id: 'b' });
    await flush();
    expect(loads).toEqual(['a', 'b']);
    expect(first?.getSnapshot().status).toBe('stopped');
    expect(selectSelectedId(actor.getSnapshot())).toBe('b');
  });

  it('clones the selected template and opens the clone, reloading the list', async () => {
    const { actor, queries, clones, loads } = start();
    await flush();
    actor.send({ type: 'template.selected', id: 'a' });
    actor.send({ type: 'template.cloneRequested' });
    expect(actor.getSnapshot().hasTag('creating')).toBe(true);
    await flush();
    expect(clones).toEqual(['a']);
    expect(selectSelectedId(actor.getSnapshot())).toBe('a-clone');
    expect(loads).toContain('a-clone');
    expect(queries).toHaveLength(2);
  });

  it('creates a stock template and opens it; a saved detail reloads the list', async () => {
    const { actor, queries } = start();
    await flush();
    actor.send({ type: 'template.createRequested' });
    await flush();
    expect(selectSelectedId(actor.getSnapshot())).toBe('new');
    actor.send({ type: 'template.saved', id: 'new' });
    await flush();
    expect(queries).toHaveLength(3);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(templateManagerMachine, {
        serializeState: (s) =>
          JSON.stringify([s.value, (s as TemplateManagerSnapshot).context.selectedId]),
        inputs: [{ term: '' }],
        payloads: [{ type: 'template.selected', id: 'a' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: selecting, creating and cloning (each opening the new template), saves that
 * reload the list, and the error alert, checking what the view reads in each state.
 */
describe('templateManagerMachine against its model', () => {
  type ModelEvent =
    | { type: 'SELECTED' }
    | { type: 'CREATE' }
    | { type: 'CREATED' }
    | { type: 'CREATE_FAILED' }
    | { type: 'CLONE' }
    | { type: 'CLONED' }
    | { type: 'CLONE_FAILED' }
    | { type: 'SAVED' }
    | { type: 'DISMISSED' };

  // Selecting, a saved detail and dismissing the alert change the context, never the mode.
  const anytime = (state: string) => ({ SELECTED: state, SAVED: state, DISMISSED: state });
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'templateManagerModel',
    initial: 'browsing',
    states: {
      browsing: { on: { CREATE: 'creating', CLONE: 'cloning', ...anytime('browsing') } },
      creating: { on: { CREATED: 'browsing', CREATE_FAILED: 'browsing', ...anytime('creating') } },
      cloning: { on: { CLONED: 'browsing', CLONE_FAILED: 'browsing', ...anytime('cloning') } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, templateManagerMachine, {
        states: { browsing: 'browsing', creating: 'creating', cloning: 'cloning' },
        events: {
          SELECTED: 'template.selected',
          CREATE: 'template.createRequested',
          CREATED: 'xstate.done.actor.0.templateManager.creating',
          CREATE_FAILED: 'xstate.error.actor.0.templateManager.creating',
          CLONE: 'template.cloneRequested',
          CLONED: 'xstate.done.actor.0.templateManager.cloning',
          CLONE_FAILED: 'xstate.error.actor.0.templateManager.cloning',
          SAVED: 'template.saved',
          DISMISSED: 'alert.dismissed',
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
      const queries: PageQuery[] = [];
      const loads: string[] = [];
      const creates: Deferred<string>[] = [];
      const clones: { id: string; answer: Deferred<string> }[] = [];
      const actor = createActor(
        templateManagerMachine.provide({
          actors: {
            templateSearch: templateListSearchMachine.provide({
              actors: {
                fetchPage: fromPromise(async ({ input }) => {
                  queries.push(input);
                  return [row('a')];
                }),
              },
            }),
            templateDetail: templateDetailMachine.provide({
              actors: {
                // The detail stays loading: its own model test covers the rest.
                loadDetail: fromPromise(({ input }) => {
                  loads.push(input.id);
                  return deferred<never>().promise;
                }),
              },
            }),
            createTemplate: fromPromise(() => {
              const d = deferred<string>();
              creates.push(d);
              return d.promise;
            }),
            cloneTemplate: fromPromise(({ input }) => {
              const answer = deferred<string>();
              clones.push({ id: input.id, answer });
              return answer.promise;
            }),
          },
        }),
        { input: { term: 'ws1' } },
      ).start();
      await flush();
      // What the view should show: the open template, the alert, and how often the list loaded.
      let selected: string | null = null;
      let error: string | null = null;
      let listLoads = 1;
      let next = 0;
      const expectManager = (state: string) => () => {
        const s = actor.getSnapshot();
        expect(s.value).toBe(state);
        expect(selectCreating(s)).toBe(state !== 'browsing');
        expect(selectSelectedId(s)).toBe(selected);
        expect(selectDetail(s)?.id ?? null).toBe(selected && `detail-${selected}`);
        expect(loads.at(-1) ?? null).toBe(selected);
        expect(selectManagerError(s)).toBe(error);
        expect(selectCanClone(s)).toBe(state === 'browsing' && selected !== null);
        expect(queries).toHaveLength(listLoads);
        expect(queries.every((q) => q.term === 'ws1')).toBe(true);
      };
      const select = () => {
        selected = `t${++next}`;
        actor.send({ type: 'template.selected', id: selected });
      };
      await path.test({
        states: {
          browsing: expectManager('browsing'),
          creating: expectManager('creating'),
          cloning: expectManager('cloning'),
        },
        events: {
          SELECTED: select,
          CREATE: () => actor.send({ type: 'template.createRequested' }),
          CREATED: async () => {
            selected = `new${++next}`;
            listLoads += 1;
            creates.at(-1)!.resolve(selected);
            await flush();
          },
          CREATE_FAILED: async () => {
            error = 'no room';
            creates.at(-1)!.reject(new Error('no room'));
            await flush();
          },
          CLONE: () => {
            // Nothing selected: the model's CLONE is then a selected template cloned.
            if (selected === null) select();
            actor.send({ type: 'template.cloneRequested' });
            expect(clones.at(-1)?.id).toBe(selected);
          },
          CLONED: async () => {
            selected = `${clones.at(-1)!.id}-clone`;
            listLoads += 1;
            clones.at(-1)!.answer.resolve(selected);
            await flush();
          },
          CLONE_FAILED: async () => {
            error = 'name taken';
            clones.at(-1)!.answer.reject(new Error('name taken'));
            await flush();
          },
          SAVED: async () => {
            listLoads += 1;
            actor.send({ type: 'template.saved', id: selected ?? 'a' });
            await flush();
          },
          DISMISSED: () => {
            error = null;
            actor.send({ type: 'alert.dismissed' });
          },
        },
      });
    });
  }
});

import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import type { PageQuery } from './pagedSearchMachine';
import { templateDetailMachine } from './templateDetailMachine';
import {
  TEMPLATE_SEARCH_DEBOUNCE_MS,
  templateListSearchMachine,
  templateManagerMachine,
  type TemplateManagerSnapshot,
  type TemplateRow,
} from './templateManagerMachine';
import { selectCanClone, selectSelectedId } from './templateManagerMachine.selectors';
import { flush } from './testing/deferred';
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

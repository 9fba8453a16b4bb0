import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import type { Template, TemplateSummary } from '../api/template';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import {
  mergeResults,
  TEMPLATE_SEARCH_DEBOUNCE_MS,
  templateSelectorMachine,
  type TemplateSelectorReport,
} from './templateSelectorMachine';
import {
  selectIsSearchingTemplates,
  selectLinkQueue,
  selectSelectorErrors,
  selectSelectorResults,
  selectTemplateSets,
} from './templateSelectorMachine.selectors';

const stock = (id: string, name: string): TemplateSummary => ({
  id,
  name,
  workspaceId: null,
  isPublished: true,
});
const fromLab = (id: string, name: string): TemplateSummary => ({
  id,
  name,
  workspaceId: 'lab',
  workspaceName: 'Network Lab',
  isPublished: true,
});

const LINUX = stock('s-1', 'linux-server');
const ROUTER = stock('s-2', 'router');
const LAB_A = fromLab('l-1', 'lab-router');
const LAB_B = fromLab('l-2', 'lab-client');

interface Options {
  published?: TemplateSummary[];
  scoped?: TemplateSummary[];
  search?: 'ok' | { reject: unknown };
  /** Link outcomes by template id (default: a linked copy). */
  links?: Record<string, { reject: unknown }>;
}

function startSelector(options: Options = {}) {
  const clock = new SimulatedClock();
  const searches: string[] = [];
  const links: string[] = [];
  const reports: TemplateSelectorReport[] = [];
  const reportTo = createActor(
    fromCallback<TemplateSelectorReport>(({ receive }) => receive((event) => reports.push(event))),
  ).start();
  const actor = createActor(
    templateSelectorMachine.provide({
      actors: {
        searchTemplates: fromPromise(
          async ({ input }: { input: { workspaceId: string; term: string } }) => {
            searches.push(input.term);
            if (options.search && options.search !== 'ok') throw options.search.reject;
            return {
              published: options.published ?? [LINUX, ROUTER],
              scoped: options.scoped ?? [],
            };
          },
        ),
        linkTemplate: fromPromise<Template, { templateId: string; workspaceId: string }>(
          async ({ input }) => {
            links.push(`${input.templateId} -> ${input.workspaceId}`);
            const failure = options.links?.[input.templateId];
            if (failure) throw failure.reject;
            return { id: `copy-of-${input.templateId}`, name: 'copy', workspaceId: 'ws-1' };
          },
        ),
      },
    }),
    { clock, input: { workspaceId: 'ws-1', reportTo } },
  ).start();
  const names = () => selectSelectorResults(actor.getSnapshot()).map((t) => t.name);
  return { actor, clock, searches, links, reports, names };
}

describe('templateSelectorMachine', () => {
  it('lists the published templates on start', async () => {
    const s = startSelector();
    expect(selectIsSearchingTemplates(s.actor.getSnapshot())).toBe(true);
    await flush();
    expect(s.searches).toEqual(['']);
    expect(s.names()).toEqual(['linux-server', 'router']);
  });

  it('searches TEMPLATE_SEARCH_DEBOUNCE_MS after typing pauses, with the last term', async () => {
    const s = startSelector();
    await flush();
    s.actor.send({ type: 'selector.termChanged', term: 'l' });
    s.clock.increment(TEMPLATE_SEARCH_DEBOUNCE_MS - 1);
    s.actor.send({ type: 'selector.termChanged', term: 'li' });
    s.clock.increment(TEMPLATE_SEARCH_DEBOUNCE_MS - 1);
    expect(s.searches).toEqual(['']);
    s.clock.increment(1);
    await flush();
    expect(s.searches).toEqual(['', 'li']);
    expect(TEMPLATE_SEARCH_DEBOUNCE_MS).toBe(250);
  });

  it('merges the scoped templates without duplicates, filtered by the term, sorted by name', () => {
    const scopedOnly: TemplateSummary = { id: 'x-1', name: 'Kali', description: 'attacker' };
    expect(mergeResults([ROUTER, LINUX], [LINUX, scopedOnly], '')).toEqual([
      scopedOnly,
      LINUX,
      ROUTER,
    ]);
    expect(mergeResults([ROUTER], [scopedOnly], 'ATTACK')).toEqual([scopedOnly, ROUTER]);
    expect(mergeResults([ROUTER], [scopedOnly], 'route')).toEqual([ROUTER]);
  });

  it('offers a template set only when at least 2 results share a source workspace', async () => {
    const one = startSelector({ published: [LINUX, ROUTER, LAB_A] });
    await flush();
    expect(selectTemplateSets(one.actor.getSnapshot())).toEqual([]);
    const two = startSelector({ published: [LINUX, LAB_A, LAB_B] });
    await flush();
    expect(selectTemplateSets(two.actor.getSnapshot())).toEqual([
      { workspaceId: 'lab', name: 'Network Lab', count: 2 },
    ]);
    expect(selectTemplateSets(two.actor.getSnapshot())).toBe(
      selectTemplateSets(two.actor.getSnapshot()),
    );
  });

  it('links a template on Add and reports it to the list', async () => {
    const s = startSelector();
    await flush();
    s.actor.send({ type: 'selector.addRequested', templateId: 's-1' });
    expect(selectLinkQueue(s.actor.getSnapshot())).toEqual(['s-1']);
    await flush();
    expect(s.links).toEqual(['s-1 -> ws-1']);
    expect(s.reports).toEqual([
      {
        type: 'template.linked',
        template: { id: 'copy-of-s-1', name: 'copy', workspaceId: 'ws-1' },
      },
    ]);
    expect(selectLinkQueue(s.actor.getSnapshot())).toEqual([]);
  });

  it('appends link errors to the error list, camel-case split', async () => {
    const s = startSelector({
      links: { 's-1': { reject: { status: 400, message: 'TemplateLimitReached' } } },
    });
    await flush();
    s.actor.send({ type: 'selector.addRequested', templateId: 's-1' });
    await flush();
    s.actor.send({ type: 'selector.addRequested', templateId: 's-1' });
    await flush();
    expect(selectSelectorErrors(s.actor.getSnapshot())).toEqual([
      'This workspace has as many templates as it is allowed: remove one before adding another.',
      'This workspace has as many templates as it is allowed: remove one before adding another.',
    ]);
    expect(s.reports).toEqual([]);
    s.actor.send({ type: 'selector.errorDismissed', index: 1 });
    expect(selectSelectorErrors(s.actor.getSnapshot())).toEqual([
      'This workspace has as many templates as it is allowed: remove one before adding another.',
    ]);
  });

  it('links a whole set one at a time, going on after a failure', async () => {
    const s = startSelector({
      published: [LINUX, LAB_A, LAB_B],
      links: { 'l-2': { reject: { status: 403, message: 'ActionForbidden' } } },
    });
    await flush();
    s.actor.send({ type: 'selector.setAddRequested', sourceWorkspaceId: 'lab' });
    await flush();
    await flush();
    // Sorted by name: lab-client (l-2) first; its failure does not stop lab-router (l-1).
    expect(s.links).toEqual(['l-2 -> ws-1', 'l-1 -> ws-1']);
    expect(s.reports.map((r) => r.template.id)).toEqual(['copy-of-l-1']);
    expect(selectSelectorErrors(s.actor.getSnapshot())).toEqual([
      'You are not allowed to do this.',
    ]);
  });

  it('queues an Add pressed while another link is in flight', async () => {
    const s = startSelector();
    await flush();
    s.actor.send({ type: 'selector.addRequested', templateId: 's-1' });
    s.actor.send({ type: 'selector.addRequested', templateId: 's-2' });
    await flush();
    await flush();
    expect(s.links).toEqual(['s-1 -> ws-1', 's-2 -> ws-1']);
  });

  it('lists a failed search as an error and shows no results', async () => {
    const s = startSelector({ search: { reject: { status: 0, message: 'Failed to fetch' } } });
    await flush();
    expect(s.names()).toEqual([]);
    expect(selectSelectorErrors(s.actor.getSnapshot())).toEqual([
      'The server could not be reached: check your connection and try again.',
    ]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(templateSelectorMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ workspaceId: 'ws-1' }],
        payloads: [{ type: 'selector.addRequested', templateId: 's-1' }],
      }),
    ).toEqual([]);
  });
});

/** The selector over calls the test answers: each search and each link waits for it. */
function startControlledSelector() {
  const clock = new SimulatedClock();
  const searches: Array<{
    term: string;
    result: Deferred<{ published: TemplateSummary[]; scoped: TemplateSummary[] }>;
  }> = [];
  const links: Array<{ templateId: string; result: Deferred<Template> }> = [];
  const reports: TemplateSelectorReport[] = [];
  const reportTo = createActor(
    fromCallback<TemplateSelectorReport>(({ receive }) => receive((event) => reports.push(event))),
  ).start();
  const actor = createActor(
    templateSelectorMachine.provide({
      actors: {
        searchTemplates: fromPromise<
          { published: TemplateSummary[]; scoped: TemplateSummary[] },
          { workspaceId: string; term: string }
        >(({ input }) => {
          const result = deferred<{ published: TemplateSummary[]; scoped: TemplateSummary[] }>();
          searches.push({ term: input.term, result });
          return result.promise;
        }),
        linkTemplate: fromPromise<Template, { templateId: string; workspaceId: string }>(
          ({ input }) => {
            const result = deferred<Template>();
            links.push({ templateId: input.templateId, result });
            return result.promise;
          },
        ),
      },
    }),
    { clock, input: { workspaceId: 'ws-1', reportTo } },
  ).start();
  return { actor, clock, searches, links, reports };
}

/**
 * Model-based test of the `search` region (spec §2 Template selector): the search on start and
 * after typing pauses, each answered by the test. The `linking` region has its own model below.
 */
describe('templateSelectorMachine search against its model', () => {
  type ModelEvent =
    { type: 'TYPED' } | { type: 'PAUSED' } | { type: 'LISTED' } | { type: 'FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'templateSearchModel',
    initial: 'searching',
    states: {
      searching: { on: { LISTED: 'listed', FAILED: 'listed', TYPED: 'debouncing' } },
      debouncing: { on: { TYPED: 'debouncing', PAUSED: 'searching' } },
      listed: { on: { TYPED: 'debouncing' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, templateSelectorMachine, {
        states: {
          searching: 'search.searching',
          debouncing: 'search.debouncing',
          listed: 'search.listed',
        },
        events: {
          TYPED: 'selector.termChanged',
          PAUSED: 'xstate.after.templateSearchDebounce.templateSelector.search.debouncing',
          LISTED: 'xstate.done.actor.searchTemplates',
          FAILED: 'xstate.error.actor.searchTemplates',
        },
        // The other region, and the error list they share: the linking model.
        unmodelledStates: ['linking'],
        unmodelledEvents: [
          'selector.addRequested',
          'selector.setAddRequested',
          'selector.errorDismissed',
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
      const s = startControlledSelector();
      let term = '';
      const asked: string[] = [''];
      let shown: string[] = [];
      const errors: string[] = [];
      let current = 'searching';
      const expectSearch = (state: string, searching: boolean) => () => {
        if (state === 'searching' && current !== 'searching') asked.push(term);
        current = state;
        const snapshot = s.actor.getSnapshot();
        expect(snapshot.matches({ search: state as 'listed' })).toBe(true);
        expect(selectIsSearchingTemplates(snapshot)).toBe(searching);
        expect(s.searches.map((search) => search.term)).toEqual(asked);
        expect(selectSelectorResults(snapshot).map((t) => t.name)).toEqual(shown);
        expect(selectSelectorErrors(snapshot)).toEqual(errors);
      };
      await path.test({
        states: {
          searching: expectSearch('searching', true),
          debouncing: expectSearch('debouncing', true),
          listed: expectSearch('listed', false),
        },
        events: {
          TYPED: () => {
            term = `${term}r`;
            s.actor.send({ type: 'selector.termChanged', term });
          },
          PAUSED: () => s.clock.increment(TEMPLATE_SEARCH_DEBOUNCE_MS),
          LISTED: async () => {
            shown = [`router ${s.searches.length}`];
            s.searches.at(-1)?.result.resolve({
              published: [stock(`s-${s.searches.length}`, shown[0] ?? '')],
              scoped: [],
            });
            await flush();
          },
          FAILED: async () => {
            shown = [];
            errors.push('The server could not be reached: check your connection and try again.');
            s.searches.at(-1)?.result.reject({ status: 0, message: 'Failed to fetch' });
            await flush();
          },
        },
      });
    });
  }
});

/**
 * Model-based test of the `linking` region: Add and Add-a-set queue links that are made one at
 * a time, each answered by the test; every linked template is reported, every failure listed
 * until closed. `linkingLast` links the only queued template, `linkingMore` has one more waiting.
 */
describe('templateSelectorMachine linking against its model', () => {
  type ModelEvent =
    | { type: 'ADD' }
    | { type: 'ADD_SET' }
    | { type: 'ADD_EMPTY_SET' }
    | { type: 'LINKED' }
    | { type: 'LINK_FAILED' }
    | { type: 'ALERTS_CLOSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'templateLinkingModel',
    initial: 'idle',
    states: {
      idle: {
        on: {
          ADD: 'linkingLast',
          ADD_SET: 'linkingMore',
          ADD_EMPTY_SET: 'idle',
          ALERTS_CLOSED: 'idle',
        },
      },
      linkingLast: {
        on: {
          LINKED: 'idle',
          LINK_FAILED: 'idle',
          ADD: 'linkingMore',
          ALERTS_CLOSED: 'linkingLast',
        },
      },
      linkingMore: {
        on: { LINKED: 'linkingLast', LINK_FAILED: 'linkingLast', ALERTS_CLOSED: 'linkingMore' },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, templateSelectorMachine, {
        states: {
          idle: 'linking.idle',
          linkingLast: 'linking.linking',
          linkingMore: 'linking.linking',
        },
        events: {
          ADD: 'selector.addRequested',
          ADD_SET: 'selector.setAddRequested',
          ADD_EMPTY_SET: 'selector.setAddRequested',
          LINKED: 'xstate.done.actor.linkTemplate',
          LINK_FAILED: 'xstate.error.actor.linkTemplate',
          ALERTS_CLOSED: 'selector.errorDismissed',
        },
        // The other region: the search model above.
        unmodelledStates: ['search'],
        unmodelledEvents: ['selector.termChanged'],
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
      const s = startControlledSelector();
      // Two templates of the 'lab' workspace form a set; 'elsewhere' has none listed.
      s.searches[0]?.result.resolve({ published: [LINUX, LAB_A, LAB_B], scoped: [] });
      await flush();
      let queue: string[] = [];
      /** The templates whose link was answered, in order; the queue's head is being linked. */
      const answered: string[] = [];
      const reported: string[] = [];
      let errors: string[] = [];
      let next = 0;
      const expectLinking = (state: string) => () => {
        const snapshot = s.actor.getSnapshot();
        expect(snapshot.matches({ linking: state === 'idle' ? 'idle' : 'linking' })).toBe(true);
        expect(selectLinkQueue(snapshot)).toEqual(queue);
        expect(s.links.map((l) => l.templateId)).toEqual([...answered, ...queue.slice(0, 1)]);
        expect(s.reports.map((r) => r.template.id)).toEqual(reported);
        expect(selectSelectorErrors(snapshot)).toEqual(errors);
      };
      const answer = async (outcome: 'ok' | 'failed') => {
        const link = s.links.at(-1);
        answered.push(queue[0] ?? '');
        if (outcome === 'ok') {
          reported.push(`copy-${link?.templateId}`);
          link?.result.resolve({
            id: `copy-${link.templateId}`,
            name: 'copy',
            workspaceId: 'ws-1',
          });
        } else {
          errors = [...errors, 'You are not allowed to do this.'];
          link?.result.reject({ status: 403, message: 'ActionForbidden' });
        }
        queue = queue.slice(1);
        await flush();
      };
      await path.test({
        states: {
          idle: expectLinking('idle'),
          linkingLast: expectLinking('linkingLast'),
          linkingMore: expectLinking('linkingMore'),
        },
        events: {
          ADD: () => {
            const id = `s-${++next}`;
            queue = [...queue, id];
            s.actor.send({ type: 'selector.addRequested', templateId: id });
          },
          ADD_SET: () => {
            // Sorted by name: lab-client (l-2) before lab-router (l-1).
            queue = [...queue, 'l-2', 'l-1'];
            s.actor.send({ type: 'selector.setAddRequested', sourceWorkspaceId: 'lab' });
          },
          ADD_EMPTY_SET: () =>
            s.actor.send({ type: 'selector.setAddRequested', sourceWorkspaceId: 'elsewhere' }),
          LINKED: () => answer('ok'),
          LINK_FAILED: () => answer('failed'),
          ALERTS_CLOSED: () => {
            for (const _ of errors) s.actor.send({ type: 'selector.errorDismissed', index: 0 });
            errors = [];
          },
        },
      });
    });
  }
});

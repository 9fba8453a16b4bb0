import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import type { Template, TemplateSummary } from '../api/template';
import { flush } from './testing/deferred';
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
      'Template Limit Reached',
      'Template Limit Reached',
    ]);
    expect(s.reports).toEqual([]);
    s.actor.send({ type: 'selector.errorDismissed', index: 1 });
    expect(selectSelectorErrors(s.actor.getSnapshot())).toEqual(['Template Limit Reached']);
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
    expect(selectSelectorErrors(s.actor.getSnapshot())).toEqual(['Action Forbidden']);
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
    expect(selectSelectorErrors(s.actor.getSnapshot())).toEqual(['Failed to fetch']);
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

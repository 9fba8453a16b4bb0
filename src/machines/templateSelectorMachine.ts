import {
  assign,
  enqueueActions,
  fromPromise,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { Template, TemplateSummary } from '../api/template';
import { errorMessage } from '../domain/text';

/** The template search waits for typing to pause this long (spec §9). */
export const TEMPLATE_SEARCH_DEBOUNCE_MS = 250;

export type TemplateSelectorEvent =
  | { type: 'selector.termChanged'; term: string }
  /** Add: link one template into the workspace. */
  | { type: 'selector.addRequested'; templateId: string }
  /** Add a template set: every listed template of one source workspace. */
  | { type: 'selector.setAddRequested'; sourceWorkspaceId: string }
  | { type: 'selector.errorDismissed'; index: number };

/** What the selector tells the template list: a template was linked into the workspace. */
export type TemplateSelectorReport = { type: 'template.linked'; template: Template };

export interface TemplateSelectorInput {
  workspaceId: string;
  reportTo?: ActorRef<Snapshot<unknown>, TemplateSelectorReport>;
}

export interface TemplateSelectorContext {
  workspaceId: string;
  term: string;
  results: TemplateSummary[];
  /** Templates waiting to be linked, in order; the first is being linked. */
  queue: string[];
  /** Link (and search) failures, camel-case split, appended until dismissed (spec §8). */
  errors: string[];
  reportTo: TemplateSelectorInput['reportTo'] | null;
}

/** A set of templates from one source workspace, offered when it has at least 2 results. */
export interface TemplateSet {
  workspaceId: string;
  name: string;
  count: number;
}

const byName = (a: TemplateSummary, b: TemplateSummary) =>
  (a.name ?? '').localeCompare(b.name ?? '', undefined, { sensitivity: 'base' });

/**
 * The search results (spec §2 Template selector, §7): the published templates matching the term
 * and the workspace's audience-scoped ones (which the server does not filter: the term is
 * matched here, in name and description), without duplicates, sorted by name.
 */
export function mergeResults(
  published: readonly TemplateSummary[],
  scoped: readonly TemplateSummary[],
  term: string,
): TemplateSummary[] {
  const needle = term.trim().toLowerCase();
  const matches = (t: TemplateSummary) =>
    needle === '' ||
    (t.name ?? '').toLowerCase().includes(needle) ||
    (t.description ?? '').toLowerCase().includes(needle);
  const seen = new Set(published.map((t) => t.id));
  return [...published, ...scoped.filter((t) => !seen.has(t.id) && matches(t))].sort(byName);
}

/** Template sets: the source workspaces with at least 2 results (stock templates have none). */
export function templateSets(results: readonly TemplateSummary[]): TemplateSet[] {
  const sets = new Map<string, TemplateSet>();
  for (const t of results) {
    if (!t.workspaceId) continue;
    const set = sets.get(t.workspaceId);
    if (set) set.count += 1;
    else
      sets.set(t.workspaceId, {
        workspaceId: t.workspaceId,
        name: t.workspaceName ?? '',
        count: 1,
      });
  }
  return [...sets.values()].filter((set) => set.count >= 2);
}

const notProvided = (name: string): Error =>
  new Error(`templateSelectorMachine: '${name}' is provided by the app (src/app)`);

/**
 * The template selector (spec §2 Templates tab, "Template editor and selector"). Two regions:
 * - `search`: lists the templates on start, then 250 ms after typing pauses.
 * - `linking`: links templates one at a time from a queue (one for Add, several for a set),
 *   reporting each linked template to the list; each failure is appended to the error list and
 *   the queue goes on.
 */
export const templateSelectorMachine = setup({
  types: {
    input: {} as TemplateSelectorInput,
    context: {} as TemplateSelectorContext,
    events: {} as TemplateSelectorEvent,
  },
  actors: {
    /** GET templates?term&filter=published and GET workspace/{id}/templates. */
    searchTemplates: fromPromise<
      { published: TemplateSummary[]; scoped: TemplateSummary[] },
      { workspaceId: string; term: string }
    >(() => {
      throw notProvided('searchTemplates');
    }),
    /** POST template {templateId, workspaceId}: the new linked template. */
    linkTemplate: fromPromise<Template, { templateId: string; workspaceId: string }>(() => {
      throw notProvided('linkTemplate');
    }),
  },
  actions: {
    setTerm: assign({
      term: ({ context, event }) =>
        event.type === 'selector.termChanged' ? String(event.term ?? '') : context.term,
    }),
    enqueueOne: assign({
      queue: ({ context, event }) =>
        event.type === 'selector.addRequested' && event.templateId
          ? [...context.queue, event.templateId]
          : context.queue,
    }),
    enqueueSet: assign({
      queue: ({ context, event }) =>
        event.type === 'selector.setAddRequested'
          ? [
              ...context.queue,
              ...context.results
                .filter((t) => t.workspaceId && t.workspaceId === event.sourceWorkspaceId)
                .map((t) => t.id),
            ]
          : context.queue,
    }),
    reportLinked: enqueueActions(
      ({ context, enqueue }, { template }: { template: Template | undefined }) => {
        if (context.reportTo && template) {
          enqueue.sendTo(context.reportTo, { type: 'template.linked', template });
        }
      },
    ),
    dequeue: assign({ queue: ({ context }) => context.queue.slice(1) }),
    recordError: assign({
      errors: ({ context }, { error }: { error: unknown }) => [
        ...context.errors,
        errorMessage(error),
      ],
    }),
    dismissError: assign({
      errors: ({ context, event }) =>
        event.type === 'selector.errorDismissed'
          ? context.errors.filter((_, i) => i !== event.index)
          : context.errors,
    }),
  },
  guards: {
    isAddOfTemplate: ({ event }) => event.type === 'selector.addRequested' && !!event.templateId,
    hasSetMembers: ({ context, event }) =>
      event.type === 'selector.setAddRequested' &&
      context.results.some((t) => t.workspaceId && t.workspaceId === event.sourceWorkspaceId),
    /** More than the template just linked is waiting. */
    hasMoreQueued: ({ context }) => context.queue.length > 1,
  },
  delays: { templateSearchDebounce: TEMPLATE_SEARCH_DEBOUNCE_MS },
}).createMachine({
  id: 'templateSelector',
  description:
    'The template selector: searches published and scoped templates 250 ms after typing pauses; links templates one at a time (one, or a set), reporting each and listing failures.',
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    term: '',
    results: [],
    queue: [],
    errors: [],
    reportTo: input.reportTo ?? null,
  }),
  on: { 'selector.errorDismissed': { actions: 'dismissError' } },
  type: 'parallel',
  states: {
    search: {
      initial: 'searching',
      on: {
        'selector.termChanged': { target: '.debouncing', reenter: true, actions: 'setTerm' },
      },
      states: {
        debouncing: { after: { templateSearchDebounce: 'searching' } },
        searching: {
          invoke: {
            id: 'searchTemplates',
            src: 'searchTemplates',
            input: ({ context }) => ({ workspaceId: context.workspaceId, term: context.term }),
            onDone: {
              target: 'listed',
              actions: assign({
                results: ({ context, event }) =>
                  mergeResults(
                    event.output?.published ?? [],
                    event.output?.scoped ?? [],
                    context.term,
                  ),
              }),
            },
            onError: {
              target: 'listed',
              actions: [
                assign({ results: [] }),
                { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
              ],
            },
          },
        },
        listed: {},
      },
    },
    linking: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'selector.addRequested': {
              guard: 'isAddOfTemplate',
              target: 'linking',
              actions: 'enqueueOne',
            },
            'selector.setAddRequested': {
              guard: 'hasSetMembers',
              target: 'linking',
              actions: 'enqueueSet',
            },
          },
        },
        linking: {
          on: {
            'selector.addRequested': { actions: 'enqueueOne' },
            'selector.setAddRequested': { actions: 'enqueueSet' },
          },
          invoke: {
            id: 'linkTemplate',
            src: 'linkTemplate',
            input: ({ context }) => ({
              templateId: context.queue[0] ?? '',
              workspaceId: context.workspaceId,
            }),
            // Each answer is reported (or its failure listed) and taken off the queue.
            onDone: [
              {
                guard: 'hasMoreQueued',
                target: 'linking',
                reenter: true,
                actions: [
                  { type: 'reportLinked', params: ({ event }) => ({ template: event.output }) },
                  'dequeue',
                ],
              },
              {
                target: 'idle',
                actions: [
                  { type: 'reportLinked', params: ({ event }) => ({ template: event.output }) },
                  'dequeue',
                ],
              },
            ],
            onError: [
              {
                guard: 'hasMoreQueued',
                target: 'linking',
                reenter: true,
                actions: [
                  { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
                  'dequeue',
                ],
              },
              {
                target: 'idle',
                actions: [
                  { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
                  'dequeue',
                ],
              },
            ],
          },
        },
      },
    },
  },
});

export type TemplateSelectorActorRef = ActorRefFrom<typeof templateSelectorMachine>;
export type TemplateSelectorSnapshot = SnapshotFrom<typeof templateSelectorMachine>;

import {
  assign,
  enqueueActions,
  fromPromise,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';
import { createPagedSearchMachine } from './pagedSearchMachine';
import { templateDetailMachine, type TemplateDetailActorRef } from './templateDetailMachine';

/** A row of the admin template list (a TemplateSummary). */
export interface TemplateRow {
  id: string;
  name: string;
  workspaceId: string | null;
  workspaceName: string | null;
  parentName: string | null;
  isLinked: boolean;
  isPublished: boolean;
  /** Why the hypervisor cannot run it; absent when it can. */
  unavailable?: string;
}

/** Spec §9: template search waits 250 ms; the admin list shows 100 at a time. */
export const TEMPLATE_SEARCH_DEBOUNCE_MS = 250;
export const TEMPLATE_TAKE = 100;

export const templateListSearchMachine = createPagedSearchMachine<TemplateRow>();

export type TemplateManagerEvent =
  | { type: 'template.selected'; id: string }
  | { type: 'template.createRequested' }
  | { type: 'template.cloneRequested' }
  /** From the open detail: it was saved, so the list reloads to show it. */
  | { type: 'template.saved'; id: string }
  | { type: 'alert.dismissed' };

export interface TemplateManagerInput {
  /** The `term` of admin/templates?term=: often a workspace id. */
  term: string;
}

export interface TemplateManagerContext {
  term: string;
  selectedId: string | null;
  detail: TemplateDetailActorRef | null;
  error: string | null;
}

/**
 * The admin template manager (spec §2 admin/templates?term=): the template search (a child),
 * the detail of the selected template (a child), and the creation of stock templates and clones,
 * each of which opens the new template.
 */
export const templateManagerMachine = setup({
  types: {
    input: {} as TemplateManagerInput,
    context: {} as TemplateManagerContext,
    events: {} as TemplateManagerEvent,
    // 'creating': a new stock template or a clone is on its way.
    tags: {} as 'creating',
  },
  actors: {
    /** Provide it with its fetchPage (GET templates). */
    templateSearch: templateListSearchMachine,
    /** Provide it with its loadDetail and saveDetail. */
    templateDetail: templateDetailMachine,
    /** POST template-detail with a default name; returns the new template's id. */
    createTemplate: fromPromise<string, void>(() => {
      throw new Error('templateManagerMachine: provide the createTemplate actor');
    }),
    /** POST template/clone; returns the clone's id. */
    cloneTemplate: fromPromise<string, { id: string }>(() => {
      throw new Error('templateManagerMachine: provide the cloneTemplate actor');
    }),
  },
  guards: {
    hasSelection: ({ context }) => context.selectedId !== null,
  },
  actions: {
    open: enqueueActions(({ context, enqueue, self }, id: string) => {
      // Graph traversals send done events bare: there is nothing to open.
      if (!id) return;
      if (context.detail) enqueue.stopChild(context.detail);
      enqueue.assign({
        selectedId: id,
        detail: ({ spawn }) =>
          spawn('templateDetail', { id: `detail-${id}`, input: { id, parentRef: self } }),
      });
    }),
    refreshList: enqueueActions(({ enqueue }) =>
      enqueue.sendTo('search', { type: 'search.refreshRequested' }),
    ),
  },
}).createMachine({
  id: 'templateManager',
  description:
    'The admin template manager: a search of every template, the selected one open in its detail form, and new stock templates and clones that open once created.',
  context: ({ input }) => ({ term: input.term, selectedId: null, detail: null, error: null }),
  invoke: {
    id: 'search',
    src: 'templateSearch',
    input: ({ context }) => ({
      term: context.term,
      take: TEMPLATE_TAKE,
      debounceMs: TEMPLATE_SEARCH_DEBOUNCE_MS,
    }),
  },
  on: {
    'template.selected': {
      actions: { type: 'open', params: ({ event }) => event.id },
    },
    'template.saved': { actions: 'refreshList' },
    'alert.dismissed': { actions: assign({ error: null }) },
  },
  initial: 'browsing',
  states: {
    browsing: {
      on: {
        'template.createRequested': 'creating',
        'template.cloneRequested': { guard: 'hasSelection', target: 'cloning' },
      },
    },
    creating: {
      tags: ['creating'],
      invoke: {
        src: 'createTemplate',
        onDone: {
          target: 'browsing',
          actions: [{ type: 'open', params: ({ event }) => event.output }, 'refreshList'],
        },
        onError: {
          target: 'browsing',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    cloning: {
      tags: ['creating'],
      invoke: {
        src: 'cloneTemplate',
        input: ({ context }) => ({ id: context.selectedId ?? '' }),
        onDone: {
          target: 'browsing',
          actions: [{ type: 'open', params: ({ event }) => event.output }, 'refreshList'],
        },
        onError: {
          target: 'browsing',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
  },
});

export type TemplateManagerActorRef = ActorRefFrom<typeof templateManagerMachine>;
export type TemplateManagerSnapshot = SnapshotFrom<typeof templateManagerMachine>;

import {
  assertEvent,
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

export type TemplateActionsEvent =
  | { type: 'template.unlinkRequested' }
  /** Re-link: list the sibling revisions to choose from. */
  | { type: 'template.relinkRequested' }
  | { type: 'template.siblingChosen'; parentId: string }
  | { type: 'template.relinkCancelled' }
  | { type: 'template.deleteRequested' }
  | { type: 'template.deleteConfirmed' }
  | { type: 'template.deleteCancelled' }
  | { type: 'template.errorDismissed'; index: number };

/** What the actions tell their template editor. */
export type TemplateActionsReport =
  /** An unlink or re-link succeeded: the template as it now is. */
  | { type: 'template.linkChanged'; template: Template }
  | { type: 'template.deleted'; templateId: string };

export interface TemplateActionsInput {
  templateId: string;
  workspaceId: string;
  reportTo?: ActorRef<Snapshot<unknown>, TemplateActionsReport>;
}

export interface TemplateActionsContext extends Required<Omit<TemplateActionsInput, 'reportTo'>> {
  /** The sibling revisions offered by Re-link. */
  siblings: TemplateSummary[];
  /** Failed unlinks, re-links and deletes, until dismissed. */
  errors: string[];
  reportTo: TemplateActionsInput['reportTo'] | null;
}

const notProvided = (name: string): Error =>
  new Error(`templateActionsMachine: '${name}' is provided by the app (src/app)`);

/** A failed request is listed until dismissed; the actions can be used again. */
const REQUEST_FAILED = {
  target: 'idle',
  actions: {
    type: 'recordError',
    params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }),
  },
} as const;

/** An unlink or re-link answered with the template as it now is. */
const LINK_CHANGED = {
  target: 'idle',
  actions: {
    type: 'reportLinkChanged',
    params: ({ event }: { event: { output: Template } }) => ({ template: event.output }),
  },
} as const;

/**
 * What an author does to a template besides editing its fields (spec §2 Template editor, §5):
 * Unlink, Re-link to a sibling revision, Delete with confirmation, one at a time. Its template
 * editor decides what may be asked (nothing while the template is deployed; Unlink for a linked
 * template, Re-link for an unlinked one with a parent) and hears of every change of the template;
 * failures are listed here until dismissed.
 */
export const templateActionsMachine = setup({
  types: {
    input: {} as TemplateActionsInput,
    context: {} as TemplateActionsContext,
    events: {} as TemplateActionsEvent,
    // 'busy': an unlink, re-link or delete is in flight.
    tags: {} as 'busy',
  },
  actors: {
    /** POST template/unlink: the template as it now is. */
    unlinkTemplate: fromPromise<Template, { templateId: string; workspaceId: string }>(() => {
      throw notProvided('unlinkTemplate');
    }),
    /** GET template/{id}/siblings?pub=true. */
    listSiblings: fromPromise<TemplateSummary[], { templateId: string }>(() => {
      throw notProvided('listSiblings');
    }),
    /** POST template/relink: the template as it now is. */
    relinkTemplate: fromPromise<
      Template,
      { templateId: string; parentId: string; workspaceId: string }
    >(() => {
      throw notProvided('relinkTemplate');
    }),
    /** DELETE template/{id}. */
    deleteTemplate: fromPromise<unknown, { templateId: string }>(() => {
      throw notProvided('deleteTemplate');
    }),
  },
  actions: {
    reportLinkChanged: enqueueActions(
      ({ context, enqueue }, { template }: { template: Template }) => {
        if (context.reportTo)
          enqueue.sendTo(context.reportTo, { type: 'template.linkChanged', template });
      },
    ),
    reportDeleted: enqueueActions(({ context, enqueue }) => {
      if (context.reportTo) {
        enqueue.sendTo(context.reportTo, {
          type: 'template.deleted',
          templateId: context.templateId,
        });
      }
    }),
    recordError: assign({
      errors: ({ context }, { error }: { error: unknown }) => [
        ...context.errors,
        errorMessage(error),
      ],
    }),
    dismissError: assign({
      errors: ({ context, event }) => {
        assertEvent(event, 'template.errorDismissed');
        return context.errors.filter((_, i) => i !== event.index);
      },
    }),
  },
}).createMachine({
  id: 'templateActions',
  description:
    "A template's Unlink, Re-link to a sibling revision, and Delete with confirmation, one at a time; each change of the template goes to its editor, each failure is listed until dismissed.",
  context: ({ input }) => ({
    templateId: input.templateId,
    workspaceId: input.workspaceId,
    siblings: [],
    errors: [],
    reportTo: input.reportTo ?? null,
  }),
  on: { 'template.errorDismissed': { actions: 'dismissError' } },
  initial: 'idle',
  states: {
    idle: {
      on: {
        'template.unlinkRequested': 'unlinking',
        'template.relinkRequested': 'loadingSiblings',
        'template.deleteRequested': 'confirmingDelete',
      },
    },
    unlinking: {
      tags: ['busy'],
      invoke: {
        id: 'unlinkTemplate',
        src: 'unlinkTemplate',
        input: ({ context }) => ({
          templateId: context.templateId,
          workspaceId: context.workspaceId,
        }),
        onDone: LINK_CHANGED,
        onError: REQUEST_FAILED,
      },
    },
    loadingSiblings: {
      tags: ['busy'],
      invoke: {
        id: 'listSiblings',
        src: 'listSiblings',
        input: ({ context }) => ({ templateId: context.templateId }),
        onDone: {
          target: 'choosingSibling',
          actions: assign({ siblings: ({ event }) => event.output ?? [] }),
        },
        onError: REQUEST_FAILED,
      },
    },
    /** The siblings are listed (perhaps none); choosing one re-links to it. */
    choosingSibling: {
      on: {
        'template.siblingChosen': 'relinking',
        'template.relinkCancelled': 'idle',
      },
    },
    relinking: {
      tags: ['busy'],
      invoke: {
        id: 'relinkTemplate',
        src: 'relinkTemplate',
        input: ({ context, event }) => {
          assertEvent(event, 'template.siblingChosen');
          return {
            templateId: context.templateId,
            parentId: event.parentId ?? '',
            workspaceId: context.workspaceId,
          };
        },
        onDone: LINK_CHANGED,
        onError: REQUEST_FAILED,
      },
    },
    confirmingDelete: {
      on: {
        'template.deleteConfirmed': 'deleting',
        'template.deleteCancelled': 'idle',
      },
    },
    deleting: {
      tags: ['busy'],
      invoke: {
        id: 'deleteTemplate',
        src: 'deleteTemplate',
        input: ({ context }) => ({ templateId: context.templateId }),
        onDone: 'deleted',
        onError: REQUEST_FAILED,
      },
    },
    /** Gone from the server; the list removes the editor. */
    deleted: { entry: 'reportDeleted' },
  },
});

export type TemplateActionsActorRef = ActorRefFrom<typeof templateActionsMachine>;
export type TemplateActionsSnapshot = SnapshotFrom<typeof templateActionsMachine>;

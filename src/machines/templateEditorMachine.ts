import {
  and,
  assign,
  enqueueActions,
  fromPromise,
  not,
  sendTo,
  setup,
  stateIn,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { ChangedTemplate, Template, TemplateSummary } from '../api/template';
import {
  changedTemplate,
  hyphenateName,
  TEMPLATE_TEXT_FIELDS,
  templateValuesOf as valuesOf,
  validateTemplate,
  type TemplateField,
  type TemplateValues,
} from '../domain/templateFields';
import { errorMessage } from '../domain/text';
import { hasChanges, mergeRemote } from './formSync';
import { isoChooserMachine } from './isoChooserMachine';
import { vmControllerMachine } from './vmControllerMachine';

/** Shown, and every edit refused, while the template has a deployed machine (spec §2, §8). */
export const DEPLOYED_MESSAGE = 'Cannot edit while template is deployed.';

export type TemplateEditorEvent =
  /** The user typed in a field, or toggled Hidden, or chose an ISO. */
  | { type: 'template.fieldEdited'; field: TemplateField; value: string | boolean }
  /** A field lost focus (or a choice was made): the moment a valid change is saved (spec §4). */
  | { type: 'template.fieldBlurred' }
  /** TEMPLATE.UPDATED: the server's copy changed. */
  | { type: 'template.updatedRemotely'; template: Template }
  /** Whether the template has a deployed machine (sent by its machine controller). */
  | { type: 'template.deploymentChanged'; deployed: boolean }
  | { type: 'template.unlinkRequested' }
  /** Re-link: list the sibling revisions to choose from. */
  | { type: 'template.relinkRequested' }
  | { type: 'template.siblingChosen'; parentId: string }
  | { type: 'template.relinkCancelled' }
  | { type: 'template.deleteRequested' }
  | { type: 'template.deleteConfirmed' }
  | { type: 'template.deleteCancelled' }
  | { type: 'template.errorDismissed'; index: number };

/** What an editor tells the template list. */
export type TemplateEditorReport = { type: 'template.deleted'; templateId: string };

export interface TemplateEditorInput {
  template: Template;
  workspaceId: string;
  /** Whether the template has a deployed machine when the editor opens. */
  deployed?: boolean;
  reportTo?: ActorRef<Snapshot<unknown>, TemplateEditorReport>;
}

export interface TemplateEditorContext {
  workspaceId: string;
  /** The server's copy: identity, link state and parent, and the saved field values. */
  template: Template;
  values: TemplateValues;
  saved: TemplateValues;
  sending: TemplateValues;
  messages: Partial<Record<TemplateField, string>>;
  /** Why the last save failed, camel-case split; cleared when the next save starts. */
  saveError: string | null;
  /** The sibling revisions offered by Re-link. */
  siblings: TemplateSummary[];
  /** Failed unlinks, re-links and deletes, until dismissed. */
  errors: string[];
  deployedAtStart: boolean;
  reportTo: TemplateEditorInput['reportTo'] | null;
}

/** Server refusals as the editor explains them; TemplateHasDescendents above all (spec §8). */
export function templateErrorMessage(error: unknown): string {
  const message = errorMessage(error);
  return message === 'Template Has Descendents'
    ? 'Template Has Descendents: other templates were made from this one, so it cannot be deleted.'
    : message;
}

const isField = (field: unknown): field is TemplateField =>
  field === 'isHidden' || (TEMPLATE_TEXT_FIELDS as readonly unknown[]).includes(field);

const notProvided = (name: string): Error =>
  new Error(`templateEditorMachine: '${name}' is provided by the app (src/app)`);

const isLocked = stateIn('#templateEditor.lock.locked');

/** The server's copy after an unlink, re-link or remote update, merged with local edits. */
const withServerCopy = (context: TemplateEditorContext, template: Template | undefined) => {
  if (template === undefined) return {};
  const merged = mergeRemote(context.values, context.saved, valuesOf(template));
  return { template, ...merged, messages: validateTemplate(merged.values) };
};

/**
 * One template of the Templates tab (spec §2 Template editor, §4, §5). Three regions:
 * - `lock`: the template has a deployed machine (`locked`) or not. While locked, edits, unlink,
 *   re-link and delete are refused and DEPLOYED_MESSAGE shows.
 * - `form`: autosave on blur, only when unlocked and the values are valid and changed (`canSave`
 *   guards every blur transition). A blur during a save queues one more. The name's spaces become
 *   hyphens as it is typed. Remote updates replace the fields not being edited (`mergeRemote`).
 * - `actions`: Unlink (linked templates), Re-link to a sibling revision (unlinked ones), Delete
 *   with confirmation; failures are listed until dismissed, and a delete is reported to the list.
 */
export const templateEditorMachine = setup({
  types: {
    input: {} as TemplateEditorInput,
    context: {} as TemplateEditorContext,
    events: {} as TemplateEditorEvent,
    // 'busy': an unlink, re-link or delete is in flight.
    tags: {} as 'busy',
  },
  actors: {
    /** PUT template. */
    saveTemplate: fromPromise<unknown, ChangedTemplate>(() => {
      throw notProvided('saveTemplate');
    }),
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
    /** The ISO chooser of the iso field; provide it with its search. */
    isoChooser: isoChooserMachine,
    /** The template's machine; it locks this editor while deployed (template.deploymentChanged). */
    vmController: vmControllerMachine,
  },
  actions: {
    edit: assign(({ context, event }) => {
      // Events without a known field (a model traversal's) change nothing.
      if (event.type !== 'template.fieldEdited' || !isField(event.field)) return {};
      const value =
        event.field === 'isHidden'
          ? event.value === true
          : event.field === 'name'
            ? hyphenateName(String(event.value ?? ''))
            : String(event.value ?? '');
      const values = { ...context.values, [event.field]: value };
      return { values, messages: validateTemplate(values) };
    }),
    mergeRemote: assign(({ context, event }) =>
      event.type === 'template.updatedRemotely' ? withServerCopy(context, event.template) : {},
    ),
    startSending: assign({ sending: ({ context }) => context.values, saveError: null }),
    markSent: assign({ saved: ({ context }) => context.sending }),
    recordActionError: assign({
      errors: ({ context, event }) => [
        ...context.errors,
        templateErrorMessage((event as { error?: unknown }).error),
      ],
    }),
    dismissError: assign({
      errors: ({ context, event }) =>
        event.type === 'template.errorDismissed'
          ? context.errors.filter((_, i) => i !== event.index)
          : context.errors,
    }),
    /** The machine controller offers Save by the link state, and reloads when it changes. */
    tellVmController: sendTo('vmController', ({ context }) => ({
      type: 'vm.templateChanged' as const,
      template: {
        id: context.template.id,
        name: context.template.name ?? '',
        isLinked: context.template.isLinked === true,
        workspaceId: context.workspaceId,
      },
    })),
    reportDeleted: enqueueActions(({ context, enqueue }) => {
      if (context.reportTo) {
        enqueue.sendTo(context.reportTo, {
          type: 'template.deleted',
          templateId: context.template.id,
        });
      }
    }),
  },
  guards: {
    /** Changes were blurred during the save, and they may still be saved. */
    canResave: and([stateIn('#templateEditor.form.saving.resaveQueued'), 'isValid']),
    isDeployedAtStart: ({ context }) => context.deployedAtStart,
    isDeployed: ({ event }) => event.type === 'template.deploymentChanged' && event.deployed,
    isValid: ({ context }) => Object.keys(context.messages).length === 0,
    canSave: and([
      not(isLocked),
      ({ context }) =>
        Object.keys(context.messages).length === 0 && hasChanges(context.values, context.saved),
    ]),
    isChangedSinceSent: ({ context }) => hasChanges(context.values, context.sending),
    hasUnsentChanges: and([
      not(isLocked),
      ({ context }) =>
        Object.keys(context.messages).length === 0 && hasChanges(context.values, context.sending),
    ]),
    canUnlink: and([not(isLocked), ({ context }) => context.template.isLinked === true]),
    canRelink: and([
      not(isLocked),
      ({ context }) => context.template.isLinked !== true && !!context.template.parentId,
    ]),
    isUnlocked: not(isLocked),
  },
}).createMachine({
  id: 'templateEditor',
  description:
    'One template: a lock while deployed; a form that autosaves on blur when unlocked, valid and changed; unlink, re-link to a sibling revision, and delete with confirmation.',
  context: ({ input }) => {
    const values = valuesOf(input.template);
    return {
      workspaceId: input.workspaceId,
      template: input.template,
      values,
      saved: values,
      sending: values,
      messages: validateTemplate(values),
      saveError: null,
      siblings: [],
      errors: [],
      deployedAtStart: input.deployed ?? false,
      reportTo: input.reportTo ?? null,
    };
  },
  invoke: [
    {
      id: 'isoChooser',
      src: 'isoChooser',
      input: ({ context }) => ({ workspaceId: context.workspaceId }),
    },
    {
      id: 'vmController',
      src: 'vmController',
      input: ({ context, self }) => ({
        template: {
          id: context.template.id,
          name: context.template.name ?? '',
          isLinked: context.template.isLinked === true,
          workspaceId: context.workspaceId,
        },
        reportTo: self,
      }),
    },
  ],
  on: {
    'template.updatedRemotely': { actions: ['mergeRemote', 'tellVmController'] },
    'template.errorDismissed': { actions: 'dismissError' },
  },
  type: 'parallel',
  states: {
    lock: {
      initial: 'checking',
      states: {
        checking: {
          always: [{ guard: 'isDeployedAtStart', target: 'locked' }, { target: 'unlocked' }],
        },
        unlocked: {
          on: { 'template.deploymentChanged': { guard: 'isDeployed', target: 'locked' } },
        },
        locked: {
          on: { 'template.deploymentChanged': { guard: not('isDeployed'), target: 'unlocked' } },
        },
      },
    },
    form: {
      initial: 'clean',
      states: {
        clean: {
          on: {
            'template.fieldEdited': { guard: 'isUnlocked', target: 'editing', actions: 'edit' },
          },
        },
        editing: {
          on: {
            'template.fieldEdited': { guard: 'isUnlocked', actions: 'edit' },
            'template.fieldBlurred': { guard: 'canSave', target: 'saving' },
          },
        },
        saving: {
          entry: 'startSending',
          invoke: {
            src: 'saveTemplate',
            input: ({ context }) => changedTemplate(context.template.id, context.sending),
            onDone: [
              {
                guard: 'canResave',
                target: 'saving',
                reenter: true,
                actions: 'markSent',
              },
              { guard: 'isChangedSinceSent', target: 'editing', actions: 'markSent' },
              { target: 'saved', actions: 'markSent' },
            ],
            onError: {
              target: 'failed',
              actions: assign({ saveError: ({ event }) => templateErrorMessage(event.error) }),
            },
          },
          on: { 'template.fieldEdited': { guard: 'isUnlocked', actions: 'edit' } },
          initial: 'sending',
          states: {
            sending: {
              on: {
                'template.fieldBlurred': { guard: 'hasUnsentChanges', target: 'resaveQueued' },
              },
            },
            resaveQueued: {},
          },
        },
        saved: {
          on: {
            'template.fieldEdited': { guard: 'isUnlocked', target: 'editing', actions: 'edit' },
          },
        },
        failed: {
          on: {
            'template.fieldEdited': { guard: 'isUnlocked', actions: 'edit' },
            'template.fieldBlurred': { guard: 'canSave', target: 'saving' },
          },
        },
      },
    },
    actions: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'template.unlinkRequested': { guard: 'canUnlink', target: 'unlinking' },
            'template.relinkRequested': { guard: 'canRelink', target: 'loadingSiblings' },
            'template.deleteRequested': { guard: 'isUnlocked', target: 'confirmingDelete' },
          },
        },
        unlinking: {
          tags: ['busy'],
          invoke: {
            src: 'unlinkTemplate',
            input: ({ context }) => ({
              templateId: context.template.id,
              workspaceId: context.workspaceId,
            }),
            onDone: {
              target: 'idle',
              actions: [
                assign(({ context, event }) => withServerCopy(context, event.output)),
                'tellVmController',
              ],
            },
            onError: { target: 'idle', actions: 'recordActionError' },
          },
        },
        loadingSiblings: {
          tags: ['busy'],
          invoke: {
            src: 'listSiblings',
            input: ({ context }) => ({ templateId: context.template.id }),
            onDone: {
              target: 'choosingSibling',
              actions: assign({ siblings: ({ event }) => event.output ?? [] }),
            },
            onError: { target: 'idle', actions: 'recordActionError' },
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
            src: 'relinkTemplate',
            input: ({ context, event }) => ({
              templateId: context.template.id,
              parentId: event.type === 'template.siblingChosen' ? event.parentId : '',
              workspaceId: context.workspaceId,
            }),
            onDone: {
              target: 'idle',
              actions: [
                assign(({ context, event }) => withServerCopy(context, event.output)),
                'tellVmController',
              ],
            },
            onError: { target: 'idle', actions: 'recordActionError' },
          },
        },
        confirmingDelete: {
          on: {
            'template.deleteConfirmed': { guard: 'isUnlocked', target: 'deleting' },
            'template.deleteCancelled': 'idle',
          },
        },
        deleting: {
          tags: ['busy'],
          invoke: {
            src: 'deleteTemplate',
            input: ({ context }) => ({ templateId: context.template.id }),
            onDone: { target: 'deleted', actions: 'reportDeleted' },
            onError: { target: 'idle', actions: 'recordActionError' },
          },
        },
        /** Gone from the server; the list removes this editor. */
        deleted: {},
      },
    },
  },
});

export type TemplateEditorActorRef = ActorRefFrom<typeof templateEditorMachine>;
export type TemplateEditorSnapshot = SnapshotFrom<typeof templateEditorMachine>;

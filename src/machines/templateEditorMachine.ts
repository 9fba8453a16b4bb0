import {
  and,
  assertEvent,
  enqueueActions,
  forwardTo,
  not,
  sendTo,
  setup,
  stateIn,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { Template } from '../api/template';
import {
  changedTemplate,
  templateValuesOf as valuesOf,
  type TemplateField,
  type TemplateValues,
} from '../domain/templateFields';
import { autosaveFormMachine, type AutosaveFormReport } from './autosaveFormMachine';
import { isoChooserMachine } from './isoChooserMachine';
import {
  templateActionsMachine,
  type TemplateActionsEvent,
  type TemplateActionsReport,
} from './templateActionsMachine';
import { templateRules } from './templateFormRules';
import { vmControllerMachine, type VmControllerTemplate } from './vmControllerMachine';

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
  /** Unlink, Re-link and Delete, for the actions. */
  | TemplateActionsEvent
  | TemplateActionsReport
  /** The form's save went through: the server has these values now. */
  | AutosaveFormReport;

/** What an editor tells the template list: a delete, and each new server copy (its diagram). */
export type TemplateEditorReport =
  | { type: 'template.deleted'; templateId: string }
  | { type: 'template.changed'; template: Template };

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
  deployedAtStart: boolean;
  reportTo: TemplateEditorInput['reportTo'] | null;
}

const isLocked = stateIn('#templateEditor.locked');

/** The template as its machine controller knows it. */
const controllerTemplate = (template: Template, workspaceId: string): VmControllerTemplate => ({
  id: template.id,
  name: template.name ?? '',
  isLinked: template.isLinked === true,
  workspaceId,
});

/**
 * One template of the Templates tab (spec §2 Template editor, §4, §5). It is locked while the
 * template has a deployed machine (its machine controller says when): then DEPLOYED_MESSAGE shows,
 * and no edit, blur, unlink, re-link or delete reaches its children. Its children: the fields'
 * autosaving form (`autosaveFormMachine`: saved on blur when valid and changed), the actions
 * (`templateActionsMachine`: Unlink, Re-link, Delete; this editor decides which are offered), the
 * ISO chooser and the machine controller. Every new server copy (a remote update, an unlink or a
 * re-link) goes to the form, which keeps the fields being edited, and to the machine controller.
 */
export const templateEditorMachine = setup({
  types: {
    input: {} as TemplateEditorInput,
    context: {} as TemplateEditorContext,
    events: {} as TemplateEditorEvent,
    children: {} as {
      form: 'form';
      actions: 'actions';
      isoChooser: 'isoChooser';
      vmController: 'vmController';
    },
  },
  actors: {
    /** The fields; provide its `save` with PUT template. */
    form: autosaveFormMachine,
    /** Unlink, Re-link and Delete; provide their calls. */
    actions: templateActionsMachine,
    /** The ISO chooser of the iso field; provide it with its search. */
    isoChooser: isoChooserMachine,
    /** The template's machine; it locks this editor while deployed (template.deploymentChanged). */
    vmController: vmControllerMachine,
  },
  actions: {
    forwardEdit: sendTo('form', ({ event }) => {
      assertEvent(event, 'template.fieldEdited');
      return { type: 'form.edited' as const, edit: { field: event.field, value: event.value } };
    }),
    forwardBlur: sendTo('form', { type: 'form.blurred' }),
    forwardToActions: forwardTo('actions'),
    /**
     * A new server copy: the form takes the fields not being edited, and the machine controller,
     * which offers Save by the link state, reloads when that changes. A traversal's carries none.
     */
    takeServerCopy: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, ['template.updatedRemotely', 'template.linkChanged']);
      const { template } = event;
      if (template === undefined) return;
      enqueue.assign({ template });
      if (context.reportTo)
        enqueue.sendTo(context.reportTo, { type: 'template.changed', template });
      enqueue.sendTo('form', { type: 'form.updatedRemotely', values: valuesOf(template) });
      enqueue.sendTo('vmController', {
        type: 'vm.templateChanged',
        template: controllerTemplate(template, context.workspaceId),
      });
    }),
    /**
     * Our own save is the server's copy now (the hub does not echo it to its author): the header
     * and the machine controller show the name just saved, not the one loaded.
     */
    takeSavedValues: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'form.saved');
      // A traversal's event carries no values.
      if (typeof event.values !== 'object' || event.values === null) return;
      const saved = changedTemplate(context.template.id, event.values as TemplateValues);
      const template: Template = { ...context.template, ...saved };
      enqueue.assign({ template });
      if (context.reportTo)
        enqueue.sendTo(context.reportTo, { type: 'template.changed', template });
      enqueue.sendTo('vmController', {
        type: 'vm.templateChanged',
        template: controllerTemplate(template, context.workspaceId),
      });
    }),
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
    isDeployedAtStart: ({ context }) => context.deployedAtStart,
    isDeployed: ({ event }) => event.type === 'template.deploymentChanged' && event.deployed,
    isUnlocked: not(isLocked),
    isLinked: ({ context }) => context.template.isLinked === true,
    /** An unlinked template made from another one may take one of that one's revisions. */
    hasParent: ({ context }) => context.template.isLinked !== true && !!context.template.parentId,
    /** A linked template may be unlinked (its disks become its own). */
    canUnlink: and(['isUnlocked', 'isLinked']),
    canRelink: and(['isUnlocked', 'hasParent']),
  },
}).createMachine({
  id: 'templateEditor',
  description:
    'One template: locked while deployed; its fields in an autosaving form, and its unlink, re-link and delete, neither reached by anything while locked.',
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    template: input.template,
    deployedAtStart: input.deployed ?? false,
    reportTo: input.reportTo ?? null,
  }),
  invoke: [
    {
      id: 'form',
      src: 'form',
      input: ({ context, self }) => ({
        values: valuesOf(context.template),
        rules: templateRules(context.template.id),
        reportTo: self,
      }),
    },
    {
      id: 'actions',
      src: 'actions',
      input: ({ context, self }) => ({
        templateId: context.template.id,
        workspaceId: context.workspaceId,
        reportTo: self,
      }),
    },
    {
      id: 'isoChooser',
      src: 'isoChooser',
      input: ({ context }) => ({ workspaceId: context.workspaceId }),
    },
    {
      id: 'vmController',
      src: 'vmController',
      input: ({ context, self }) => ({
        template: controllerTemplate(context.template, context.workspaceId),
        reportTo: self,
      }),
    },
  ],
  on: {
    // While locked, the form's changes wait for the lock, and nothing is asked of the server.
    'template.fieldEdited': { guard: 'isUnlocked', actions: 'forwardEdit' },
    'template.fieldBlurred': { guard: 'isUnlocked', actions: 'forwardBlur' },
    'template.unlinkRequested': { guard: 'canUnlink', actions: 'forwardToActions' },
    'template.relinkRequested': { guard: 'canRelink', actions: 'forwardToActions' },
    'template.deleteRequested': { guard: 'isUnlocked', actions: 'forwardToActions' },
    'template.deleteConfirmed': { guard: 'isUnlocked', actions: 'forwardToActions' },
    'template.siblingChosen': { actions: 'forwardToActions' },
    'template.relinkCancelled': { actions: 'forwardToActions' },
    'template.deleteCancelled': { actions: 'forwardToActions' },
    'template.errorDismissed': { actions: 'forwardToActions' },
    'template.updatedRemotely': { actions: 'takeServerCopy' },
    'template.linkChanged': { actions: 'takeServerCopy' },
    'form.saved': { actions: 'takeSavedValues' },
    'template.deleted': { actions: 'reportDeleted' },
  },
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
});

export type TemplateEditorActorRef = ActorRefFrom<typeof templateEditorMachine>;
export type TemplateEditorSnapshot = SnapshotFrom<typeof templateEditorMachine>;

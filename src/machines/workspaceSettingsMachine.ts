import {
  assertEvent,
  enqueueActions,
  sendTo,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { Workspace } from '../api/workspace';
import {
  changedWorkspace,
  validateWorkspaceSettings,
  WORKSPACE_SETTINGS_FIELDS,
  workspaceSettingsOf as settingsOf,
  type WorkspaceSettingsField,
  type WorkspaceSettingsValues,
} from '../domain/workspaceSettings';
import {
  autosaveFormMachine,
  type AutosaveFormReport,
  type AutosaveFormRules,
} from './autosaveFormMachine';

export type WorkspaceSettingsEvent =
  /** The user typed in a field. */
  | { type: 'settings.fieldEdited'; field: WorkspaceSettingsField; value: string }
  /** A field lost focus: the moment a valid change is saved (spec §4). */
  | { type: 'settings.fieldBlurred' }
  /** The user picked a choice (the recording setting): a whole edit, saved at once when valid. */
  | { type: 'settings.fieldChosen'; field: WorkspaceSettingsField; value: string }
  /** TOPO.UPDATED: the server's copy changed (another user's save, or the echo of ours). */
  | { type: 'workspace.updatedRemotely'; workspace: Workspace }
  | AutosaveFormReport;

/** What the form tells whoever shows the workspace's name elsewhere (the editor header). */
export type WorkspaceSettingsReport = { type: 'workspace.settingsSaved'; name: string };

export interface WorkspaceSettingsInput {
  workspace: Workspace;
  reportTo?: ActorRef<Snapshot<unknown>, WorkspaceSettingsReport>;
}

export interface WorkspaceSettingsContext {
  id: string;
  /** The settings as the workspace loaded: the form starts from them. */
  loaded: WorkspaceSettingsValues;
  reportTo: WorkspaceSettingsInput['reportTo'] | null;
}

/** One typed field, as the form's edits describe it. */
type SettingsEdit = Omit<Extract<WorkspaceSettingsEvent, { type: 'settings.fieldEdited' }>, 'type'>;

const isField = (field: unknown): field is WorkspaceSettingsField =>
  (WORKSPACE_SETTINGS_FIELDS as readonly unknown[]).includes(field);

/** The workspace's fields with its limits (spec §4), saved whole with PUT workspace. */
export const workspaceSettingsRules = (
  id: string,
): AutosaveFormRules<WorkspaceSettingsValues, SettingsEdit> => ({
  // An edit without a known field (a model traversal's) changes nothing.
  edit: (values, edit) =>
    isField(edit?.field) ? { ...values, [edit.field]: String(edit.value ?? '') } : values,
  validate: validateWorkspaceSettings,
  saveInput: (values) => changedWorkspace(id, values),
});

/** The name a save gave the workspace, as the header shows it. */
const savedName = (values: object): string =>
  'name' in values && typeof values.name === 'string' ? values.name.trim() : '';

/**
 * The Settings tab's workspace form (spec §2, §4 "Settings and template forms"): an autosaving form
 * (`autosaveFormMachine`, its child) with the workspace's fields and limits. It saves on blur, only
 * when the values are valid and differ from the server's copy; the editor header hears of each
 * saved name, and TOPO.UPDATED replaces the fields the user has not changed.
 */
export const workspaceSettingsMachine = setup({
  types: {
    input: {} as WorkspaceSettingsInput,
    context: {} as WorkspaceSettingsContext,
    events: {} as WorkspaceSettingsEvent,
    children: {} as { form: 'form' },
  },
  actors: {
    /** The form; provide its `save` with PUT workspace. */
    form: autosaveFormMachine,
  },
  actions: {
    forwardEdit: sendTo('form', ({ event }) => {
      assertEvent(event, 'settings.fieldEdited');
      return { type: 'form.edited' as const, edit: { field: event.field, value: event.value } };
    }),
    forwardBlur: sendTo('form', { type: 'form.blurred' }),
    /** A choice is complete when made: the form hears the edit and, at once, the blur. */
    forwardChoice: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'settings.fieldChosen');
      enqueue.sendTo('form', {
        type: 'form.edited' as const,
        edit: { field: event.field, value: event.value },
      });
      enqueue.sendTo('form', { type: 'form.blurred' as const });
    }),
    forwardRemote: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'workspace.updatedRemotely');
      // A traversal's event carries no workspace.
      if (event.workspace === undefined) return;
      enqueue.sendTo('form', {
        type: 'form.updatedRemotely',
        values: settingsOf(event.workspace),
      });
    }),
    /** The server has the values: the header shows their name. */
    reportName: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'form.saved');
      if (context.reportTo) {
        enqueue.sendTo(context.reportTo, {
          type: 'workspace.settingsSaved',
          name: savedName(event.values ?? {}),
        });
      }
    }),
  },
}).createMachine({
  id: 'workspaceSettings',
  description:
    "The workspace settings form: an autosaving form of the workspace's fields, saved on blur (a choice when made) when changed and valid; saved names go to the editor header; remote updates go to the form.",
  context: ({ input }) => ({
    id: input.workspace.id,
    loaded: settingsOf(input.workspace),
    reportTo: input.reportTo ?? null,
  }),
  invoke: {
    id: 'form',
    src: 'form',
    input: ({ context, self }) => ({
      values: context.loaded,
      rules: workspaceSettingsRules(context.id),
      reportTo: self,
    }),
  },
  on: {
    'settings.fieldEdited': { actions: 'forwardEdit' },
    'settings.fieldBlurred': { actions: 'forwardBlur' },
    'settings.fieldChosen': { actions: 'forwardChoice' },
    'workspace.updatedRemotely': { actions: 'forwardRemote' },
    'form.saved': { actions: 'reportName' },
  },
});

export type WorkspaceSettingsActorRef = ActorRefFrom<typeof workspaceSettingsMachine>;
export type WorkspaceSettingsSnapshot = SnapshotFrom<typeof workspaceSettingsMachine>;

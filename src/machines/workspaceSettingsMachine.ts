import {
  and,
  assign,
  enqueueActions,
  fromPromise,
  setup,
  stateIn,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { ChangedWorkspace, Workspace } from '../api/workspace';
import { errorMessage } from '../domain/text';
import {
  changedWorkspace,
  validateWorkspaceSettings,
  WORKSPACE_SETTINGS_FIELDS,
  workspaceSettingsOf as settingsOf,
  type FieldMessages,
  type WorkspaceSettingsField,
  type WorkspaceSettingsValues,
} from '../domain/workspaceSettings';
import { hasChanges, mergeRemote } from './formSync';

export type WorkspaceSettingsEvent =
  /** The user typed in a field. */
  | { type: 'settings.fieldEdited'; field: WorkspaceSettingsField; value: string }
  /** A field lost focus: the moment a valid change is saved (spec §4). */
  | { type: 'settings.fieldBlurred' }
  /** TOPO.UPDATED: the server's copy changed (another user's save, or the echo of ours). */
  | { type: 'workspace.updatedRemotely'; workspace: Workspace };

/** What the form tells whoever shows the workspace's name elsewhere (the editor header). */
export type WorkspaceSettingsReport = { type: 'workspace.settingsSaved'; name: string };

export interface WorkspaceSettingsInput {
  workspace: Workspace;
  reportTo?: ActorRef<Snapshot<unknown>, WorkspaceSettingsReport>;
}

export interface WorkspaceSettingsContext {
  id: string;
  /** What the form shows. */
  values: WorkspaceSettingsValues;
  /** The server's copy as last known; a field differing from it has an unsaved change. */
  saved: WorkspaceSettingsValues;
  /** Validation of `values`, by field; empty when they may be saved. */
  messages: FieldMessages<WorkspaceSettingsField>;
  /** The values of the save in flight (or of the last one). */
  sending: WorkspaceSettingsValues;
  /** Why the last save failed, camel-case split; cleared when the next save starts. */
  error: string | null;
  reportTo: WorkspaceSettingsInput['reportTo'] | null;
}

const isField = (field: unknown): field is WorkspaceSettingsField =>
  (WORKSPACE_SETTINGS_FIELDS as readonly unknown[]).includes(field);

const notProvided = (name: string): Error =>
  new Error(`workspaceSettingsMachine: '${name}' is provided by the app (src/app)`);

/**
 * The Settings tab's workspace form (spec §2, §4 "Settings and template forms"). It saves on blur,
 * and only when the form is not pristine, its values are valid and differ from the server's copy:
 * `pristine` has no blur transition at all, and the blur transitions of `editing` and `failed`
 * are guarded by `canSave`. A blur during a save queues one more save of what changed meanwhile.
 * A failed save keeps the edited values and shows why. Remote updates replace every field the
 * user has not changed locally (see `mergeRemote`).
 */
export const workspaceSettingsMachine = setup({
  types: {
    input: {} as WorkspaceSettingsInput,
    context: {} as WorkspaceSettingsContext,
    events: {} as WorkspaceSettingsEvent,
  },
  actors: {
    /** PUT workspace. */
    saveWorkspace: fromPromise<unknown, ChangedWorkspace>(() => {
      throw notProvided('saveWorkspace');
    }),
  },
  actions: {
    edit: assign(({ context, event }) => {
      // Events without a known field (a model traversal's) change nothing.
      if (event.type !== 'settings.fieldEdited' || !isField(event.field)) return {};
      const values = { ...context.values, [event.field]: String(event.value ?? '') };
      return { values, messages: validateWorkspaceSettings(values) };
    }),
    mergeRemote: assign(({ context, event }) => {
      if (event.type !== 'workspace.updatedRemotely' || event.workspace === undefined) return {};
      const merged = mergeRemote(context.values, context.saved, settingsOf(event.workspace));
      return { ...merged, messages: validateWorkspaceSettings(merged.values) };
    }),
    startSending: assign({ sending: ({ context }) => context.values, error: null }),
    /** The server has what was sent: it is the new saved copy, and the header shows its name. */
    markSent: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ saved: context.sending });
      if (context.reportTo) {
        enqueue.sendTo(context.reportTo, {
          type: 'workspace.settingsSaved',
          name: context.sending.name.trim(),
        });
      }
    }),
  },
  guards: {
    /** Changes were blurred during the save, and they may still be saved. */
    canResave: and([stateIn('#workspaceSettings.saving.resaveQueued'), 'isValid']),
    isValid: ({ context }) => Object.keys(context.messages).length === 0,
    canSave: ({ context }) =>
      Object.keys(context.messages).length === 0 && hasChanges(context.values, context.saved),
    /** The user typed while the save was in flight. */
    isChangedSinceSent: ({ context }) => hasChanges(context.values, context.sending),
    /** Something changed since the values in flight were taken, and it may be saved. */
    hasUnsentChanges: ({ context }) =>
      Object.keys(context.messages).length === 0 && hasChanges(context.values, context.sending),
  },
}).createMachine({
  id: 'workspaceSettings',
  description:
    'The workspace settings form: autosaves on blur when not pristine, valid and changed; a blur during a save queues another; failures keep the values; remote updates replace the fields not being edited.',
  context: ({ input }) => {
    const values = settingsOf(input.workspace);
    return {
      id: input.workspace.id,
      values,
      saved: values,
      messages: validateWorkspaceSettings(values),
      sending: values,
      error: null,
      reportTo: input.reportTo ?? null,
    };
  },
  on: { 'workspace.updatedRemotely': { actions: 'mergeRemote' } },
  initial: 'pristine',
  states: {
    /** Nothing typed since the workspace loaded: a blur saves nothing. */
    pristine: {
      on: { 'settings.fieldEdited': { target: 'editing', actions: 'edit' } },
    },
    editing: {
      on: {
        'settings.fieldEdited': { actions: 'edit' },
        'settings.fieldBlurred': { guard: 'canSave', target: 'saving' },
      },
    },
    saving: {
      entry: 'startSending',
      invoke: {
        src: 'saveWorkspace',
        input: ({ context }) => changedWorkspace(context.id, context.sending),
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
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
      on: { 'settings.fieldEdited': { actions: 'edit' } },
      initial: 'sending',
      states: {
        sending: {
          on: { 'settings.fieldBlurred': { guard: 'hasUnsentChanges', target: 'resaveQueued' } },
        },
        /** Changes blurred while the save was in flight: saved as soon as it completes. */
        resaveQueued: {},
      },
    },
    saved: {
      on: { 'settings.fieldEdited': { target: 'editing', actions: 'edit' } },
    },
    /** The values are kept; the next blur with valid changes tries again. */
    failed: {
      on: {
        'settings.fieldEdited': { actions: 'edit' },
        'settings.fieldBlurred': { guard: 'canSave', target: 'saving' },
      },
    },
  },
});

export type WorkspaceSettingsActorRef = ActorRefFrom<typeof workspaceSettingsMachine>;
export type WorkspaceSettingsSnapshot = SnapshotFrom<typeof workspaceSettingsMachine>;

import {
  isGlobalAudience,
  type FieldMessages,
  type WorkspaceSettingsField,
  type WorkspaceSettingsValues,
} from '../domain/workspaceSettings';
import type { AutosaveFormActorRef, AutosaveFormSnapshot } from './autosaveFormMachine';
import { selectAutosaveStatus, selectFormValues } from './autosaveFormMachine.selectors';
import type { WorkspaceSettingsSnapshot } from './workspaceSettingsMachine';

// The fields, their messages and the save status are the form's (the settings' child); the
// selectors below that take an AutosaveFormSnapshot read that child.

/** The autosaving form of the settings; it runs as long as they do. */
export const selectSettingsForm = (
  snapshot: WorkspaceSettingsSnapshot,
): AutosaveFormActorRef | undefined => snapshot.children.form;

export const selectSettingsId = (snapshot: WorkspaceSettingsSnapshot): string =>
  snapshot.context.id;

/** Where the form is: shown beside it as a save indicator. */
export type SettingsSaveStatus = 'pristine' | 'editing' | 'saving' | 'saved' | 'failed';

export const selectSettingsSaveStatus = (form: AutosaveFormSnapshot): SettingsSaveStatus => {
  const status = selectAutosaveStatus(form);
  // A failure shows until the next save starts, edits made since included.
  return status === 'editing' && form.context.error !== null ? 'failed' : status;
};

/** One field's value as the form shows it. */
export const selectSettingsValue =
  (field: WorkspaceSettingsField) =>
  (form: AutosaveFormSnapshot): string =>
    selectFormValues<WorkspaceSettingsValues>(form)[field];

/** The context's own object: a stable reference until the values change. */
export const selectSettingsMessages = (
  form: AutosaveFormSnapshot,
): FieldMessages<WorkspaceSettingsField> => form.context.messages;

export const selectSettingsError = (form: AutosaveFormSnapshot): string | null =>
  form.context.error;

/** The audience includes 'everyone': anyone may play the workspace. */
export const selectIsAudienceGlobal = (form: AutosaveFormSnapshot): boolean =>
  isGlobalAudience(selectFormValues<WorkspaceSettingsValues>(form).audience);

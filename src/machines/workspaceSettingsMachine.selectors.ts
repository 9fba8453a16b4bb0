import {
  isGlobalAudience,
  type FieldMessages,
  type WorkspaceSettingsField,
} from '../domain/workspaceSettings';
import type { WorkspaceSettingsSnapshot } from './workspaceSettingsMachine';

/** Where the form is: shown beside it as a save indicator. */
export type SettingsSaveStatus = 'pristine' | 'editing' | 'saving' | 'saved' | 'failed';

export const selectSettingsSaveStatus = (
  snapshot: WorkspaceSettingsSnapshot,
): SettingsSaveStatus => {
  if (snapshot.matches('saving')) return 'saving';
  if (snapshot.matches('saved')) return 'saved';
  if (snapshot.matches('failed')) return 'failed';
  if (snapshot.matches('editing')) return 'editing';
  return 'pristine';
};

export const selectSettingsId = (snapshot: WorkspaceSettingsSnapshot): string =>
  snapshot.context.id;

/** One field's value as the form shows it. */
export const selectSettingsValue =
  (field: WorkspaceSettingsField) =>
  (snapshot: WorkspaceSettingsSnapshot): string =>
    snapshot.context.values[field];

/** The context's own object: a stable reference until the values change. */
export const selectSettingsMessages = (
  snapshot: WorkspaceSettingsSnapshot,
): FieldMessages<WorkspaceSettingsField> => snapshot.context.messages;

export const selectSettingsError = (snapshot: WorkspaceSettingsSnapshot): string | null =>
  snapshot.context.error;

/** The audience includes 'everyone': anyone may play the workspace. */
export const selectIsAudienceGlobal = (snapshot: WorkspaceSettingsSnapshot): boolean =>
  isGlobalAudience(snapshot.context.values.audience);

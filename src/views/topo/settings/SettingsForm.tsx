import { useSelector } from '@xstate/react';
import { useId } from 'react';
import type { WorkspaceSettingsField } from '../../../domain/workspaceSettings';
import type { WorkspaceSettingsActorRef } from '../../../machines/workspaceSettingsMachine';
import {
  selectIsAudienceGlobal,
  selectSettingsError,
  selectSettingsId,
  selectSettingsMessages,
  selectSettingsSaveStatus,
  selectSettingsValue,
} from '../../../machines/workspaceSettingsMachine.selectors';
import { FormField, SaveStatus } from '../FormField';

const FIELDS: Array<{
  field: WorkspaceSettingsField;
  label: string;
  multiline?: boolean;
  type?: 'number';
  hint?: string;
}> = [
  { field: 'name', label: 'Name' },
  { field: 'description', label: 'Description', multiline: true },
  { field: 'author', label: 'Author' },
  {
    field: 'audience',
    label: 'Audience',
    hint: "Space-delimited clients that may play this workspace; 'everyone' makes it global.",
  },
  { field: 'tags', label: 'Tags' },
  { field: 'durationMinutes', label: 'Duration (minutes)', type: 'number' },
];

const GLOBAL_HINT = "Global: with 'everyone' in its audience, anyone may play this workspace.";

function SettingsField({
  settings,
  field,
  ...props
}: { settings: WorkspaceSettingsActorRef } & (typeof FIELDS)[number]) {
  const value = useSelector(settings, selectSettingsValue(field));
  const message = useSelector(settings, selectSettingsMessages)[field];
  const global = useSelector(settings, selectIsAudienceGlobal);
  return (
    <FormField
      {...props}
      hint={field === 'audience' && global ? GLOBAL_HINT : props.hint}
      value={value}
      message={message}
      onChange={(text) => settings.send({ type: 'settings.fieldEdited', field, value: text })}
      onBlur={() => settings.send({ type: 'settings.fieldBlurred' })}
    />
  );
}

/** The workspace's fields, saved when a changed, valid field is left (spec §2, §4). */
export function SettingsForm({ settings }: { settings: WorkspaceSettingsActorRef }) {
  const id = useSelector(settings, selectSettingsId);
  const status = useSelector(settings, selectSettingsSaveStatus);
  const error = useSelector(settings, selectSettingsError);
  const idField = useId();
  return (
    <form className="tp-form" aria-label="Workspace settings" onSubmit={(e) => e.preventDefault()}>
      <div className="tp-field">
        <label htmlFor={idField}>Id</label>
        <input id={idField} className="p-inputtext p-component" value={id} readOnly />
      </div>
      {FIELDS.map((props) => (
        <SettingsField key={props.field} settings={settings} {...props} />
      ))}
      <SaveStatus status={status} error={error} />
    </form>
  );
}

import { useSelector } from '@xstate/react';
import { useId } from 'react';
import type { WorkspaceSettingsField } from '../../../domain/workspaceSettings';
import type { AutosaveFormActorRef } from '../../../machines/autosaveFormMachine';
import type { WorkspaceSettingsActorRef } from '../../../machines/workspaceSettingsMachine';
import {
  selectIsAudienceGlobal,
  selectSettingsError,
  selectSettingsForm,
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

/** A field shows the form's value and message; the settings take the edits. */
function SettingsField({
  settings,
  form,
  field,
  ...props
}: { settings: WorkspaceSettingsActorRef; form: AutosaveFormActorRef } & (typeof FIELDS)[number]) {
  const value = useSelector(form, selectSettingsValue(field));
  const message = useSelector(form, selectSettingsMessages)[field];
  const global = useSelector(form, selectIsAudienceGlobal);
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

function Fields({
  settings,
  form,
}: {
  settings: WorkspaceSettingsActorRef;
  form: AutosaveFormActorRef;
}) {
  const id = useSelector(settings, selectSettingsId);
  const status = useSelector(form, selectSettingsSaveStatus);
  const error = useSelector(form, selectSettingsError);
  const idField = useId();
  return (
    <form className="tp-form" aria-label="Workspace settings" onSubmit={(e) => e.preventDefault()}>
      <div className="tp-field">
        <label htmlFor={idField}>Id</label>
        <input id={idField} className="p-inputtext p-component" value={id} readOnly />
      </div>
      {FIELDS.map((props) => (
        <SettingsField key={props.field} settings={settings} form={form} {...props} />
      ))}
      <SaveStatus status={status} error={error} />
    </form>
  );
}

/** The workspace's fields, saved when a changed, valid field is left (spec §2, §4). */
export function SettingsForm({ settings }: { settings: WorkspaceSettingsActorRef }) {
  const form = useSelector(settings, selectSettingsForm);
  return form ? <Fields settings={settings} form={form} /> : null;
}

import { useSelector } from '@xstate/react';
import { useId } from 'react';
import {
  RECORD_CONSOLES_CHOICES,
  type WorkspaceSettingsField,
} from '../../../domain/workspaceSettings';
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
  field: Exclude<WorkspaceSettingsField, 'recordConsoles'>;
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

const RECORD_CONSOLES_HINT =
  'Players are told their console is recorded; observers of the audience and administrators may replay it.';

/** The recording choice: picking one is the whole edit, saved at once (no blur to wait for). */
function RecordConsolesField({
  settings,
  form,
}: {
  settings: WorkspaceSettingsActorRef;
  form: AutosaveFormActorRef;
}) {
  const value = useSelector(form, selectSettingsValue('recordConsoles'));
  const message = useSelector(form, selectSettingsMessages).recordConsoles;
  const id = useId();
  const hintId = `${id}-hint`;
  const messageId = `${id}-message`;
  return (
    <div className="tp-field">
      <label htmlFor={id}>Record consoles</label>
      <select
        id={id}
        className="p-inputtext p-component"
        value={value}
        aria-invalid={message ? true : undefined}
        aria-describedby={[message ? messageId : null, hintId].filter(Boolean).join(' ')}
        onChange={(e) =>
          settings.send({
            type: 'settings.fieldChosen',
            field: 'recordConsoles',
            value: e.target.value,
          })
        }
      >
        {RECORD_CONSOLES_CHOICES.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
      {message && (
        <small id={messageId} className="tp-field-message">
          {message}
        </small>
      )}
      <small id={hintId} className="tp-muted tp-field-hint">
        {RECORD_CONSOLES_HINT}
      </small>
    </div>
  );
}

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
      <RecordConsolesField settings={settings} form={form} />
      <SaveStatus status={status} error={error} />
    </form>
  );
}

/** The workspace's fields, saved when a changed, valid field is left (spec §2, §4). */
export function SettingsForm({ settings }: { settings: WorkspaceSettingsActorRef }) {
  const form = useSelector(settings, selectSettingsForm);
  return form ? <Fields settings={settings} form={form} /> : null;
}

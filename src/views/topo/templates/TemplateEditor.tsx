import { useSelector } from '@xstate/react';
import { useId } from 'react';
import { REPLICAS_HINT, type TemplateField } from '../../../domain/templateFields';
import type { AutosaveFormActorRef } from '../../../machines/autosaveFormMachine';
import type { TemplateActionsActorRef } from '../../../machines/templateActionsMachine';
import {
  DEPLOYED_MESSAGE,
  type TemplateEditorActorRef,
} from '../../../machines/templateEditorMachine';
import {
  selectAreActionsIdle,
  selectCanDeleteTemplate,
  selectCanRelink,
  selectCanUnlink,
  selectIsChoosingSibling,
  selectIsConfirmingTemplateDelete,
  selectIsoChooser,
  selectIsTemplateBusy,
  selectIsTemplateDeployed,
  selectIsTemplateLinked,
  selectSavedTemplateName,
  selectSiblings,
  selectTemplateActions,
  selectTemplateErrors,
  selectTemplateForm,
  selectTemplateHidden,
  selectTemplateMessages,
  selectTemplateParentName,
  selectTemplateSaveError,
  selectTemplateSaveStatus,
  selectTemplateText,
  selectVariantHint,
} from '../../../machines/templateEditorMachine.selectors';
import { selectVmController } from '../../../machines/vmControllerMachine.selectors';
import { DismissibleAlerts } from '../../common/DismissibleAlerts';
import { ConfirmPrompt } from '../ConfirmPrompt';
import { FormField, SaveStatus } from '../FormField';
import { IsoChooser } from './IsoChooser';
import { VmController } from './VmController';
import { Icon, piLink, piTimesCircle } from '../../common/icons';

type TextField = Exclude<TemplateField, 'isHidden' | 'iso'>;

const FIELDS: Array<{
  field: TextField;
  label: string;
  multiline?: boolean;
  type?: 'number';
  hint?: string;
}> = [
  { field: 'name', label: 'Name' },
  { field: 'description', label: 'Description', multiline: true },
  { field: 'networks', label: 'Networks', hint: 'Space-delimited network names, e.g. lan wan.' },
  {
    field: 'guestinfo',
    label: 'Guest settings',
    multiline: true,
    hint: 'key = value, one per line; lines starting with # are ignored.',
  },
  { field: 'replicas', label: 'Replicas', type: 'number', hint: REPLICAS_HINT },
  { field: 'variant', label: 'Variant', type: 'number', hint: '0 deploys in all variants.' },
];

/** The editor's children: its fields' form and its actions (Unlink, Re-link, Delete). */
interface Parts {
  editor: TemplateEditorActorRef;
  form: AutosaveFormActorRef;
  actions: TemplateActionsActorRef;
}

/** A field shows the form's value and message; the editor takes the edits. */
function TemplateField({
  editor,
  form,
  field,
  disabled,
  ...props
}: Omit<Parts, 'actions'> & { disabled: boolean } & (typeof FIELDS)[number]) {
  const value = useSelector(form, selectTemplateText(field));
  const message = useSelector(form, selectTemplateMessages)[field];
  const variantHint = useSelector(form, selectVariantHint);
  return (
    <FormField
      {...props}
      value={value}
      message={message}
      hint={field === 'variant' && variantHint !== null ? variantHint : props.hint}
      disabled={disabled}
      onChange={(text) => editor.send({ type: 'template.fieldEdited', field, value: text })}
      onBlur={() => editor.send({ type: 'template.fieldBlurred' })}
    />
  );
}

function LinkActions({ editor, actions, disabled }: Omit<Parts, 'form'> & { disabled: boolean }) {
  const linked = useSelector(editor, selectIsTemplateLinked);
  const parentName = useSelector(editor, selectTemplateParentName);
  // Offered by the editor, and only while no other request is under way.
  const idle = useSelector(actions, selectAreActionsIdle);
  const canUnlink = useSelector(editor, selectCanUnlink) && idle;
  const canRelink = useSelector(editor, selectCanRelink) && idle;
  const choosing = useSelector(actions, selectIsChoosingSibling);
  const siblings = useSelector(actions, selectSiblings);
  return (
    <div className="tp-template-link">
      <span className="tp-muted tp-small">
        <Icon shape={linked ? piLink : piTimesCircle} />{' '}
        {linked
          ? `Linked to ${parentName ?? 'its parent'}`
          : parentName
            ? `Unlinked from ${parentName}`
            : 'Unlinked'}
      </span>
      {linked ? (
        <button
          type="button"
          className="p-button p-component p-button-outlined p-button-sm"
          disabled={disabled || !canUnlink}
          onClick={() => editor.send({ type: 'template.unlinkRequested' })}
        >
          Unlink
        </button>
      ) : (
        parentName && (
          <button
            type="button"
            className="p-button p-component p-button-outlined p-button-sm"
            disabled={disabled || !canRelink}
            onClick={() => editor.send({ type: 'template.relinkRequested' })}
          >
            Re-link
          </button>
        )
      )}
      {choosing && (
        <div className="tp-siblings" role="group" aria-label="Sibling revisions">
          {siblings.length === 0 ? (
            <span className="tp-muted">No published revisions to re-link to.</span>
          ) : (
            <ul className="tp-list">
              {siblings.map((sibling) => (
                <li key={sibling.id} className="tp-list-item">
                  <button
                    type="button"
                    className="p-button p-component p-button-sm"
                    onClick={() =>
                      editor.send({ type: 'template.siblingChosen', parentId: sibling.id })
                    }
                  >
                    Re-link to {sibling.name ?? sibling.id}
                  </button>
                </li>
              ))}
            </ul>
          )}
          <button
            type="button"
            className="p-button p-component p-button-secondary p-button-outlined p-button-sm"
            onClick={() => editor.send({ type: 'template.relinkCancelled' })}
          >
            Cancel
          </button>
        </div>
      )}
    </div>
  );
}

function Editor({ editor, form, actions }: Parts) {
  const name = useSelector(editor, selectSavedTemplateName);
  const deployed = useSelector(editor, selectIsTemplateDeployed);
  const iso = useSelector(form, selectTemplateText('iso'));
  const hidden = useSelector(form, selectTemplateHidden);
  const chooser = useSelector(editor, selectIsoChooser);
  const status = useSelector(form, selectTemplateSaveStatus);
  const saveError = useSelector(form, selectTemplateSaveError);
  const idle = useSelector(actions, selectAreActionsIdle);
  const canDelete = useSelector(editor, selectCanDeleteTemplate) && idle;
  const confirmingDelete = useSelector(actions, selectIsConfirmingTemplateDelete);
  const busy = useSelector(actions, selectIsTemplateBusy);
  const errors = useSelector(actions, selectTemplateErrors);
  const controller = useSelector(editor, selectVmController);
  const hiddenId = useId();
  const commit = (field: TemplateField, value: string | boolean) => {
    editor.send({ type: 'template.fieldEdited', field, value });
    editor.send({ type: 'template.fieldBlurred' });
  };
  return (
    <section className="tp-template" role="group" aria-label={`Template ${name}`} aria-busy={busy}>
      <header className="tp-template-header">
        <h3>{name}</h3>
        <LinkActions editor={editor} actions={actions} disabled={deployed} />
      </header>
      {controller && <VmController controller={controller} />}
      {deployed && (
        <p className="tp-alert tp-alert-warning" role="status">
          {DEPLOYED_MESSAGE}
        </p>
      )}
      <DismissibleAlerts
        messages={errors}
        onDismiss={(index) => editor.send({ type: 'template.errorDismissed', index })}
      />
      <div className="tp-form tp-template-form">
        {FIELDS.map((props) => (
          <TemplateField
            key={props.field}
            editor={editor}
            form={form}
            disabled={deployed}
            {...props}
          />
        ))}
        {chooser && (
          <IsoChooser
            chooser={chooser}
            value={iso}
            disabled={deployed}
            onChoose={(path) => commit('iso', path)}
          />
        )}
        <div className="tp-field">
          <label className="tp-check" htmlFor={hiddenId}>
            <input
              id={hiddenId}
              type="checkbox"
              checked={hidden}
              disabled={deployed}
              onChange={(e) => commit('isHidden', e.target.checked)}
            />
            Hidden
          </label>
          <small className="tp-muted">Players cannot open the console of a hidden machine.</small>
        </div>
      </div>
      <SaveStatus status={status} error={saveError} />
      {confirmingDelete ? (
        <ConfirmPrompt
          question={`Delete template ${name}?`}
          onConfirm={() => editor.send({ type: 'template.deleteConfirmed' })}
          onCancel={() => editor.send({ type: 'template.deleteCancelled' })}
        />
      ) : (
        <button
          type="button"
          className="p-button p-component p-button-danger p-button-outlined p-button-sm"
          disabled={!canDelete}
          onClick={() => editor.send({ type: 'template.deleteRequested' })}
        >
          Delete
        </button>
      )}
    </section>
  );
}

/** One template's editor (spec §2 Template editor), a group named after the saved name. */
export function TemplateEditor({ editor }: { editor: TemplateEditorActorRef }) {
  const form = useSelector(editor, selectTemplateForm);
  const actions = useSelector(editor, selectTemplateActions);
  return form && actions ? <Editor editor={editor} form={form} actions={actions} /> : null;
}

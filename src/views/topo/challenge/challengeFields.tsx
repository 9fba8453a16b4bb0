import { useSelector } from '@xstate/react';
import { useId } from 'react';
import { valueAt } from '../../../domain/challengeForm';
import type {
  AutosaveFormActorRef,
  AutosaveFormSnapshot,
} from '../../../machines/autosaveFormMachine';
import type { ChallengeFormActorRef } from '../../../machines/challengeFormMachine';
import {
  selectChallengeDraft,
  selectChallengeMessages,
  selectConfirmingRemoval,
  selectShowsMessage,
} from '../../../machines/challengeFormMachine.selectors';
import { ConfirmPrompt } from '../ConfirmPrompt';
import { FormField } from '../FormField';
import { Icon, piPlus, piTrash } from '../../common/icons';

// The building blocks of the challenge form: each field reads its own value from the form's
// draft by path, so that typing in one question re-renders that field only.

/** The challenge form takes the edits; its draft (the autosaving form it runs) shows them. */
export type FormProps = {
  form: { challenge: ChallengeFormActorRef; draft: AutosaveFormActorRef };
};

const textAt =
  (path: string) =>
  (snapshot: AutosaveFormSnapshot): string => {
    const value = valueAt(selectChallengeDraft(snapshot), path);
    return typeof value === 'string' ? value : '';
  };

const flagAt =
  (path: string) =>
  (snapshot: AutosaveFormSnapshot): boolean =>
    valueAt(selectChallengeDraft(snapshot), path) === true;

/** How many items the list at `path` has. */
export const countAt =
  (path: string) =>
  (snapshot: AutosaveFormSnapshot): number => {
    const value = valueAt(selectChallengeDraft(snapshot), path);
    return Array.isArray(value) ? value.length : 0;
  };

export function useText(form: FormProps['form'], path: string): string {
  return useSelector(form.draft, textAt(path));
}

/**
 * A text field of the draft, with its validation message beside it (a new item's field shows it
 * once touched, see FreshItems).
 */
export function TextField({
  form,
  path,
  label,
  multiline,
  hint,
}: FormProps & { path: string; label: string; multiline?: boolean; hint?: string }) {
  const value = useText(form, path);
  // Its own message only, so that typing elsewhere does not re-render this field.
  const message = useSelector(form.draft, (snapshot) => selectChallengeMessages(snapshot)[path]);
  const shows = useSelector(form.challenge, selectShowsMessage(path));
  return (
    <FormField
      label={label}
      value={value}
      message={shows ? message : undefined}
      hint={hint}
      multiline={multiline}
      onChange={(text) => form.challenge.send({ type: 'challenge.fieldEdited', path, value: text })}
      onBlur={() => form.challenge.send({ type: 'challenge.fieldBlurred', path })}
    />
  );
}

/** A flag of the draft as a labelled checkbox. */
export function CheckboxField({ form, path, label }: FormProps & { path: string; label: string }) {
  const checked = useSelector(form.draft, flagAt(path));
  const id = useId();
  return (
    <div className="tp-field tp-field-checkbox">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) =>
          form.challenge.send({ type: 'challenge.fieldEdited', path, value: e.target.checked })
        }
        onBlur={() => form.challenge.send({ type: 'challenge.fieldBlurred', path })}
      />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

/** Adds an empty item to the list at `list`. */
export function AddButton({ form, list, label }: FormProps & { list: string; label: string }) {
  return (
    <button
      type="button"
      className="p-button p-component p-button-sm p-button-outlined"
      onClick={() => form.challenge.send({ type: 'challenge.itemAdded', list })}
    >
      <Icon shape={piPlus} /> {label}
    </button>
  );
}

/** Remove, then Confirm or Cancel (spec §5: removals are confirmed). */
export function RemoveButton({
  form,
  path,
  label,
  question,
}: FormProps & { path: string; label: string; question: string }) {
  const confirming = useSelector(form.challenge, selectConfirmingRemoval) === path;
  if (confirming) {
    return (
      <ConfirmPrompt
        question={question}
        onConfirm={() => form.challenge.send({ type: 'challenge.removeConfirmed' })}
        onCancel={() => form.challenge.send({ type: 'challenge.removeCancelled' })}
      />
    );
  }
  return (
    <button
      type="button"
      className="p-button p-component p-button-sm p-button-text p-button-danger"
      onClick={() => form.challenge.send({ type: 'challenge.removeRequested', path })}
    >
      <Icon shape={piTrash} /> {label}
    </button>
  );
}

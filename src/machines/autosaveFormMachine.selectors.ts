import type { AutosaveFormSnapshot, FormMessages } from './autosaveFormMachine';

/** Where the form is: its indicator shows it (each form words it its own way). */
export type AutosaveStatus = 'pristine' | 'editing' | 'saving' | 'saved' | 'failed';

export const selectAutosaveStatus = (snapshot: AutosaveFormSnapshot): AutosaveStatus => {
  if (snapshot.matches('saving')) return 'saving';
  if (snapshot.matches('saved')) return 'saved';
  if (snapshot.matches('failed')) return 'failed';
  if (snapshot.matches('editing')) return 'editing';
  return 'pristine';
};

/**
 * The values, as the parent that made the form types them: the machine holds any kind of form,
 * and each parent's selectors know which kind theirs is.
 */
export const selectFormValues = <V extends object>(snapshot: AutosaveFormSnapshot): V =>
  snapshot.context.values as V;

/** The context's own object: a stable reference until the values change. */
export const selectFormMessages = (snapshot: AutosaveFormSnapshot): FormMessages =>
  snapshot.context.messages;

export const selectFormIsValid = (snapshot: AutosaveFormSnapshot): boolean =>
  Object.keys(snapshot.context.messages).length === 0;

/** Why the last save failed, until the next save starts. */
export const selectFormError = (snapshot: AutosaveFormSnapshot): string | null =>
  snapshot.context.error;

export const selectCanRetrySave = (snapshot: AutosaveFormSnapshot): boolean =>
  snapshot.can({ type: 'form.retryRequested' });

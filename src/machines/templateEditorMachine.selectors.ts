import type { TemplateSummary } from '../api/template';
import { variantHint, type TemplateField, type TemplateValues } from '../domain/templateFields';
import type { AutosaveFormActorRef, AutosaveFormSnapshot } from './autosaveFormMachine';
import { selectAutosaveStatus, selectFormValues } from './autosaveFormMachine.selectors';
import type { IsoChooserActorRef } from './isoChooserMachine';
import type { TemplateActionsActorRef, TemplateActionsSnapshot } from './templateActionsMachine';
import type { TemplateEditorSnapshot } from './templateEditorMachine';

// The editor's children hold the rest: the fields are its form's (the selectors that take an
// AutosaveFormSnapshot), the requests and their failures its actions' (TemplateActionsSnapshot).

export const selectTemplateForm = (
  snapshot: TemplateEditorSnapshot,
): AutosaveFormActorRef | undefined => snapshot.children.form;

export const selectTemplateActions = (
  snapshot: TemplateEditorSnapshot,
): TemplateActionsActorRef | undefined => snapshot.children.actions;

export const selectIsoChooser = (
  snapshot: TemplateEditorSnapshot,
): IsoChooserActorRef | undefined => snapshot.children.isoChooser;

export const selectTemplateId = (snapshot: TemplateEditorSnapshot): string =>
  snapshot.context.template.id;

/** The name the server has: what the editor is called (its group's name), not the draft. */
export const selectSavedTemplateName = (snapshot: TemplateEditorSnapshot): string =>
  snapshot.context.template.name ?? '';

/** The template has a deployed machine: 'Cannot edit while template is deployed.' */
export const selectIsTemplateDeployed = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.matches('locked');

export const selectIsTemplateLinked = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.context.template.isLinked === true;

export const selectTemplateParentName = (snapshot: TemplateEditorSnapshot): string | null =>
  snapshot.context.template.parentName ?? null;

// What the editor lets the actions be asked; they take one request at a time (selectAreActionsIdle).

export const selectCanUnlink = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.can({ type: 'template.unlinkRequested' });

export const selectCanRelink = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.can({ type: 'template.relinkRequested' });

export const selectCanDeleteTemplate = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.can({ type: 'template.deleteRequested' });

export type TemplateSaveStatus = 'clean' | 'editing' | 'saving' | 'saved' | 'failed';

export const selectTemplateSaveStatus = (form: AutosaveFormSnapshot): TemplateSaveStatus => {
  const status = selectAutosaveStatus(form);
  if (status === 'pristine') return 'clean';
  // A failure shows until the next save starts, edits made since included.
  return status === 'editing' && form.context.error !== null ? 'failed' : status;
};

export const selectTemplateText =
  (field: Exclude<TemplateField, 'isHidden'>) =>
  (form: AutosaveFormSnapshot): string =>
    selectFormValues<TemplateValues>(form)[field];

export const selectTemplateHidden = (form: AutosaveFormSnapshot): boolean =>
  selectFormValues<TemplateValues>(form).isHidden;

/** The context's own object: a stable reference until the values change. */
export const selectTemplateMessages = (
  form: AutosaveFormSnapshot,
): Readonly<Partial<Record<TemplateField, string>>> => form.context.messages;

/** 'Templates of a variant should carry a suffix such as _v1 ...' when it applies. */
export const selectVariantHint = (form: AutosaveFormSnapshot): string | null =>
  variantHint(selectFormValues<TemplateValues>(form));

export const selectTemplateSaveError = (form: AutosaveFormSnapshot): string | null =>
  form.context.error;

/** No request is in flight or waiting for a choice or a confirmation. */
export const selectAreActionsIdle = (actions: TemplateActionsSnapshot): boolean =>
  actions.matches('idle');

export const selectIsChoosingSibling = (actions: TemplateActionsSnapshot): boolean =>
  actions.matches('choosingSibling');

/** The context's own array: a stable reference until the siblings are listed again. */
export const selectSiblings = (actions: TemplateActionsSnapshot): readonly TemplateSummary[] =>
  actions.context.siblings;

export const selectIsConfirmingTemplateDelete = (actions: TemplateActionsSnapshot): boolean =>
  actions.matches('confirmingDelete');

export const selectIsTemplateBusy = (actions: TemplateActionsSnapshot): boolean =>
  actions.hasTag('busy');

export const selectTemplateErrors = (actions: TemplateActionsSnapshot): readonly string[] =>
  actions.context.errors;

import type { TemplateSummary } from '../api/template';
import { variantHint, type TemplateField } from '../domain/templateFields';
import type { IsoChooserActorRef } from './isoChooserMachine';
import type { TemplateEditorSnapshot } from './templateEditorMachine';

export type TemplateSaveStatus = 'clean' | 'editing' | 'saving' | 'saved' | 'failed';

export const selectTemplateSaveStatus = (snapshot: TemplateEditorSnapshot): TemplateSaveStatus => {
  if (snapshot.matches({ form: 'saving' })) return 'saving';
  if (snapshot.matches({ form: 'saved' })) return 'saved';
  if (snapshot.matches({ form: 'failed' })) return 'failed';
  if (snapshot.matches({ form: 'editing' })) return 'editing';
  return 'clean';
};

export const selectTemplateId = (snapshot: TemplateEditorSnapshot): string =>
  snapshot.context.template.id;

/** The name the server has: what the editor is called (its group's name), not the draft. */
export const selectSavedTemplateName = (snapshot: TemplateEditorSnapshot): string =>
  snapshot.context.template.name ?? '';

export const selectTemplateText =
  (field: Exclude<TemplateField, 'isHidden'>) =>
  (snapshot: TemplateEditorSnapshot): string =>
    snapshot.context.values[field];

export const selectTemplateHidden = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.context.values.isHidden;

/** The context's own object: a stable reference until the values change. */
export const selectTemplateMessages = (
  snapshot: TemplateEditorSnapshot,
): Readonly<Partial<Record<TemplateField, string>>> => snapshot.context.messages;

/** 'Templates of a variant should carry a suffix such as _v1 ...' when it applies. */
export const selectVariantHint = (snapshot: TemplateEditorSnapshot): string | null =>
  variantHint(snapshot.context.values);

export const selectTemplateSaveError = (snapshot: TemplateEditorSnapshot): string | null =>
  snapshot.context.saveError;

/** The template has a deployed machine: 'Cannot edit while template is deployed.' */
export const selectIsTemplateDeployed = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.matches({ lock: 'locked' });

export const selectIsTemplateLinked = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.context.template.isLinked === true;

export const selectTemplateParentName = (snapshot: TemplateEditorSnapshot): string | null =>
  snapshot.context.template.parentName ?? null;

export const selectCanUnlink = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.can({ type: 'template.unlinkRequested' });

export const selectCanRelink = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.can({ type: 'template.relinkRequested' });

export const selectCanDeleteTemplate = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.can({ type: 'template.deleteRequested' });

export const selectIsChoosingSibling = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.matches({ actions: 'choosingSibling' });

/** The context's own array: a stable reference until the siblings are listed again. */
export const selectSiblings = (snapshot: TemplateEditorSnapshot): readonly TemplateSummary[] =>
  snapshot.context.siblings;

export const selectIsConfirmingTemplateDelete = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.matches({ actions: 'confirmingDelete' });

export const selectIsTemplateBusy = (snapshot: TemplateEditorSnapshot): boolean =>
  snapshot.hasTag('busy');

export const selectTemplateErrors = (snapshot: TemplateEditorSnapshot): readonly string[] =>
  snapshot.context.errors;

export const selectIsoChooser = (
  snapshot: TemplateEditorSnapshot,
): IsoChooserActorRef | undefined =>
  // Children are typed by logic, not by invoke id; 'isoChooser' is only ever the ISO chooser.
  snapshot.children.isoChooser as IsoChooserActorRef | undefined;

import type { ChangedTemplate } from '../api/template';
import {
  changedTemplate,
  hyphenateName,
  TEMPLATE_TEXT_FIELDS,
  validateTemplate,
  type TemplateField,
  type TemplateValues,
} from '../domain/templateFields';
import { errorMessage } from '../domain/text';
import type { AutosaveFormRules } from './autosaveFormMachine';

/** One field's change (template.fieldEdited), as the form's edits describe it. */
export interface TemplateEdit {
  field: TemplateField;
  value: string | boolean;
}

const isField = (field: unknown): field is TemplateField =>
  field === 'isHidden' || (TEMPLATE_TEXT_FIELDS as readonly unknown[]).includes(field);

/**
 * A template's fields with their limits (spec §4), saved whole with PUT template: the name's
 * spaces become hyphens as it is typed, Hidden is a flag. An edit without a known field (a model
 * traversal's) changes nothing.
 */
export const templateRules = (id: string): AutosaveFormRules<TemplateValues, TemplateEdit> => ({
  edit: (values, edit) => {
    if (!isField(edit?.field)) return values;
    const text = String(edit.value ?? '');
    const value =
      edit.field === 'isHidden'
        ? edit.value === true
        : edit.field === 'name'
          ? hyphenateName(text)
          : text;
    return { ...values, [edit.field]: value };
  },
  validate: validateTemplate,
  saveInput: (values): ChangedTemplate => changedTemplate(id, values),
  describeError: errorMessage,
});

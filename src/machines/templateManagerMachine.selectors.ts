import type { PagedSearchActorRef } from './pagedSearchMachine';
import type { TemplateDetailSnapshot } from './templateDetailMachine';
import type { TemplateManagerSnapshot, TemplateRow } from './templateManagerMachine';

export const selectSearch = (s: TemplateManagerSnapshot) =>
  s.children.search as PagedSearchActorRef<TemplateRow>;
export const selectDetail = (s: TemplateManagerSnapshot) => s.context.detail;
export const selectSelectedId = (s: TemplateManagerSnapshot) => s.context.selectedId;
export const selectManagerError = (s: TemplateManagerSnapshot) => s.context.error;
export const selectCreating = (s: TemplateManagerSnapshot) => s.hasTag('creating');
export const selectCanClone = (s: TemplateManagerSnapshot) =>
  s.can({ type: 'template.cloneRequested' });

export const selectValues = (s: TemplateDetailSnapshot) => s.context.values;
export const selectProblem = (s: TemplateDetailSnapshot) => s.context.problem;
export const selectDetailError = (s: TemplateDetailSnapshot) => s.context.error;
export const selectBusy = (s: TemplateDetailSnapshot) => s.hasTag('busy');
export const selectLoaded = (s: TemplateDetailSnapshot) => !s.matches('loading');
export const selectIsLinked = (s: TemplateDetailSnapshot) => s.context.isLinked;
export const selectCanSave = (s: TemplateDetailSnapshot) => s.can({ type: 'detail.saveRequested' });
export const selectSavedName = (s: TemplateDetailSnapshot) => s.context.saved.name;

import type { GamespaceCleanupActorRef } from './gamespaceCleanupMachine';
import type { Template } from '../api/template';
import type { TemplateEditorActorRef } from './templateEditorMachine';
import type { TemplateListSnapshot } from './templateListMachine';
import type { TemplateSelectorActorRef } from './templateSelectorMachine';

/** The context's own array: a stable reference until a template comes or goes. */
export const selectTemplateEditors = (
  snapshot: TemplateListSnapshot,
): readonly TemplateEditorActorRef[] => snapshot.context.editors;

// Children are typed by logic, not by invoke id; each id below only ever holds that machine.

export const selectTemplateSelector = (
  snapshot: TemplateListSnapshot,
): TemplateSelectorActorRef | undefined =>
  snapshot.children.selector as TemplateSelectorActorRef | undefined;

export const selectGamespaceCleanup = (
  snapshot: TemplateListSnapshot,
): GamespaceCleanupActorRef | undefined =>
  snapshot.children.gamespaceCleanup as GamespaceCleanupActorRef | undefined;

/** The templates as last known (a stable reference until one changes): the topology's. */
export const selectTopologyTemplates = (snapshot: TemplateListSnapshot): readonly Template[] =>
  snapshot.context.templates;

import type { TemplateSummary } from '../api/template';
import {
  templateSets,
  type TemplateSelectorSnapshot,
  type TemplateSet,
} from './templateSelectorMachine';

export const selectSelectorTerm = (snapshot: TemplateSelectorSnapshot): string =>
  snapshot.context.term;

/** The context's own array: a stable reference until the next search answers. */
export const selectSelectorResults = (
  snapshot: TemplateSelectorSnapshot,
): readonly TemplateSummary[] => snapshot.context.results;

// One list of sets per results array: the same array until the results change.
const setsOf = new WeakMap<readonly TemplateSummary[], TemplateSet[]>();

/** The template sets to offer: source workspaces with at least 2 results. */
export const selectTemplateSets = (snapshot: TemplateSelectorSnapshot): readonly TemplateSet[] => {
  const { results } = snapshot.context;
  let sets = setsOf.get(results);
  if (sets === undefined) {
    sets = templateSets(results);
    setsOf.set(results, sets);
  }
  return sets;
};

export const selectIsSearchingTemplates = (snapshot: TemplateSelectorSnapshot): boolean =>
  !snapshot.matches({ search: 'listed' });

/** Ids waiting to be linked (the first is being linked): their Add buttons show progress. */
export const selectLinkQueue = (snapshot: TemplateSelectorSnapshot): readonly string[] =>
  snapshot.context.queue;

export const selectSelectorErrors = (snapshot: TemplateSelectorSnapshot): readonly string[] =>
  snapshot.context.errors;

import type { WarmPoolsSnapshot } from './warmPoolsMachine';

export const selectPools = (s: WarmPoolsSnapshot) => s.context.pools;
export const selectPoolListError = (s: WarmPoolsSnapshot) => s.context.listError;
export const selectIsLoadingPools = (s: WarmPoolsSnapshot) => s.hasTag('loading');
/** The workspace field as typed, or the picked workspace's name. */
export const selectPoolFormWorkspaceText = (s: WarmPoolsSnapshot) => s.context.workspaceText;
/** The workspace the form sets, '' while none is chosen. */
export const selectPoolFormWorkspace = (s: WarmPoolsSnapshot) => s.context.workspaceId;
export const selectPoolFormSize = (s: WarmPoolsSnapshot) => s.context.size;
export const selectPoolFormError = (s: WarmPoolsSnapshot) => s.context.formError?.message ?? null;
/** The field the form's complaint is about, for `aria-invalid`. */
export const selectPoolInvalidField = (s: WarmPoolsSnapshot) => s.context.formError?.field ?? null;
export const selectPoolSaveError = (s: WarmPoolsSnapshot) => s.context.saveError;
export const selectSavedPool = (s: WarmPoolsSnapshot) => s.context.saved;
export const selectIsSavingPool = (s: WarmPoolsSnapshot) => s.hasTag('saving');
export const selectIsSearchingWorkspaces = (s: WarmPoolsSnapshot) => s.hasTag('searching');
/** The matches are on show (the listbox is expanded), or that there are none. */
export const selectIsChoosingWorkspace = (s: WarmPoolsSnapshot) => s.hasTag('choosing');
export const selectWorkspaceMatches = (s: WarmPoolsSnapshot) => s.context.matches;
/** The match the arrow keys are on, -1 for none. */
export const selectHighlightedMatch = (s: WarmPoolsSnapshot) => s.context.highlighted;
export const selectWorkspaceSearchError = (s: WarmPoolsSnapshot) => s.context.searchError;

import type { WarmPoolsSnapshot } from './warmPoolsMachine';

export const selectPools = (s: WarmPoolsSnapshot) => s.context.pools;
export const selectPoolListError = (s: WarmPoolsSnapshot) => s.context.listError;
export const selectIsLoadingPools = (s: WarmPoolsSnapshot) => s.hasTag('loading');
export const selectPoolFormWorkspace = (s: WarmPoolsSnapshot) => s.context.workspaceId;
export const selectPoolFormSize = (s: WarmPoolsSnapshot) => s.context.size;
export const selectPoolFormError = (s: WarmPoolsSnapshot) => s.context.formError?.message ?? null;
/** The field the form's complaint is about, for `aria-invalid`. */
export const selectPoolInvalidField = (s: WarmPoolsSnapshot) => s.context.formError?.field ?? null;
export const selectPoolSaveError = (s: WarmPoolsSnapshot) => s.context.saveError;
export const selectSavedPool = (s: WarmPoolsSnapshot) => s.context.saved;
export const selectIsSavingPool = (s: WarmPoolsSnapshot) => s.hasTag('saving');

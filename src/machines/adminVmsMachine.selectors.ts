import type { AdminVmsSnapshot } from './adminVmsMachine';

export const selectVms = (s: AdminVmsSnapshot) => s.context.vms;
export const selectVmsError = (s: AdminVmsSnapshot) => s.context.error;
export const selectPending = (s: AdminVmsSnapshot) => s.context.pending;
export const selectIsLoadingVms = (s: AdminVmsSnapshot) => s.hasTag('loading');
/** Operations wait while the list loads or another operation runs. */
export const selectCanOperate = (s: AdminVmsSnapshot) =>
  s.can({ type: 'vm.operationRequested', id: '', operation: 'start' });
/** The machine whose delete waits for its confirmation, if any. */
export const selectConfirmingDeleteId = (s: AdminVmsSnapshot): string | null =>
  s.hasTag('confirming') ? (s.context.pending?.id ?? null) : null;

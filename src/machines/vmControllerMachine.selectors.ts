import type { TemplateEditorSnapshot } from './templateEditorMachine';
import type { VmActionsActorRef, VmActionsSnapshot } from './vmActionsMachine';
import type { VmControllerActorRef, VmControllerSnapshot } from './vmControllerMachine';
import { splitVmName, supportsOperation } from './vmControllerRules';

// The controller's child holds the rest: what the buttons offer, the request in flight, the
// confirmation and the failed requests are its actions' (the selectors that take a
// VmActionsSnapshot).

export type VmStatus = 'unknown' | 'created' | 'initialized' | 'deployed';

/** The controller of a template editor (its child 'vmController'), once it runs. */
export const selectVmController = (
  snapshot: TemplateEditorSnapshot,
): VmControllerActorRef | undefined =>
  // Children are typed by logic, not by invoke id; 'vmController' is only ever the controller.
  snapshot.children.vmController as VmControllerActorRef | undefined;

/** The controller's requests, for as long as it runs. */
export const selectVmActions = (snapshot: VmControllerSnapshot): VmActionsActorRef | undefined =>
  snapshot.children.actions;

export const selectVmStatus = (snapshot: VmControllerSnapshot): VmStatus => {
  if (snapshot.matches({ status: 'deployed' })) return 'deployed';
  if (snapshot.matches({ status: 'initialized' })) return 'initialized';
  if (snapshot.matches({ status: 'created' })) return 'created';
  return 'unknown';
};

/** The machine's name without its '#tag' (the template's name until a machine is loaded). */
export const selectVmName = (snapshot: VmControllerSnapshot): string =>
  // Until a machine is deployed, the name it will take is the template's as last saved: the
  // server's answer for an undeployed template carries the name it had when it was loaded.
  splitVmName(
    snapshot.matches({ status: 'deployed' })
      ? (snapshot.context.vm?.name ?? snapshot.context.template.name)
      : snapshot.context.template.name,
  ).name;

/** 'running', 'off', 'suspended', or '' when no machine is deployed. */
export const selectVmPowerState = (snapshot: VmControllerSnapshot): string =>
  snapshot.matches({ status: 'deployed' }) ? (snapshot.context.vm?.state ?? '') : '';

export const selectIsVmRunning = (snapshot: VmControllerSnapshot): boolean =>
  selectVmPowerState(snapshot) === 'running';

/** The running task's name and progress (0..100), or null when none is shown. */
export const selectVmTaskName = (snapshot: VmControllerSnapshot): string | null => {
  const task = snapshot.context.vm?.task;
  return task != null && task.progress < 100 ? (task.name ?? '') : null;
};

export const selectVmTaskProgress = (snapshot: VmControllerSnapshot): number | null => {
  const task = snapshot.context.vm?.task;
  return task != null && task.progress < 100 ? Math.max(0, Math.round(task.progress)) : null;
};

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const STATUS_TEXT: Record<Exclude<VmStatus, 'deployed'>, string> = {
  unknown: 'Unknown',
  created: 'Not initialized',
  initialized: 'Not deployed',
};

/**
 * What the machine's badge says: what is happening to it while a task runs ('Deploying' rather
 * than the 'Off' of a machine that is not yet up), 'Loading' until the first answer, then its
 * power state, or why there is no machine yet.
 */
export const selectVmStateText = (snapshot: VmControllerSnapshot): string => {
  const task = selectVmTaskName(snapshot);
  if (task !== null) return task === '' ? 'Working' : capitalized(task);
  const status = selectVmStatus(snapshot);
  if (status === 'unknown' && selectIsVmLoading(snapshot)) return 'Loading';
  if (status !== 'deployed') return STATUS_TEXT[status];
  return capitalized(selectVmPowerState(snapshot) || 'deployed');
};

/** The badge's colour: 'busy' while a task runs or it loads, else the power state or status. */
export const selectVmStateTone = (snapshot: VmControllerSnapshot): string => {
  const status = selectVmStatus(snapshot);
  if (selectVmTaskName(snapshot) !== null) return 'busy';
  if (status === 'unknown' && selectIsVmLoading(snapshot)) return 'busy';
  return status === 'deployed' ? selectVmPowerState(snapshot) : status;
};

/** The machine is being loaded (with a request in flight, the spinner turns). */
export const selectIsVmLoading = (snapshot: VmControllerSnapshot): boolean =>
  snapshot.hasTag('loading');

/** A request is in flight (or, with the machine loading, the spinner turns). */
export const selectIsVmBusy = (actions: VmActionsSnapshot): boolean => actions.hasTag('busy');

export const selectCanInitialize = (actions: VmActionsSnapshot): boolean =>
  actions.can({ type: 'vm.initializeRequested' });
export const selectCanDeploy = (actions: VmActionsSnapshot): boolean =>
  actions.can({ type: 'vm.deployRequested' });
export const selectCanStart = (actions: VmActionsSnapshot): boolean =>
  actions.can({ type: 'vm.startRequested' });
export const selectCanStop = (actions: VmActionsSnapshot): boolean =>
  actions.can({ type: 'vm.stopRequested' });
export const selectCanSave = (actions: VmActionsSnapshot): boolean =>
  actions.can({ type: 'vm.saveRequested' });
export const selectCanRevert = (actions: VmActionsSnapshot): boolean =>
  actions.can({ type: 'vm.revertRequested' });
export const selectCanDeleteVm = (actions: VmActionsSnapshot): boolean =>
  actions.can({ type: 'vm.deleteRequested' });
export const selectCanOpenConsole = (snapshot: VmControllerSnapshot): boolean =>
  snapshot.can({ type: 'vm.consoleRequested' });

/** 'revert' or 'delete' while the user is asked to confirm it, else null. */
export const selectVmConfirmation = (actions: VmActionsSnapshot): 'revert' | 'delete' | null =>
  actions.matches('confirming') &&
  (actions.context.pending === 'revert' || actions.context.pending === 'delete')
    ? actions.context.pending
    : null;

/** The context's own array: a stable reference until an error is added or dismissed. */
export const selectVmErrors = (actions: VmActionsSnapshot): readonly string[] =>
  actions.context.errors;

/**
 * Which buttons the deployed machine has (they stay in place, disabled, while a request runs);
 * save, revert and delete only where they may ever apply.
 */
export const selectVmHasSave = (snapshot: VmControllerSnapshot): boolean =>
  snapshot.context.template.id !== '' && !snapshot.context.template.isLinked;
export const selectVmHasRevert = (snapshot: VmControllerSnapshot): boolean =>
  supportsOperation(snapshot.context.vm, 'revert');
export const selectVmHasDelete = (snapshot: VmControllerSnapshot): boolean =>
  !snapshot.context.hideDelete;

import { useSelector } from '@xstate/react';
import type { VmActionsActorRef } from '../../../machines/vmActionsMachine';
import type {
  VmControllerActorRef,
  VmControllerEvent,
} from '../../../machines/vmControllerMachine';
import {
  selectCanDeleteVm,
  selectCanDeploy,
  selectCanInitialize,
  selectCanOpenConsole,
  selectCanRevert,
  selectCanSave,
  selectCanStart,
  selectCanStop,
  selectIsVmBusy,
  selectIsVmLoading,
  selectIsVmRunning,
  selectVmActions,
  selectVmConfirmation,
  selectVmErrors,
  selectVmHasDelete,
  selectVmHasRevert,
  selectVmHasSave,
  selectVmName,
  selectVmStateText,
  selectVmStateTone,
  selectVmStatus,
  selectVmTaskName,
  selectVmTaskProgress,
} from '../../../machines/vmControllerMachine.selectors';
import { DismissibleAlerts } from '../../common/DismissibleAlerts';
import { ConfirmPrompt } from '../ConfirmPrompt';
import {
  Icon,
  type IconShape,
  piDesktop,
  piHistory,
  piPlay,
  piRefresh,
  piSave,
  piServer,
  piSpinner,
  piStop,
  piTrash,
} from '../../common/icons';
import './vm.css';

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** An icon button named for assistive technology (and a tooltip) by `label`. */
function IconButton({
  label,
  icon,
  enabled,
  severity,
  onClick,
}: {
  label: string;
  icon: IconShape;
  enabled: boolean;
  severity?: 'danger' | 'secondary';
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      className={`p-button p-component p-button-icon-only p-button-text p-button-sm${
        severity ? ` p-button-${severity}` : ''
      }`}
      aria-label={label}
      title={label}
      disabled={!enabled}
      onClick={onClick}
    >
      <Icon shape={icon} />
    </button>
  );
}

/** The controller and its requests (its child), which the buttons read together. */
interface ControllerProps {
  controller: VmControllerActorRef;
  actions: VmActionsActorRef;
}

/** Revert or Delete, confirmed right where it was asked (the prompt takes the focus). */
function VmConfirmation({
  controller,
  name,
  request,
}: ControllerProps & { name: string; request: 'revert' | 'delete' }) {
  return (
    <ConfirmPrompt
      question={
        request === 'delete'
          ? `Delete machine ${name}?`
          : `Revert machine ${name} to its last saved state?`
      }
      onConfirm={() => controller.send({ type: 'vm.requestConfirmed' })}
      onCancel={() => controller.send({ type: 'vm.requestCancelled' })}
    />
  );
}

/**
 * The deployed machine's buttons: console, power, save, revert and delete (spec §2); the
 * confirmation of revert or delete follows the button that asked for it.
 */
function DeployedButtons({ controller, actions, name }: ControllerProps & { name: string }) {
  const running = useSelector(controller, selectIsVmRunning);
  const canConsole = useSelector(controller, selectCanOpenConsole);
  const canStart = useSelector(actions, selectCanStart);
  const canStop = useSelector(actions, selectCanStop);
  const hasSave = useSelector(controller, selectVmHasSave);
  const canSave = useSelector(actions, selectCanSave);
  const hasRevert = useSelector(controller, selectVmHasRevert);
  const canRevert = useSelector(actions, selectCanRevert);
  const hasDelete = useSelector(controller, selectVmHasDelete);
  const canDelete = useSelector(actions, selectCanDeleteVm);
  const confirmation = useSelector(actions, selectVmConfirmation);
  const send = (type: VmControllerEvent['type']) => () =>
    controller.send({ type } as VmControllerEvent);
  return (
    <>
      <IconButton
        label="Console"
        icon={piDesktop}
        enabled={canConsole}
        onClick={send('vm.consoleRequested')}
      />
      {running ? (
        <IconButton
          label="Stop"
          icon={piStop}
          enabled={canStop}
          onClick={send('vm.stopRequested')}
        />
      ) : (
        <IconButton
          label="Start"
          icon={piPlay}
          enabled={canStart}
          onClick={send('vm.startRequested')}
        />
      )}
      {hasSave && (
        <IconButton
          label="Save"
          icon={piSave}
          enabled={canSave}
          onClick={send('vm.saveRequested')}
        />
      )}
      {hasRevert && (
        <IconButton
          label="Revert"
          icon={piHistory}
          enabled={canRevert}
          onClick={send('vm.revertRequested')}
        />
      )}
      {confirmation === 'revert' && (
        <VmConfirmation controller={controller} actions={actions} name={name} request="revert" />
      )}
      {hasDelete && (
        <IconButton
          label="Delete machine"
          icon={piTrash}
          severity="danger"
          enabled={canDelete}
          onClick={send('vm.deleteRequested')}
        />
      )}
      {confirmation === 'delete' && (
        <VmConfirmation controller={controller} actions={actions} name={name} request="delete" />
      )}
    </>
  );
}

/** A running task's progress, with its percent. */
function TaskProgress({ name, progress }: { name: string; progress: number }) {
  const label = name === '' ? 'Task' : capitalized(name);
  return (
    <div className="tp-vm-task">
      <span className="tp-small tp-muted">{label}</span>
      <div
        className="tp-vm-progress"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={progress}
      >
        <div className="tp-vm-progress-value" style={{ width: `${progress}%` }} />
      </div>
      <span className="tp-small">{progress}%</span>
    </div>
  );
}

/**
 * A template's machine controller (spec §2 Machine controller): its name and state, Initialize or
 * Deploy or the deployed machine's buttons (with the confirmation of revert and delete beside
 * them), the running task's progress, and the failed requests as dismissible alerts.
 */
export function VmController({ controller }: { controller: VmControllerActorRef }) {
  const actions = useSelector(controller, selectVmActions);
  return actions ? <Controller controller={controller} actions={actions} /> : null;
}

function Controller({ controller, actions }: ControllerProps) {
  const name = useSelector(controller, selectVmName);
  const status = useSelector(controller, selectVmStatus);
  const stateText = useSelector(controller, selectVmStateText);
  const stateTone = useSelector(controller, selectVmStateTone);
  const loading = useSelector(controller, selectIsVmLoading);
  const requesting = useSelector(actions, selectIsVmBusy);
  const busy = loading || requesting;
  const canInitialize = useSelector(actions, selectCanInitialize);
  const canDeploy = useSelector(actions, selectCanDeploy);
  const taskName = useSelector(controller, selectVmTaskName);
  const progress = useSelector(controller, selectVmTaskProgress);
  const errors = useSelector(actions, selectVmErrors);
  return (
    <div className="tp-vm" role="group" aria-label={`Machine ${name}`} aria-busy={busy}>
      <div className="tp-vm-bar">
        <Icon shape={piServer} className="tp-muted" />
        <span className="tp-vm-name">{name}</span>
        <span className={`tp-vm-state tp-vm-state-${stateTone}`}>
          <span className="tp-visually-hidden">State: </span>
          {stateText}
        </span>
        <span className="tp-vm-spinner" role="status" aria-label={busy ? 'Working' : undefined}>
          {busy && <Icon shape={piSpinner} spin />}
        </span>
        <div className="tp-vm-buttons" role="toolbar" aria-label={`Machine ${name} actions`}>
          <IconButton
            label="Refresh"
            icon={piRefresh}
            enabled
            onClick={() => controller.send({ type: 'vm.refreshRequested' })}
          />
          {status === 'created' && (
            <button
              type="button"
              className="p-button p-component p-button-sm"
              disabled={!canInitialize}
              onClick={() => controller.send({ type: 'vm.initializeRequested' })}
            >
              Initialize
            </button>
          )}
          {status === 'initialized' && (
            <button
              type="button"
              className="p-button p-component p-button-sm"
              disabled={!canDeploy}
              onClick={() => controller.send({ type: 'vm.deployRequested' })}
            >
              Deploy
            </button>
          )}
          {status === 'deployed' && (
            <DeployedButtons controller={controller} actions={actions} name={name} />
          )}
        </div>
      </div>
      {progress !== null && <TaskProgress name={taskName ?? ''} progress={progress} />}
      <DismissibleAlerts
        messages={errors}
        onDismiss={(index) => controller.send({ type: 'vm.errorDismissed', index })}
      />
    </div>
  );
}

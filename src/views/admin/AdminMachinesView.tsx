import { useSelector } from '@xstate/react';
import type { AdminVmOperation, AdminVmsActorRef } from '../../machines/adminVmsMachine';
import {
  isOrphaned,
  selectCanOperate,
  selectConfirmingDeleteId,
  selectIsLoadingVms,
  selectPending,
  selectVms,
  selectVmsError,
} from '../../machines/adminVmsMachine.selectors';
import { ConfirmPrompt } from '../topo/ConfirmPrompt';
import { RefreshButton } from './RefreshButton';
import {
  Icon,
  type IconShape,
  piExclamationTriangle,
  piSpinner,
  piPlay,
  piStop,
  piTrash,
} from '../common/icons';

const OPERATIONS: { operation: AdminVmOperation; label: string; icon: IconShape }[] = [
  { operation: 'start', label: 'Start', icon: piPlay },
  { operation: 'stop', label: 'Stop', icon: piStop },
  { operation: 'delete', label: 'Delete', icon: piTrash },
];

/** The admin Machines section: every machine, its group, power state and orphan flag. */
export function AdminMachinesView({ vms }: { vms: AdminVmsActorRef }) {
  const list = useSelector(vms, selectVms);
  const loading = useSelector(vms, selectIsLoadingVms);
  const canOperate = useSelector(vms, selectCanOperate);
  const pending = useSelector(vms, selectPending);
  const confirmingId = useSelector(vms, selectConfirmingDeleteId);
  const error = useSelector(vms, selectVmsError);
  return (
    <section aria-labelledby="tp-admin-machines">
      <div className="tp-section-header">
        <h2 id="tp-admin-machines">Machines ({list.length})</h2>
        <RefreshButton
          loading={loading}
          onClick={() => vms.send({ type: 'vms.refreshRequested' })}
        />
      </div>
      {error && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
      )}
      <table className="tp-table" aria-label="Machines">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Group</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {list.map((vm) => {
            const orphan = isOrphaned(vm);
            const name = vm.name ?? vm.id;
            return (
              <tr key={vm.id}>
                <td>{name}</td>
                <td>
                  {orphan ? (
                    <span className="tp-alert-danger tp-badge">
                      <Icon shape={piExclamationTriangle} /> orphaned
                    </span>
                  ) : (
                    vm.groupName
                  )}
                </td>
                <td>{vm.state}</td>
                <td className="tp-actions">
                  {OPERATIONS.map(({ operation, label, icon }) => (
                    <button
                      key={operation}
                      type="button"
                      className="p-button p-component p-button-sm p-button-text"
                      aria-label={`${label} ${name}`}
                      disabled={!canOperate}
                      onClick={() =>
                        vms.send({ type: 'vm.operationRequested', id: vm.id, operation })
                      }
                    >
                      {pending?.id === vm.id && pending.operation === operation ? (
                        <Icon shape={piSpinner} spin />
                      ) : (
                        <Icon shape={icon} />
                      )}
                    </button>
                  ))}
                  {confirmingId === vm.id && (
                    <ConfirmPrompt
                      question={`Delete machine ${name}?`}
                      onConfirm={() => vms.send({ type: 'vm.deleteConfirmed' })}
                      onCancel={() => vms.send({ type: 'vm.deleteCancelled' })}
                    />
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

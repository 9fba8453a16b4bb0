import { useSelector } from '@xstate/react';
import { Link } from 'react-router';
import type { AdminVmOperation, AdminVmsActorRef } from '../../machines/adminVmsMachine';
import {
  selectCanOperate,
  selectConfirmingDeleteId,
  selectIsLoadingVms,
  selectPending,
  selectVms,
  selectVmsError,
} from '../../machines/adminVmsMachine.selectors';
import {
  vmDisplayName,
  vmOperationsFor,
  vmOwnerOf,
  vmOwnerPath,
  type VmOwner,
} from '../../domain/vmListing';
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
import './admin.css';

const OPERATIONS: { operation: AdminVmOperation; label: string; icon: IconShape }[] = [
  { operation: 'start', label: 'Start', icon: piPlay },
  { operation: 'stop', label: 'Stop', icon: piStop },
  { operation: 'delete', label: 'Delete', icon: piTrash },
];

/** The workspace or gamespace a machine belongs to, linked to its page; a game's players too. */
function Owner({ owner, players }: { owner: VmOwner; players: readonly string[] }) {
  switch (owner.kind) {
    case 'orphaned':
      return (
        <span className="tp-alert-danger tp-badge">
          <Icon shape={piExclamationTriangle} /> orphaned
        </span>
      );
    case 'workspace':
      return (
        <>
          Workspace: <Link to={vmOwnerPath(owner)!}>{owner.name}</Link>
        </>
      );
    case 'gamespace':
      return (
        <>
          Gamespace: <Link to={vmOwnerPath(owner)!}>{owner.name}</Link>
          {players.length > 0 && (
            <span className="tp-admin-vm-players">
              {players.length === 1 ? 'Player' : 'Players'}: {players.join(', ')}
            </span>
          )}
        </>
      );
    default:
      return <>{owner.text}</>;
  }
}

/**
 * The admin Machines section: every machine by its name without the tag, what it belongs to (a
 * workspace, or a gamespace and its players, linked to their pages), power state, orphan flag.
 */
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
            <th scope="col">Belongs to</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {list.map((vm) => {
            const name = vmDisplayName(vm.name ?? vm.id);
            const operations = vmOperationsFor(vm.state);
            return (
              <tr key={vm.id}>
                <td>{name}</td>
                <td>
                  <Owner owner={vmOwnerOf(vm.groupName)} players={vm.playerNames ?? []} />
                </td>
                <td>{vm.state}</td>
                <td className="tp-admin-vm-actions">
                  {OPERATIONS.filter((o) => operations.includes(o.operation)).map(
                    ({ operation, label, icon }) => (
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
                    ),
                  )}
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

import { useSelector } from '@xstate/react';
import type { GamespaceCleanupActorRef } from '../../../machines/gamespaceCleanupMachine';
import {
  selectCanRequestGamespaceDelete,
  selectGamespaceCleanupErrors,
  selectGamespacesDeleted,
  selectHasGamespaces,
  selectIsConfirmingGamespaceDelete,
} from '../../../machines/gamespaceCleanupMachine.selectors';
import { DismissibleAlerts } from '../../common/DismissibleAlerts';
import { ConfirmPrompt } from '../ConfirmPrompt';

/** The Templates tab's warning about running gamespaces, with their deletion (spec §2). */
export function GamespaceWarning({ cleanup }: { cleanup: GamespaceCleanupActorRef }) {
  const confirming = useSelector(cleanup, selectIsConfirmingGamespaceDelete);
  const canRequest = useSelector(cleanup, selectCanRequestGamespaceDelete);
  const deleted = useSelector(cleanup, selectGamespacesDeleted);
  const errors = useSelector(cleanup, selectGamespaceCleanupErrors);
  const hasGamespaces = useSelector(cleanup, selectHasGamespaces);
  // No gamespace was under way: there is nothing to warn of, nor to delete.
  if (!hasGamespaces) return null;
  return (
    <div className="tp-alert tp-alert-warning tp-gamespace-warning">
      <span>
        Changing templates does not affect running gamespaces; delete them to apply changes.
      </span>
      {deleted ? null : confirming ? (
        <ConfirmPrompt
          question="Delete every gamespace of this workspace?"
          onConfirm={() => cleanup.send({ type: 'gamespaces.deleteConfirmed' })}
          onCancel={() => cleanup.send({ type: 'gamespaces.deleteCancelled' })}
        />
      ) : (
        <button
          type="button"
          className="p-button p-component p-button-warning p-button-sm"
          disabled={!canRequest}
          onClick={() => cleanup.send({ type: 'gamespaces.deleteRequested' })}
        >
          Delete gamespaces
        </button>
      )}
      <span role="status">{deleted ? 'Gamespaces deleted.' : ''}</span>
      <DismissibleAlerts
        messages={errors}
        onDismiss={(index) => cleanup.send({ type: 'gamespaces.errorDismissed', index })}
      />
    </div>
  );
}

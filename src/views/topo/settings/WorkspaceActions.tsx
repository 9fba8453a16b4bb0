import { useSelector } from '@xstate/react';
import type { WorkspaceActionsActorRef } from '../../../machines/workspaceActionsMachine';
import {
  selectCanRequestWorkspaceAction,
  selectIsWorkspaceActionBusy,
  selectPendingWorkspaceAction,
  selectWorkspaceActionErrors,
} from '../../../machines/workspaceActionsMachine.selectors';
import { ConfirmPrompt } from '../ConfirmPrompt';
import { Icon, piTimes } from '../../common/icons';

const QUESTIONS = {
  clone: 'Clone this workspace?',
  delete: 'Delete this workspace and its templates? This cannot be undone.',
} as const;

/** Clone and Delete, each confirmed; failures listed in an error box (spec §8). */
export function WorkspaceActions({ actions }: { actions: WorkspaceActionsActorRef }) {
  const pending = useSelector(actions, selectPendingWorkspaceAction);
  const canRequest = useSelector(actions, selectCanRequestWorkspaceAction);
  const busy = useSelector(actions, selectIsWorkspaceActionBusy);
  const errors = useSelector(actions, selectWorkspaceActionErrors);
  return (
    <section className="tp-panel" aria-labelledby="tp-workspace-actions-title" aria-busy={busy}>
      <h2 id="tp-workspace-actions-title">Clone or delete</h2>
      {errors.length > 0 && (
        <div className="tp-error-box" role="alert">
          <ul>
            {errors.map((error, index) => (
              <li key={`${index}:${error}`}>
                <span>{error}</span>
                <button
                  type="button"
                  className="tp-alert-close"
                  aria-label="Dismiss"
                  onClick={() => actions.send({ type: 'workspace.actionErrorDismissed', index })}
                >
                  <Icon shape={piTimes} />
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {pending !== null ? (
        <ConfirmPrompt
          question={QUESTIONS[pending]}
          onConfirm={() => actions.send({ type: 'workspace.actionConfirmed' })}
          onCancel={() => actions.send({ type: 'workspace.actionCancelled' })}
        />
      ) : (
        <div className="tp-actions">
          <button
            type="button"
            className="p-button p-component p-button-outlined p-button-sm"
            disabled={!canRequest}
            onClick={() => actions.send({ type: 'workspace.cloneRequested' })}
          >
            Clone
          </button>
          <button
            type="button"
            className="p-button p-component p-button-danger p-button-outlined p-button-sm"
            disabled={!canRequest}
            onClick={() => actions.send({ type: 'workspace.deleteRequested' })}
          >
            Delete
          </button>
        </div>
      )}
    </section>
  );
}

import { useSelector } from '@xstate/react';
import type { CollaboratorsActorRef } from '../../../machines/collaboratorsMachine';
import {
  selectCanRequestRemoval,
  selectCollaboratorErrors,
  selectOnlyManagerId,
  selectCollaborators,
  selectIsConfirmingRemoval,
  selectIsRemoving,
  selectRemovalTargetId,
} from '../../../machines/collaboratorsMachine.selectors';
import { DismissibleAlerts } from '../../common/DismissibleAlerts';
import { ConfirmPrompt } from '../ConfirmPrompt';

/** The workspace's collaborators, each with Remove (confirmed first). */
export function Collaborators({ collaborators }: { collaborators: CollaboratorsActorRef }) {
  const list = useSelector(collaborators, selectCollaborators);
  const target = useSelector(collaborators, selectRemovalTargetId);
  const confirming = useSelector(collaborators, selectIsConfirmingRemoval);
  const removing = useSelector(collaborators, selectIsRemoving);
  const canRemove = useSelector(collaborators, selectCanRequestRemoval);
  const errors = useSelector(collaborators, selectCollaboratorErrors);
  const onlyManager = useSelector(collaborators, selectOnlyManagerId);
  return (
    <section className="tp-panel" aria-labelledby="tp-collaborators-title">
      <h2 id="tp-collaborators-title">Collaborators</h2>
      <DismissibleAlerts
        messages={errors}
        onDismiss={(index) => collaborators.send({ type: 'collaborator.errorDismissed', index })}
      />
      {list.length === 0 ? (
        <p className="tp-muted">No collaborators.</p>
      ) : (
        <ul className="tp-list" aria-label="Collaborators">
          {list.map((c) => (
            <li key={c.subjectId} className="tp-list-item">
              <span>{c.name}</span> <span className="tp-muted tp-small">{c.permission}</span>
              {c.subjectId === onlyManager ? (
                <span className="tp-muted tp-small">Cannot be removed: the only manager.</span>
              ) : target === c.subjectId && confirming ? (
                <ConfirmPrompt
                  question={`Remove ${c.name} from this workspace?`}
                  onConfirm={() => collaborators.send({ type: 'collaborator.removeConfirmed' })}
                  onCancel={() => collaborators.send({ type: 'collaborator.removeCancelled' })}
                />
              ) : (
                <button
                  type="button"
                  className="p-button p-component p-button-outlined p-button-sm"
                  disabled={!canRemove}
                  aria-busy={target === c.subjectId && removing}
                  onClick={() =>
                    collaborators.send({
                      type: 'collaborator.removeRequested',
                      subjectId: c.subjectId,
                    })
                  }
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <p className="tp-muted tp-small">Collaborators join through an invitation link.</p>
    </section>
  );
}

import { useSelector } from '@xstate/react';
import { useId } from 'react';
import type { InvitationActorRef } from '../../../machines/invitationMachine';
import {
  selectCanCopy,
  selectCanGenerate,
  selectInvitationError,
  selectInvitationLink,
  selectShowCopied,
} from '../../../machines/invitationMachine.selectors';

/** Generate invitation, the link, Copy and its confirmation (spec §2, §4). */
export function Invitation({ invitation }: { invitation: InvitationActorRef }) {
  const link = useSelector(invitation, selectInvitationLink);
  const canGenerate = useSelector(invitation, selectCanGenerate);
  const canCopy = useSelector(invitation, selectCanCopy);
  const copied = useSelector(invitation, selectShowCopied);
  const error = useSelector(invitation, selectInvitationError);
  const linkId = useId();
  return (
    <section className="tp-panel" aria-labelledby="tp-invitation-title">
      <h2 id="tp-invitation-title">Invitation</h2>
      <p className="tp-muted tp-small">
        Anyone who opens the link joins this workspace as a collaborator. Generating a new link
        stops the previous one from working.
      </p>
      <button
        type="button"
        className="p-button p-component p-button-sm"
        disabled={!canGenerate}
        onClick={() => invitation.send({ type: 'invitation.generateRequested' })}
      >
        Generate invitation
      </button>
      {link !== null && (
        <div className="tp-invitation-link">
          <label htmlFor={linkId}>Invitation link</label>
          <input
            id={linkId}
            className="p-inputtext p-component"
            value={link}
            readOnly
            onFocus={(e) => e.target.select()}
          />
          <button
            type="button"
            className="p-button p-component p-button-outlined p-button-sm"
            disabled={!canCopy}
            onClick={() => invitation.send({ type: 'invitation.copyRequested' })}
          >
            Copy
          </button>
          <span role="status" className="tp-copied">
            {copied ? 'Copied' : ''}
          </span>
        </div>
      )}
      {error !== null && (
        <p role="alert" className="tp-field-message">
          {error}
        </p>
      )}
    </section>
  );
}

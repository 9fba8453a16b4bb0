import { useSelector } from '@xstate/react';
import { useId } from 'react';
import { MAX_HELP_MESSAGE } from '../../domain/help';
import type { HelpRequestActorRef } from '../../machines/helpRequestMachine';
import {
  selectCanCancelHelp,
  selectCanSendHelp,
  selectHelpDraft,
  selectHelpError,
  selectHelpLine,
  selectHelpRequest,
  selectHelpView,
  selectIsHelpBusy,
  selectIsHelpClaimed,
} from '../../machines/helpRequestMachine.selectors';
import './help.css';

const button = 'p-button p-component p-button-sm';

/**
 * Ask for help (the play page): a short message to the people watching the class, then whether
 * someone is on it, and their answer, as it happens. An open request can be cancelled; after an
 * answer the player may ask again.
 */
export function RaiseHand({ help }: { help: HelpRequestActorRef }) {
  const view = useSelector(help, selectHelpView);
  const request = useSelector(help, selectHelpRequest);
  const line = useSelector(help, selectHelpLine);
  const draft = useSelector(help, selectHelpDraft);
  const error = useSelector(help, selectHelpError);
  const busy = useSelector(help, selectIsHelpBusy);
  const claimed = useSelector(help, selectIsHelpClaimed);
  const canSend = useSelector(help, selectCanSendHelp);
  const canCancel = useSelector(help, selectCanCancelHelp);
  const headingId = useId();
  const messageId = useId();
  const countId = useId();

  if (view === 'loading') return null;
  const ask = (label: string) => (
    <button
      type="button"
      className={`${button} p-button-secondary`}
      onClick={() => help.send({ type: 'help.composeRequested' })}
    >
      {label}
    </button>
  );

  return (
    <section className="tp-help" aria-labelledby={headingId}>
      <h2 id={headingId}>Help</h2>
      {view === 'idle' && ask('Ask for help')}
      {view === 'composing' && (
        <form
          className="tp-help-form"
          onSubmit={(e) => {
            e.preventDefault();
            help.send({ type: 'help.sendRequested' });
          }}
        >
          <label htmlFor={messageId}>What do you need help with?</label>
          <textarea
            id={messageId}
            className="p-inputtextarea p-inputtext p-component"
            rows={3}
            maxLength={MAX_HELP_MESSAGE}
            value={draft}
            disabled={busy}
            aria-describedby={countId}
            // The form opens when the player asks for it: the box takes the focus.
            autoFocus
            onChange={(e) => help.send({ type: 'help.draftChanged', text: e.target.value })}
          />
          <span id={countId} className="tp-muted tp-help-count">
            {draft.trim().length} / {MAX_HELP_MESSAGE}
          </span>
          <div className="tp-help-actions">
            <button type="submit" className={button} disabled={!canSend}>
              {busy ? 'Sending…' : 'Send'}
            </button>
            <button
              type="button"
              className={`${button} p-button-text`}
              disabled={busy}
              onClick={() => help.send({ type: 'help.composeCancelled' })}
            >
              Never mind
            </button>
          </div>
        </form>
      )}
      {request && view !== 'idle' && (
        <div className="tp-help-request">
          {view === 'composing' ? null : (
            <>
              <p className="tp-help-status" role="status">
                <span
                  className={`tp-help-dot ${
                    view === 'answered'
                      ? 'tp-help-dot-answered'
                      : claimed
                        ? 'tp-help-dot-claimed'
                        : 'tp-help-dot-waiting'
                  }`}
                  aria-hidden="true"
                />
                {line}
              </p>
              <blockquote className="tp-help-message" aria-label="Your message">
                {request.message}
              </blockquote>
            </>
          )}
          {view === 'answered' && (
            <>
              <p className="tp-help-answer" role="note" aria-label="Answer">
                {request.answer}
              </p>
              {ask('Ask again')}
            </>
          )}
          {view === 'open' && (
            <button
              type="button"
              className={`${button} p-button-outlined p-button-danger`}
              disabled={!canCancel}
              onClick={() => help.send({ type: 'help.cancelRequested' })}
            >
              Cancel request
            </button>
          )}
        </div>
      )}
      {error && (
        <p className="tp-help-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

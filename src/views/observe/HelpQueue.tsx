import { useSelector } from '@xstate/react';
import { useId } from 'react';
import { MAX_HELP_ANSWER } from '../../domain/help';
import type { HelpQueueActorRef, HelpRequest } from '../../machines/helpQueueMachine';
import {
  helpStatusLine,
  queueStatusLine,
  selectActingOn,
  selectAnswers,
  selectCanAct,
  selectIsQueueLoading,
  selectOpenCount,
  selectQueueError,
  selectQueueNow,
  selectQueueRequests,
  waitedText,
} from '../../machines/helpQueueMachine.selectors';
import './helpQueue.css';

const button = 'p-button p-component p-button-sm';

function OpenRequest({
  queue,
  request,
  viewerId,
  now,
  answer,
  canAct,
  acting,
}: {
  queue: HelpQueueActorRef;
  request: HelpRequest;
  viewerId: string | null;
  now: number;
  answer: string;
  canAct: boolean;
  acting: boolean;
}) {
  const answerId = useId();
  const mine = !!viewerId && request.claimedById === viewerId;
  const who = `${request.playerName || 'A player'} in ${request.gamespaceName || 'a gamespace'}`;
  return (
    <li className="tp-hq-item" aria-label={`Help request of ${who}`}>
      <div className="tp-hq-head">
        <strong>{request.playerName || 'A player'}</strong>
        <span className="tp-muted">{request.gamespaceName}</span>
        <time className="tp-hq-waited" dateTime={request.raisedAt}>
          waiting {waitedText(request, now)}
        </time>
        <span className={request.claimedById ? 'tp-hq-claimed' : 'tp-hq-waiting'}>
          {queueStatusLine(request, viewerId)}
        </span>
      </div>
      <p className="tp-hq-message">{request.message}</p>
      <form
        className="tp-hq-answer"
        onSubmit={(e) => {
          e.preventDefault();
          queue.send({ type: 'queue.answerRequested', id: request.id });
        }}
      >
        {!mine && (
          <button
            type="button"
            className={`${button} p-button-secondary`}
            disabled={!canAct}
            onClick={() => queue.send({ type: 'queue.claimRequested', id: request.id })}
          >
            {request.claimedById ? 'Take over' : 'Claim'}
          </button>
        )}
        <label htmlFor={answerId} className="tp-visually-hidden">
          Answer to {request.playerName || 'the player'}
        </label>
        <textarea
          id={answerId}
          className="p-inputtextarea p-inputtext p-component"
          rows={2}
          maxLength={MAX_HELP_ANSWER}
          placeholder="Answer…"
          value={answer}
          onChange={(e) =>
            queue.send({ type: 'queue.answerChanged', id: request.id, text: e.target.value })
          }
        />
        <button type="submit" className={button} disabled={!canAct || !answer.trim()}>
          {acting ? 'Sending…' : 'Answer'}
        </button>
      </form>
    </li>
  );
}

function ClosedRequest({ request }: { request: HelpRequest }) {
  return (
    <li className="tp-hq-item tp-hq-closed">
      <div className="tp-hq-head">
        <strong>{request.playerName || 'A player'}</strong>
        <span className="tp-muted">{request.gamespaceName}</span>
        <span>{helpStatusLine(request)}</span>
        {request.closedAt && (
          <span className="tp-muted">
            after {waitedText(request, Date.parse(request.closedAt))}
          </span>
        )}
      </div>
      <p className="tp-hq-message">{request.message}</p>
      {request.answer && <p className="tp-hq-given">{request.answer}</p>}
    </li>
  );
}

/**
 * The observers' help queue: open requests oldest first with how long each has waited, who is on
 * it, Claim (or Take over) and an answer box; answered and cancelled ones folded away below. It
 * follows the hub as requests are raised, claimed and answered.
 */
export function HelpQueue({
  queue,
  viewerId,
}: {
  queue: HelpQueueActorRef;
  /** The viewer's user id: a request they are on says so. */
  viewerId: string | null;
}) {
  const requests = useSelector(queue, selectQueueRequests);
  const now = useSelector(queue, selectQueueNow);
  const error = useSelector(queue, selectQueueError);
  const loading = useSelector(queue, selectIsQueueLoading);
  const actingOn = useSelector(queue, selectActingOn);
  const answers = useSelector(queue, selectAnswers);
  const canAct = useSelector(queue, selectCanAct);
  const openCount = useSelector(queue, selectOpenCount);
  const headingId = useId();
  const open = requests.filter((r) => r.status === 'open');
  const closed = requests.filter((r) => r.status !== 'open');

  return (
    <section className="tp-hq" aria-labelledby={headingId}>
      <div className="tp-hq-bar">
        <h2 id={headingId}>Help requests</h2>
        <span className={openCount > 0 ? 'tp-hq-count tp-hq-count-open' : 'tp-hq-count'}>
          {openCount} open
        </span>
        <button
          type="button"
          className={`${button} p-button-text`}
          disabled={loading}
          onClick={() => queue.send({ type: 'queue.refreshRequested' })}
        >
          Refresh
        </button>
      </div>
      {error && (
        <p className="tp-browser-error" role="alert">
          {error}
        </p>
      )}
      {open.length === 0 ? (
        <p className="tp-muted">
          {loading && requests.length === 0 ? 'Loading…' : 'No one is waiting for help.'}
        </p>
      ) : (
        <ol className="tp-hq-list" aria-label="Open help requests">
          {open.map((r) => (
            <OpenRequest
              key={r.id}
              queue={queue}
              request={r}
              viewerId={viewerId}
              now={now}
              answer={answers[r.id] ?? ''}
              canAct={canAct}
              acting={actingOn === r.id}
            />
          ))}
        </ol>
      )}
      {closed.length > 0 && (
        <details className="tp-hq-done">
          <summary>Answered and cancelled ({closed.length})</summary>
          <ol className="tp-hq-list" aria-label="Closed help requests">
            {closed.map((r) => (
              <ClosedRequest key={r.id} request={r} />
            ))}
          </ol>
        </details>
      )}
    </section>
  );
}

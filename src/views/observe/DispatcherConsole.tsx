import { useSelector } from '@xstate/react';
import { useEffect, useId, useRef } from 'react';
import {
  LOG_HEIGHT_PX,
  LOG_SCROLL_DELAY_MS,
  type DispatcherConsoleActorRef,
} from '../../machines/dispatcherConsoleMachine';
import {
  agentLabel,
  dispatchLine,
  selectAgents,
  selectCanRefreshDispatches,
  selectDispatchDraft,
  selectDispatcherError,
  selectDispatches,
  selectIsLoadingDispatches,
  waitingNote,
} from '../../machines/dispatcherConsoleMachine.selectors';
import { dateText } from '../../machines/gamespaceBrowserMachine.selectors';
import './dispatcher.css';

export const DISPATCH_PLACEHOLDER = '[target] command';
export const DISPATCH_HINT =
  'Specifying the target name is optional. If omitted, the command will be processed by all listening agents.';

/**
 * The Dispatcher tab (spec §2): which machines have an agent listening, the gamespace's
 * dispatches as a log that follows the newest entry (a command still waiting says so when no
 * agent listens where it went), and the one input that sends a command on Enter.
 */
export function DispatcherConsole({ dispatcher: ref }: { dispatcher: DispatcherConsoleActorRef }) {
  const entries = useSelector(ref, selectDispatches);
  const draft = useSelector(ref, selectDispatchDraft);
  const error = useSelector(ref, selectDispatcherError);
  const loading = useSelector(ref, selectIsLoadingDispatches);
  const canRefresh = useSelector(ref, selectCanRefreshDispatches);
  const agents = useSelector(ref, selectAgents);
  const log = useRef<HTMLOListElement>(null);
  const hintId = useId();

  // Presentation only: the log shows its end a moment after an entry comes or changes (spec §9).
  useEffect(() => {
    const timer = setTimeout(() => {
      const element = log.current;
      if (element) element.scrollTop = element.scrollHeight;
    }, LOG_SCROLL_DELAY_MS);
    return () => clearTimeout(timer);
  }, [entries]);

  return (
    <div className="tp-dispatcher">
      {agents && (
        <ul className="tp-dispatcher-agents" aria-label="Agents">
          {agents.length === 0 && <li className="tp-muted">No machines and no agent.</li>}
          {agents.map((row) => (
            <li
              key={row.name ?? ''}
              className={row.agents > 0 ? 'tp-agent-listening' : 'tp-agent-absent'}
            >
              {agentLabel(row)}
            </li>
          ))}
        </ul>
      )}
      <ol
        ref={log}
        className="tp-dispatcher-log"
        aria-label="Dispatcher log"
        aria-busy={loading}
        role="log"
        style={{ height: LOG_HEIGHT_PX }}
        tabIndex={0}
      >
        {entries.length === 0 && !loading && <li className="tp-muted">No commands sent yet.</li>}
        {entries.map((d) => {
          const line = dispatchLine(d);
          return (
            <li key={line.id} className="tp-dispatch">
              <div className="tp-dispatch-head">
                <span className="tp-dispatch-target">[{line.target}]</span>{' '}
                <code className="tp-dispatch-trigger">{line.trigger}</code>
                <span className="tp-dispatch-times tp-muted">
                  sent {dateText(line.sentAt)}
                  {line.answeredAt
                    ? ` · answered ${dateText(line.answeredAt)}`
                    : ` · ${waitingNote(agents, line)}`}
                </span>
              </div>
              {line.result && <pre className="tp-dispatch-result">{line.result}</pre>}
              {line.error && <pre className="tp-dispatch-error">{line.error}</pre>}
            </li>
          );
        })}
      </ol>
      {error && (
        <p className="tp-browser-error" role="alert">
          {error}
        </p>
      )}
      <form
        className="tp-dispatcher-form"
        onSubmit={(e) => {
          e.preventDefault();
          ref.send({ type: 'dispatcher.sendRequested' });
        }}
      >
        <input
          type="text"
          className="p-inputtext p-component"
          aria-label="Command"
          aria-describedby={hintId}
          placeholder={DISPATCH_PLACEHOLDER}
          value={draft}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => ref.send({ type: 'dispatcher.draftChanged', text: e.target.value })}
        />
        <button
          type="button"
          className="p-button p-component p-button-text p-button-sm"
          disabled={!canRefresh}
          onClick={() => ref.send({ type: 'dispatcher.refreshRequested' })}
        >
          Refresh
        </button>
      </form>
      <small id={hintId} className="tp-muted">
        {DISPATCH_HINT}
      </small>
    </div>
  );
}

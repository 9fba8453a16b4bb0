import { useSelector } from '@xstate/react';
import type { ConsoleClipboardActorRef } from '../../machines/consoleClipboardMachine';
import {
  selectCanCopy,
  selectClipboardSentence,
  selectWatchingClipboardSentence,
  selectCopyError,
  selectCopyNotice,
  selectIsCopying,
  selectUnwrittenText,
} from '../../machines/consoleClipboardMachine.selectors';
import { Icon, piClipboard, piTimes } from '../common/icons';

/** Copy: what was last copied inside the machine goes onto the browser's clipboard. */
function CopyButton({
  clipboard,
  enabled,
}: {
  clipboard: ConsoleClipboardActorRef;
  enabled: boolean;
}) {
  const canCopy = useSelector(clipboard, selectCanCopy);
  const copying = useSelector(clipboard, selectIsCopying);
  return (
    <button
      type="button"
      className="p-button p-component p-button-sm p-button-secondary p-button-outlined"
      title="Copy what was copied in the machine (topoplay-copy) to your clipboard"
      disabled={!enabled || !canCopy}
      aria-busy={copying}
      onClick={() => clipboard.send({ type: 'console.copyRequested' })}
    >
      <Icon shape={piClipboard} />
      <span className="tp-console-button-label">Copy</span>
    </button>
  );
}

/**
 * Under the toolbar (whose one row has no room left on a laptop's screen): which directions work
 * for this machine, Copy, and what the last copy did.
 */
export function ClipboardStrip({
  clipboard,
  live,
  viewOnly,
}: {
  clipboard: ConsoleClipboardActorRef;
  live: boolean;
  /** The console only watches: nothing is pasted from it. */
  viewOnly: boolean;
}) {
  const sentence = useSelector(
    clipboard,
    viewOnly ? selectWatchingClipboardSentence : selectClipboardSentence,
  );
  const notice = useSelector(clipboard, selectCopyNotice);
  const error = useSelector(clipboard, selectCopyError);
  const unwritten = useSelector(clipboard, selectUnwrittenText);
  if (sentence === null && !notice && !error) return null;
  return (
    <div className="tp-console-clipboard" role="group" aria-label="Clipboard">
      <CopyButton clipboard={clipboard} enabled={live} />
      {sentence ? <span className="tp-console-clipboard-sentence">{sentence}</span> : null}
      {notice || error ? (
        <span
          className={error ? 'tp-console-net-error' : 'tp-console-clipboard-notice'}
          role={error ? 'alert' : 'status'}
        >
          {error ?? notice}
          <button
            type="button"
            className="p-button p-component p-button-text p-button-sm"
            aria-label="Dismiss"
            onClick={() => clipboard.send({ type: 'console.copyNoticeDismissed' })}
          >
            <Icon shape={piTimes} />
          </button>
        </span>
      ) : null}
      {unwritten !== null ? (
        <textarea
          className="p-inputtext p-component tp-console-clipboard-text"
          aria-label="Text copied in the machine"
          readOnly
          value={unwritten}
          onFocus={(e) => e.currentTarget.select()}
        />
      ) : null}
    </div>
  );
}

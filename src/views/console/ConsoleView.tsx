import { useSelector } from '@xstate/react';
import { useCallback, useId, type FormEvent } from 'react';
import {
  KEYBOARD_LAYOUT_LABELS,
  KEYBOARD_LAYOUTS,
  isKeyboardLayout,
} from '../../domain/keyboardLayouts';
import type { ConsoleActorRef } from '../../machines/consoleMachine';
import {
  selectCanPasteClipboard,
  selectCanReconnect,
  selectCanTakeControl,
  selectIsViewOnly,
  selectOthersOnConsole,
  selectClipboardActor,
  selectCanRetry,
  selectConsoleError,
  selectConsoleName,
  selectConsoleStatus,
  selectConsoleStatusLabel,
  selectIsBusy,
  selectIsFullbleed,
  selectIsLive,
  selectIsRecorded,
  selectIsScreenShown,
  selectKeyboardLayout,
  selectNetworkActor,
  selectPasteError,
  selectReconnectInSeconds,
} from '../../machines/consoleMachine.selectors';
import type { ConsoleNetworkActorRef } from '../../machines/consoleNetworkMachine';
import {
  selectHasNetworks,
  selectIsChangingNet,
  selectNets,
  selectNetworkError,
  selectNicNets,
  netLabel,
} from '../../machines/consoleNetworkMachine.selectors';
import { ClipboardStrip } from './ClipboardControls';
import { selectFilesActor } from '../../machines/guestFilesMachine.selectors';
import { ConsoleFileList, fileDropHandlers, UploadFileButton } from './ConsoleFiles';
import { Spinner } from '../common/Spinner';
import { useTitle } from '../common/useTitle';
import {
  Icon,
  type IconShape,
  piClipboard,
  piPowerOff,
  piRefresh,
  piTimes,
  piWindowMaximize,
} from '../common/icons';
import './console.css';

/**
 * One select per NIC of the machine, on the network it is on; choosing a network moves the NIC
 * (PUT vm/{id}/change). A network the NIC is on but may not be moved to still shows, unchosen.
 */
function NetworkSwitcher({ network }: { network: ConsoleNetworkActorRef }) {
  const hasNetworks = useSelector(network, selectHasNetworks);
  const nets = useSelector(network, selectNets);
  const nicNets = useSelector(network, selectNicNets);
  const changing = useSelector(network, selectIsChangingNet);
  const error = useSelector(network, selectNetworkError);
  if (!hasNetworks) return null;
  return (
    <div className="tp-console-nets">
      {nicNets.map((current, nic) => (
        <label key={nic} className="tp-console-nic">
          <span aria-hidden="true">NIC {nic + 1}</span>
          <select
            aria-label={`NIC ${nic + 1}`}
            value={current}
            disabled={changing}
            onChange={(e) =>
              network.send({ type: 'console.netChangeRequested', nic, net: e.target.value })
            }
          >
            <option value="" disabled>
              network…
            </option>
            {current !== '' && !nets.includes(current) && (
              <option value={current} disabled>
                {netLabel(current, nets)}
              </option>
            )}
            {nets.map((net) => (
              <option key={net} value={net}>
                {netLabel(net, nets)}
              </option>
            ))}
          </select>
        </label>
      ))}
      {error ? (
        <span className="tp-console-net-error" role="alert" title={error}>
          {error}
          <button
            type="button"
            className="p-button p-component p-button-text p-button-sm"
            aria-label="Dismiss"
            onClick={() => network.send({ type: 'console.networkErrorDismissed' })}
          >
            <Icon shape={piTimes} />
          </button>
        </span>
      ) : null}
    </div>
  );
}

function ToolButton({
  label,
  icon,
  enabled,
  onClick,
}: {
  label: string;
  icon: IconShape;
  enabled: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      className="p-button p-component p-button-sm p-button-secondary p-button-outlined"
      title={label}
      disabled={!enabled}
      onClick={onClick}
    >
      <Icon shape={icon} />
      <span className="tp-console-button-label">{label}</span>
    </button>
  );
}

/** The layout of the machine's keyboard, which typed and pasted characters are typed on. */
function KeyboardLayoutSelect({ session }: { session: ConsoleActorRef }) {
  const layout = useSelector(session, selectKeyboardLayout);
  return (
    <label className="tp-console-layout">
      <span aria-hidden="true">Keyboard</span>
      <select
        aria-label="Keyboard layout of the machine"
        value={layout}
        onChange={(e) => {
          const chosen = e.target.value;
          if (isKeyboardLayout(chosen)) {
            session.send({ type: 'console.keyboardLayoutChosen', layout: chosen });
          }
        }}
      >
        {KEYBOARD_LAYOUTS.map((l) => (
          <option key={l} value={l}>
            {KEYBOARD_LAYOUT_LABELS[l]}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * Types the text in the box into the machine, on its keyboard layout; with the box empty, what
 * the browser's clipboard holds (the click lets the page read it).
 */
function PasteForm({ session, enabled }: { session: ConsoleActorRef; enabled: boolean }) {
  const canPasteClipboard = useSelector(session, selectCanPasteClipboard);
  const error = useSelector(session, selectPasteError);
  const errorId = useId();
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const text = new FormData(form).get('paste');
    if (typeof text === 'string' && text !== '') {
      session.send({ type: 'console.pasteRequested', text });
      form.reset();
    } else {
      session.send({ type: 'console.clipboardPasteRequested' });
    }
  };
  return (
    <form className="tp-console-paste" onSubmit={submit}>
      <input
        name="paste"
        type="text"
        className="p-inputtext p-component p-inputtext-sm"
        aria-label="Text to paste"
        aria-describedby={error ? errorId : undefined}
        placeholder="text, or the clipboard"
        disabled={!enabled}
      />
      <button
        type="submit"
        className="p-button p-component p-button-sm p-button-secondary p-button-outlined"
        title="Paste the text, or the clipboard when there is none"
        disabled={!enabled || !canPasteClipboard}
      >
        <Icon shape={piClipboard} />
        <span className="tp-console-button-label">Paste</span>
      </button>
      {error ? (
        <span id={errorId} className="tp-console-net-error" role="alert" title={error}>
          {error}
          <button
            type="button"
            className="p-button p-component p-button-text p-button-sm"
            aria-label="Dismiss"
            onClick={() => session.send({ type: 'console.pasteErrorDismissed' })}
          >
            <Icon shape={piTimes} />
          </button>
        </span>
      ) : null}
    </form>
  );
}

/** What covers the screen when there is no live console: progress, or why and what to do. */
function Notice({ session }: { session: ConsoleActorRef }) {
  const status = useSelector(session, selectConsoleStatus);
  const busy = useSelector(session, selectIsBusy);
  const error = useSelector(session, selectConsoleError);
  const canRetry = useSelector(session, selectCanRetry);
  const canReconnect = useSelector(session, selectCanReconnect);
  const label = useSelector(session, selectConsoleStatusLabel);
  const reconnectIn = useSelector(session, selectReconnectInSeconds);
  if (status === 'connected') return null;
  if (busy) {
    return (
      <div className="tp-console-notice">
        <Spinner label={label} />
        <p>{label.charAt(0).toUpperCase() + label.slice(1)}…</p>
      </div>
    );
  }
  if (status === 'reconnecting') {
    // The countdown is outside the live region, which would otherwise read it out every second.
    return (
      <div className="tp-console-notice">
        <p role="status">The console was disconnected.</p>
        <p>Reconnecting in {reconnectIn} s…</p>
        {canReconnect ? (
          <button
            type="button"
            className="p-button p-component"
            onClick={() => session.send({ type: 'console.reconnectRequested' })}
          >
            Reconnect
          </button>
        ) : null}
      </div>
    );
  }
  const message =
    status === 'stopped' ? 'The machine is not running.' : (error ?? 'The console failed.');
  return (
    <div className="tp-console-notice" role={status === 'failed' ? 'alert' : 'status'}>
      <p>{message}</p>
      {canRetry ? (
        <button
          type="button"
          className="p-button p-component"
          onClick={() => session.send({ type: 'console.retryRequested' })}
        >
          Retry
        </button>
      ) : null}
    </div>
  );
}

/** The console page (spec §2, wire reference §7): toolbar, noVNC's screen, and its notices. */
export default function ConsoleView({ session }: { session: ConsoleActorRef }) {
  const name = useSelector(session, selectConsoleName);
  const fullbleed = useSelector(session, selectIsFullbleed);
  const status = useSelector(session, selectConsoleStatus);
  const label = useSelector(session, selectConsoleStatusLabel);
  const live = useSelector(session, selectIsLive);
  const screenShown = useSelector(session, selectIsScreenShown);
  const canReconnect = useSelector(session, selectCanReconnect);
  const network = useSelector(session, selectNetworkActor);
  const clipboard = useSelector(session, selectClipboardActor);
  const files = useSelector(session, selectFilesActor);
  const recorded = useSelector(session, selectIsRecorded);
  const viewOnly = useSelector(session, selectIsViewOnly);
  const canTakeControl = useSelector(session, selectCanTakeControl);
  const others = useSelector(session, selectOthersOnConsole);
  useTitle(name);
  // noVNC draws into this element; the machine is told once it exists.
  const attachScreen = useCallback(
    (screen: HTMLDivElement | null) => {
      if (screen) session.send({ type: 'console.screenAttached', screen });
    },
    [session],
  );

  return (
    <div className={`tp-console${fullbleed ? ' tp-console-fullbleed' : ''}`}>
      <header className="tp-console-toolbar" aria-label="Console toolbar">
        <h1 className="tp-console-name">{name}</h1>
        <span className={`tp-console-state tp-console-state-${status}`} role="status">
          {label}
        </span>
        <ToolButton
          label="Reconnect"
          icon={piRefresh}
          enabled={canReconnect}
          onClick={() => session.send({ type: 'console.reconnectRequested' })}
        />
        {viewOnly ? null : (
          <>
            <ToolButton
              label="Ctrl-Alt-Del"
              icon={piPowerOff}
              enabled={live}
              onClick={() => session.send({ type: 'console.ctrlAltDelRequested' })}
            />
            <PasteForm session={session} enabled={live} />
            {files ? <UploadFileButton files={files} /> : null}
          </>
        )}
        <ToolButton
          label="Full screen"
          icon={piWindowMaximize}
          enabled={live}
          onClick={() => session.send({ type: 'console.fullscreenRequested' })}
        />
        {network && !viewOnly ? <NetworkSwitcher network={network} /> : null}
      </header>
      <div className="tp-console-strip">
        {viewOnly ? (
          <span className="tp-console-view-only">
            View only
            {canTakeControl ? (
              <button
                type="button"
                className="p-button p-component p-button-sm p-button-warning"
                onClick={() => session.send({ type: 'console.takeControlRequested' })}
              >
                Take control
              </button>
            ) : null}
          </span>
        ) : null}
        {others.length > 0 ? (
          <span className="tp-console-others" role="status" aria-label="Others on this console">
            {others.map((other) => (
              <span
                key={other.id}
                className={`tp-console-watched${other.control ? ' tp-console-controlled' : ''}`}
              >
                {other.text}
              </span>
            ))}
          </span>
        ) : null}
        {recorded ? <span className="tp-console-recorded">This console is recorded</span> : null}
        {viewOnly ? null : <KeyboardLayoutSelect session={session} />}
        {clipboard ? (
          <ClipboardStrip clipboard={clipboard} live={live} viewOnly={viewOnly} />
        ) : null}
      </div>
      <main className="tp-console-main" {...(files && !viewOnly ? fileDropHandlers(files) : {})}>
        <div
          ref={attachScreen}
          className="tp-console-screen"
          data-live={live}
          data-shown={screenShown}
        />
        <Notice session={session} />
        {files ? <ConsoleFileList files={files} /> : null}
      </main>
    </div>
  );
}

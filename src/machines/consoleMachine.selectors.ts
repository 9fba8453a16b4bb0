import type { ConsoleViewer } from '../api/console';
import type { ConsoleSnapshot } from './consoleMachine';
import type { ConsoleClipboardActorRef } from './consoleClipboardMachine';
import type { ConsoleNetworkActorRef } from './consoleNetworkMachine';

export type ConsoleStatus =
  'signingIn' | 'loading' | 'connecting' | 'connected' | 'reconnecting' | 'stopped' | 'failed';

/** The page's state, as the toolbar names it. */
export const selectConsoleStatus = (snapshot: ConsoleSnapshot): ConsoleStatus => {
  if (snapshot.matches('signingIn')) return 'signingIn';
  if (snapshot.matches('signInFailed')) return 'failed';
  if (snapshot.matches({ open: 'attached' }))
    return snapshot.hasTag('live') ? 'connected' : 'connecting';
  if (snapshot.matches({ open: 'reconnecting' })) return 'reconnecting';
  if (snapshot.matches({ open: 'stopped' })) return 'stopped';
  if (snapshot.matches({ open: 'failed' })) return 'failed';
  // loading, waiting for the screen, or checking a lost connection.
  return 'loading';
};

const LABELS: Record<ConsoleStatus, string> = {
  signingIn: 'signing in',
  loading: 'loading',
  connecting: 'connecting',
  connected: 'connected',
  reconnecting: 'reconnecting',
  stopped: 'not running',
  failed: 'failed',
};

/** The toolbar's words for the page's state; a reconnection says which attempt it waits for. */
export const selectConsoleStatusLabel = (snapshot: ConsoleSnapshot): string => {
  const status = selectConsoleStatus(snapshot);
  return status === 'reconnecting'
    ? `reconnecting (attempt ${snapshot.context.reconnectAttempt})`
    : LABELS[status];
};

/** While reconnecting: the whole seconds left before the next attempt; 0 otherwise. */
export const selectReconnectInSeconds = (snapshot: ConsoleSnapshot): number =>
  snapshot.matches({ open: 'reconnecting' })
    ? Math.ceil(snapshot.context.reconnectInMs / 1_000)
    : 0;

export const selectConsoleName = (snapshot: ConsoleSnapshot): string => snapshot.context.name;
/** The last console answer said its sessions are recorded: the toolbar tells the player. */
export const selectIsRecorded = (snapshot: ConsoleSnapshot): boolean =>
  snapshot.context.console?.recorded === true;
export const selectIsFullbleed = (snapshot: ConsoleSnapshot): boolean => snapshot.context.fullbleed;
export const selectConsoleError = (snapshot: ConsoleSnapshot): string | null =>
  snapshot.context.error;
export const selectIsBusy = (snapshot: ConsoleSnapshot): boolean => snapshot.hasTag('busy');
export const selectIsLive = (snapshot: ConsoleSnapshot): boolean => snapshot.hasTag('live');
/**
 * Whether noVNC's screen is shown: only while a session is attached. Otherwise nothing of an
 * earlier session (a canvas noVNC has not removed yet) may show under the notice.
 */
export const selectIsScreenShown = (snapshot: ConsoleSnapshot): boolean =>
  snapshot.matches({ open: 'attached' });

export const selectCanReconnect = (snapshot: ConsoleSnapshot): boolean =>
  snapshot.can({ type: 'console.reconnectRequested' });
export const selectCanRetry = (snapshot: ConsoleSnapshot): boolean =>
  snapshot.can({ type: 'console.retryRequested' });

/** The network switcher: running once signed in, undefined before. */
export const selectNetworkActor = (snapshot: ConsoleSnapshot): ConsoleNetworkActorRef | undefined =>
  snapshot.children.network;

export const selectClipboardActor = (
  snapshot: ConsoleSnapshot,
): ConsoleClipboardActorRef | undefined => snapshot.children.clipboard;

/** The layout the machine's keyboard is set to, as the user chose it. */
export const selectKeyboardLayout = (snapshot: ConsoleSnapshot) => snapshot.context.keyboardLayout;

/** Whether the clipboard can be pasted now (connected, and not already reading it). */
export const selectCanPasteClipboard = (snapshot: ConsoleSnapshot): boolean =>
  snapshot.can({ type: 'console.clipboardPasteRequested' });

/** Why the clipboard was not pasted, until dismissed or pasted again. */
export const selectPasteError = (snapshot: ConsoleSnapshot): string | null =>
  snapshot.context.pasteError;

/** The console only watches the machine: its ticket is view-only. */
export const selectIsViewOnly = (snapshot: ConsoleSnapshot): boolean =>
  snapshot.context.console?.viewOnly === true;

/** An administrator watching may take control now. */
export const selectCanTakeControl = (snapshot: ConsoleSnapshot): boolean =>
  snapshot.can({ type: 'console.takeControlRequested' });

/** One line of who else is on the console; `control`: they drive the machine too. */
export interface OtherOnConsole {
  id: string;
  text: string;
  control: boolean;
}

// The lines of each list of viewers, so that a snapshot that did not change them gives the same.
const othersOf = new WeakMap<ConsoleViewer[], readonly OtherOnConsole[]>();
const NO_ONE: readonly OtherOnConsole[] = [];

/**
 * Who else is on the console, for its player: observers and administrators other than the user,
 * e.g. "Ada (observer) is watching this console", "Root (admin) has taken control".
 */
export const selectOthersOnConsole = (snapshot: ConsoleSnapshot): readonly OtherOnConsole[] => {
  const { viewers, userId } = snapshot.context;
  const known = othersOf.get(viewers);
  if (known) return known;
  const others = viewers
    .filter((v) => v.id !== userId && v.role !== 'player')
    .map((v) => ({
      id: v.id,
      control: v.control,
      text: v.control
        ? `${v.name} (${v.role}) has taken control`
        : `${v.name} (${v.role}) is watching this console`,
    }));
  const lines = others.length === 0 ? NO_ONE : others;
  othersOf.set(viewers, lines);
  return lines;
};

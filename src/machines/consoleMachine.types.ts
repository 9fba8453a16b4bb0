import type { ConsoleViewer, VmConsole } from '../api/console';
import type { ConsoleViewersEvent } from '../streams/consoleViewers';
import type { ClipboardDirections } from '../domain/clipboard';
import type { KeyboardLayout } from '../domain/keyboardLayouts';
import type { ConsoleClipboardReport } from './consoleClipboardMachine';

// The types of consoleMachine.ts (which exports them), kept apart so that the machine's file is its
// setup and chart.

/**
 * The view's screen element, which noVNC draws into. The machine only hands it to its effects (it
 * is not typed as a DOM element because machines are also compiled without the DOM library).
 */
export type ConsoleScreen = object;

/** What the view asks noVNC for, through the machine. */
export type RfbCommand =
  | { type: 'rfb.sendCtrlAltDel' }
  | { type: 'rfb.paste'; text: string }
  /** Put on the machine's clipboard (the VNC extended clipboard), for Ctrl+V there. */
  | { type: 'rfb.clipboardPaste'; text: string }
  /** Typed and pasted text is typed on this layout from now on. */
  | { type: 'rfb.keyboardLayoutChanged'; layout: KeyboardLayout };

export type ConsoleEvent =
  /** The view's screen element exists; noVNC draws into it. */
  | { type: 'console.screenAttached'; screen: ConsoleScreen }
  | { type: 'console.reconnectRequested' }
  | { type: 'console.retryRequested' }
  | { type: 'console.ctrlAltDelRequested' }
  | { type: 'console.pasteRequested'; text: string }
  /** Paste what the browser's clipboard holds (sent in the click, which lets the page read it). */
  | { type: 'console.clipboardPasteRequested' }
  | { type: 'console.pasteErrorDismissed' }
  | { type: 'console.keyboardLayoutChosen'; layout: KeyboardLayout }
  | { type: 'console.fullscreenRequested' }
  /** An administrator watching asks for a console that drives the machine. */
  | { type: 'console.takeControlRequested' }
  /** Who has the machine's console open changed (CONSOLE.VIEWERS on the hub). */
  | ConsoleViewersEvent
  // From the rfb actor (noVNC's events).
  | { type: 'rfb.connected' }
  | { type: 'rfb.disconnected'; clean: boolean }
  | { type: 'rfb.credentialsRequired' }
  | { type: 'rfb.securityFailed'; reason: string }
  /** The machine's clipboard has this text (noVNC's `clipboard` event). */
  | { type: 'rfb.clipboard'; text: string }
  | ConsoleClipboardReport;

export interface ConsoleInput {
  vmId: string;
  /** The machine name from the route (without its tag). */
  name: string;
  /** f=1: the page fills the window without the toolbar's margins. */
  fullbleed: boolean;
  /**
   * A number in [0, 1) drawn once for the page, which stretches its back-off, so that the pages
   * a server restart dropped together do not all come back at the same moment. Default 0.
   */
  jitter?: number;
  /** The keyboard layout of the machine, as the user chose it last (keyboardLayouts.ts). */
  keyboardLayout?: KeyboardLayout;
  /** The signed-in user: others on the console are named, not them. */
  userId?: string | null;
}

export interface RfbInput {
  url: string;
  /** noVNC's password credential, the console ticket. */
  ticket: string;
  screen: ConsoleScreen;
  keyboardLayout: KeyboardLayout;
  /** noVNC sends no input (the server drops it anyway). */
  viewOnly: boolean;
}

export interface ConsoleContext {
  vmId: string;
  name: string;
  fullbleed: boolean;
  screen: ConsoleScreen | null;
  /** The last console answer: the ticket and address in use. */
  console: VmConsole | null;
  /** Why the console failed, shown with Retry. */
  error: string | null;
  /** Times noVNC asked for credentials on this connection: a second ask means a bad ticket. */
  credentialAsks: number;
  /** Reconnections started since the last connection: sets the back-off. */
  reconnectAttempt: number;
  /** The page's stretch of the back-off (ConsoleInput.jitter). */
  jitter: number;
  /** While reconnecting: how long until the next attempt. */
  reconnectInMs: number;
  /**
   * Whether the console was refused its cookie (401) and signed in again since the last
   * connection: a second refusal means signing in does not help, and the page says so.
   */
  signedInAgain: boolean;
  /** The layout the machine's keyboard is set to: keys are typed as it places them. */
  keyboardLayout: KeyboardLayout;
  /** Why the clipboard could not be pasted (the browser refused to let the page read it). */
  pasteError: string | null;
  /**
   * What the machine's clipboard can do, as the clipboard child last learned it: a desktop that
   * shares its clipboard is pasted onto that clipboard instead of typed.
   */
  clipboardDirections: ClipboardDirections | null;
  /** The signed-in user (ConsoleInput.userId). */
  userId: string | null;
  /** Tickets are asked for with control (an administrator took it). */
  control: boolean;
  /** Who has the machine's console open, as the server last said. */
  viewers: ConsoleViewer[];
}

import type { VmConsole } from '../api/console';
import type { Vm } from '../api/vm';
import { sharesClipboard } from '../domain/clipboard';
import { isServerAway, isSignedOut } from '../domain/errors';
import type { ConsoleContext, ConsoleEvent } from './consoleMachine.types';

// The guards of consoleMachine.ts and the back-off they count with (the machine's file exports
// both), kept apart so that the machine's file is its setup and chart.

/** The back-off: the first reconnection waits this long, each further one twice as long... */
export const RECONNECT_FIRST_DELAY_MS = 500;
/** ...up to this: 0.5, 1, 2, 4, 8, 15, 15... s. */
export const RECONNECT_MAX_DELAY_MS = 15_000;
/** A page's back-off is stretched by up to this fraction (its `jitter`). */
export const RECONNECT_JITTER = 0.5;
/** The wait before reconnection `attempt` (1 after a connection was lost) of a page. */
export const reconnectDelayMs = (attempt: number, jitter = 0): number =>
  Math.round(
    Math.min(RECONNECT_FIRST_DELAY_MS * 2 ** (attempt - 1), RECONNECT_MAX_DELAY_MS) *
      (1 + RECONNECT_JITTER * jitter),
  );
/** The wait before a reconnection counts down in steps of this, so the page can show it. */
export const RECONNECT_TICK_MS = 1_000;

/** A console answer with an address to connect to; anything else is a machine that is off. */
export const canConnect = (c: VmConsole): boolean => c.isRunning && (c.url ?? '') !== '';

type Args = { context: ConsoleContext };

export const consoleGuards = {
  hasScreen: ({ context }: Args) => context.screen !== null,
  canConnect: (_: unknown, { console }: { console: VmConsole }) => canConnect(console),
  isRunning: (_: unknown, { vm }: { vm: Vm | null }) => vm?.state === 'running',
  wasAskedBefore: ({ context }: Args) => context.credentialAsks > 0,
  /** This step of the countdown ends the wait. */
  isReconnectDue: ({ context }: Args) => context.reconnectInMs <= RECONNECT_TICK_MS,
  /** Refused the cookie, and not already signed in again for it. */
  canSignInAgain: ({ context }: Args, { error }: { error: unknown }) =>
    isSignedOut(error) && !context.signedInAgain,
  isServerAway: (_: unknown, { error }: { error: unknown }) => isServerAway(error),
  /** An empty paste would only move the focus. */
  hasText: (_: unknown, { text }: { text: string }) => text !== '',
  isPasteWithText: ({ event }: { event: ConsoleEvent }) =>
    event.type === 'console.pasteRequested' && event.text !== '',
  /** The machine's desktop shares its clipboard: pastes go onto it, not typed. */
  sharesClipboard: ({ context }: Args) => sharesClipboard(context.clipboardDirections),
  /** The console drives the machine: its ticket is not view-only. */
  hasControl: ({ context }: Args) => context.console?.viewOnly !== true,
  /** A view-only console its viewer may reopen with control (an administrator watching). */
  mayTakeControl: ({ context }: Args) =>
    context.console?.viewOnly === true && context.console.mayTakeControl === true,
};

import {
  and,
  assign,
  enqueueActions,
  fromPromise,
  setup,
  spawnChild,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { ClipboardDirections } from '../domain/clipboard';
import { copiedNotice, sharesClipboard } from '../domain/clipboard';
import { errorMessage } from '../domain/text';

// The console page's clipboard, beside the noVNC session: what the machine's clipboard can do
// (asked again each time the console connects: a machine that was booting may have its agent
// now), copying out of the machine onto the browser's clipboard, and the record of each paste.
// Pasting itself is done by the console's rfb actor: typed, or, on a machine whose desktop shares
// its clipboard (`via: 'vdagent'`), handed to the machine's clipboard, which is why the console
// is told what the clipboard can do. On such a machine what its desktop copies arrives from noVNC
// and goes onto the browser's clipboard as it comes, without Copy.

export type ConsoleClipboardEvent =
  /** The console connected: what the machine can do is asked (again). */
  | { type: 'console.connected' }
  /** The page typed a paste into the machine: recorded on the server. */
  | { type: 'console.pasted' }
  | { type: 'console.copyRequested' }
  | { type: 'console.copyNoticeDismissed' }
  /** The machine's desktop copied this text (noVNC's `clipboard` event). */
  | { type: 'console.guestCopied'; text: string };

/** What the clipboard tells the console each time it learns what the machine's can do. */
export interface ConsoleClipboardReport {
  type: 'clipboard.directionsKnown';
  directions: ClipboardDirections | null;
}

export interface ConsoleClipboardInput {
  vmId: string;
  /** The console, told what the machine's clipboard can do. */
  parentRef?: ActorRef<Snapshot<unknown>, ConsoleClipboardReport>;
}

export interface ConsoleClipboardContext {
  vmId: string;
  parentRef: ConsoleClipboardInput['parentRef'];
  /** What the machine's clipboard can do; null until known, or when it could not be asked. */
  directions: ClipboardDirections | null;
  /** What the last copy did, for the page to say. */
  notice: string | null;
  /** Why the last copy failed. */
  error: string | null;
  /**
   * Text copied out that the browser would not let the page put on its clipboard: the page shows
   * it for the user to copy by hand.
   */
  unwritten: string | null;
  /** The text being put on the browser's clipboard. */
  copied: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`consoleClipboardMachine: '${name}' is provided by the app (src/app)`);

export const consoleClipboardMachine = setup({
  types: {
    input: {} as ConsoleClipboardInput,
    context: {} as ConsoleClipboardContext,
    events: {} as ConsoleClipboardEvent,
  },
  actors: {
    /** GET vm/{id}/clipboard. */
    loadClipboard: fromPromise<ClipboardDirections, { vmId: string }>(() => {
      throw notProvided('loadClipboard');
    }),
    /** POST vm/{id}/clipboard/copy: the text last copied inside the machine. */
    copyOut: fromPromise<string, { vmId: string }>(() => {
      throw notProvided('copyOut');
    }),
    /** navigator.clipboard.writeText. */
    writeClipboard: fromPromise<void, { text: string }>(() => {
      throw notProvided('writeClipboard');
    }),
    /** POST vm/{id}/clipboard/paste; a failure is nobody's concern on the page. */
    recordPaste: fromPromise<void, { vmId: string }>(() => {
      throw notProvided('recordPaste');
    }),
  },
  actions: {
    reportDirections: enqueueActions(({ context, enqueue }) => {
      if (!context.parentRef) return;
      enqueue.sendTo(context.parentRef, {
        type: 'clipboard.directionsKnown',
        directions: context.directions,
      });
    }),
    clearNotice: assign({ notice: null, error: null, unwritten: null }),
  },
  guards: {
    /** Copy reads what topoplay-copy was given; a desktop that shares its clipboard needs none. */
    canCopy: ({ context }) =>
      context.directions?.copy === true && !sharesClipboard(context.directions),
    sharesClipboard: ({ context }) => sharesClipboard(context.directions),
    /** An empty copy would only replace the browser's clipboard with nothing. */
    hasCopiedText: ({ event }) => event.type === 'console.guestCopied' && event.text !== '',
  },
}).createMachine({
  id: 'consoleClipboard',
  description:
    "The console's clipboard: asks what the machine's clipboard can do whenever the console connects and tells the console, copies what was copied inside the machine onto the browser's clipboard (on Copy, or as a desktop that shares its clipboard copies it; shown when the browser refuses), and records each paste.",
  context: ({ input }) => ({
    vmId: input.vmId,
    parentRef: input.parentRef,
    directions: null,
    notice: null,
    error: null,
    unwritten: null,
    copied: null,
  }),
  on: {
    'console.connected': '.loading',
    'console.pasted': {
      actions: spawnChild('recordPaste', { input: ({ context }) => ({ vmId: context.vmId }) }),
    },
    // A paste whose record failed was typed all the same: nothing on the page changes.
    'xstate.error.actor.*': {},
    'console.copyNoticeDismissed': {
      actions: assign({ notice: null, error: null, unwritten: null }),
    },
  },
  initial: 'idle',
  states: {
    /** Before the console first connects. */
    idle: {},
    loading: {
      invoke: {
        id: 'loadClipboard',
        src: 'loadClipboard',
        input: ({ context }) => ({ vmId: context.vmId }),
        onDone: {
          target: 'ready',
          actions: [assign({ directions: ({ event }) => event.output }), 'reportDirections'],
        },
        onError: { target: 'ready', actions: [assign({ directions: null }), 'reportDirections'] },
      },
    },
    ready: {
      on: {
        'console.copyRequested': { guard: 'canCopy', target: 'copying', actions: 'clearNotice' },
        'console.guestCopied': {
          guard: and(['sharesClipboard', 'hasCopiedText']),
          target: 'writing',
          actions: ['clearNotice', assign({ copied: ({ event }) => event.text })],
        },
      },
    },
    copying: {
      invoke: {
        id: 'copyOut',
        src: 'copyOut',
        input: ({ context }) => ({ vmId: context.vmId }),
        onDone: { target: 'writing', actions: assign({ copied: ({ event }) => event.output }) },
        onError: {
          target: 'ready',
          actions: assign({
            error: ({ event }) => `Nothing could be copied: ${errorMessage(event.error)}`,
          }),
        },
      },
    },
    /** The browser may ask the user first whether the page may write the clipboard. */
    writing: {
      on: {
        // The desktop copied again before the last was written: the newer text is written.
        'console.guestCopied': {
          guard: and(['sharesClipboard', 'hasCopiedText']),
          target: 'writing',
          reenter: true,
          actions: assign({ copied: ({ event }) => event.text }),
        },
      },
      invoke: {
        id: 'writeClipboard',
        src: 'writeClipboard',
        input: ({ context }) => ({ text: context.copied ?? '' }),
        onDone: {
          target: 'ready',
          actions: assign({
            notice: ({ context }) => copiedNotice(context.copied ?? ''),
            copied: null,
          }),
        },
        onError: {
          target: 'ready',
          actions: assign({
            error: ({ event }) =>
              `The browser did not let the page write your clipboard (${errorMessage(event.error)}): select the text and copy it yourself.`,
            unwritten: ({ context }) => context.copied,
            copied: null,
          }),
        },
      },
    },
  },
});

export type ConsoleClipboardActorRef = ActorRefFrom<typeof consoleClipboardMachine>;
export type ConsoleClipboardSnapshot = SnapshotFrom<typeof consoleClipboardMachine>;

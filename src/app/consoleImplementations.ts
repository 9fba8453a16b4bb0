import type RFB from '@novnc/novnc';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import type { HubConnectionActorRef } from '../machines/hubConnectionMachine';
import type { HubEventSource } from '../streams/hub';
import { machineViewers$ } from '../streams/consoleViewers';
import { fromTaskEither } from '../api/actor';
import {
  changeVmNet,
  getVmConsole,
  getVmNets,
  pingConsole,
  signInConsole,
  type NetChange,
} from '../api/console';
import type { HttpClient } from '../api/http';
import { copyFromVm, getVmClipboard, recordVmPaste } from '../api/clipboard';
import { consoleClipboardMachine } from '../machines/consoleClipboardMachine';
import type { GuestFilePutter } from '../api/guestFiles';
import { guestFilesLogic } from './guestFileImplementations';
import { rememberKeyboardLayout, type LocalSettingsStore } from './localSettings';
import { loadVm } from '../api/vm';
import { nicNetworks } from '../domain/vmNics';
import { consoleHeartbeatMachine } from '../machines/consoleHeartbeatMachine';
import type {
  ConsoleEvent,
  ConsoleScreen,
  consoleMachine,
  RfbCommand,
  RfbInput,
} from '../machines/consoleMachine';
import { consoleNetworkMachine } from '../machines/consoleNetworkMachine';
import type { KeyboardLayout } from '../domain/keyboardLayouts';
import {
  KEY_BATCH_INTERVAL_MS,
  keyBatches,
  keystrokesOf,
  retypedKeystrokes,
  type HeldKey,
  type Keystroke,
} from '../domain/keystrokes';

type Implementations = Parameters<(typeof consoleMachine)['provide']>[0];

/** The console view attaches its screen <div> (ConsoleView's `attachScreen`). */
const asElement = (screen: ConsoleScreen): HTMLElement => screen as HTMLElement;

const isModifier = (code: string): boolean =>
  /^(Shift|Control|Alt|Meta|OS)(Left|Right)$/.test(code);

/**
 * Keys the user types reach the machine as the characters they meant on its layout (keystrokes.ts
 * `retypedKeystrokes`): noVNC's keys pass through `sendKey`, which this wraps, keeping which
 * modifiers are held. A key it retyped on its way down is done: its release is not sent.
 */
function typeOnLayout(
  rfb: RFB,
  layout: () => KeyboardLayout,
): { type(strokes: Keystroke[]): void; stop(): void } {
  const send = rfb.sendKey.bind(rfb);
  const held = new Map<string, HeldKey>();
  const retyped = new Set<string>();
  rfb.sendKey = (keysym, code, down) => {
    if (down === undefined || code === null) return send(keysym, code, down);
    if (isModifier(code)) {
      if (down) held.set(code, { keysym, code });
      else held.delete(code);
    } else if (down) {
      const strokes = retypedKeystrokes(layout(), keysym, code, [...held.values()]);
      if (strokes) {
        retyped.add(code);
        for (const stroke of strokes) send(stroke.keysym, stroke.code, stroke.down);
        return;
      }
    } else if (retyped.delete(code)) return;
    send(keysym, code, down);
  };
  // Pasted keys go in batches (keystrokes.ts `keyBatches`), one paste after the other.
  let queue: Keystroke[][] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  const next = () => {
    timer = null;
    const batch = queue.shift();
    if (!batch) return;
    for (const stroke of batch) send(stroke.keysym, stroke.code, stroke.down);
    timer = setTimeout(next, KEY_BATCH_INTERVAL_MS);
  };
  return {
    type(strokes) {
      queue.push(...keyBatches(strokes));
      if (timer === null) next();
    },
    stop() {
      queue = [];
      if (timer !== null) clearTimeout(timer);
    },
  };
}

/**
 * noVNC's RFB as an actor. noVNC is imported here, on first use, so only the console page loads
 * it. Its listeners are detached before `disconnect()` on stop, so the disconnect of an abandoned
 * connection never reaches the machine as the end of the next one.
 */
const rfbActor = fromCallback<RfbCommand | { type: 'rfb.credentials' }, RfbInput>(
  ({ input, sendBack, receive }) => {
    let rfb: RFB | null = null;
    let keys: ReturnType<typeof typeOnLayout> | null = null;
    let layout = input.keyboardLayout;
    let stopped = false;
    const report = (event: ConsoleEvent) => {
      if (!stopped) sendBack(event);
    };

    import('@novnc/novnc').then(
      ({ default: Rfb }) => {
        if (stopped) return;
        rfb = new Rfb(asElement(input.screen), input.url, {
          credentials: { password: input.ticket },
          wsProtocols: ['binary'],
        });
        rfb.scaleViewport = true;
        // Watching only: noVNC sends no keys or pointer (the server drops them anyway).
        rfb.viewOnly = input.viewOnly;
        rfb.background = '#000000';
        keys = typeOnLayout(rfb, () => layout);
        rfb.addEventListener('connect', () => report({ type: 'rfb.connected' }));
        rfb.addEventListener('disconnect', (e) =>
          report({ type: 'rfb.disconnected', clean: e.detail.clean }),
        );
        rfb.addEventListener('credentialsrequired', () =>
          report({ type: 'rfb.credentialsRequired' }),
        );
        rfb.addEventListener('securityfailure', (e) =>
          report({ type: 'rfb.securityFailed', reason: e.detail.reason ?? '' }),
        );
        // What the machine's desktop copied (QEMU's vdagent, over the VNC extended clipboard).
        rfb.addEventListener('clipboard', (e) =>
          report({ type: 'rfb.clipboard', text: e.detail.text }),
        );
      },
      () =>
        report({ type: 'rfb.securityFailed', reason: 'The console client could not be loaded.' }),
    );

    receive((command) => {
      if (command.type === 'rfb.keyboardLayoutChanged') layout = command.layout;
      if (!rfb) return;
      switch (command.type) {
        case 'rfb.credentials':
          rfb.sendCredentials({ password: input.ticket });
          break;
        case 'rfb.sendCtrlAltDel':
          rfb.sendCtrlAltDel();
          break;
        case 'rfb.paste':
          // Typed, not put on the clipboard: a real machine's VNC server ignores clipboard text.
          keys?.type(keystrokesOf(command.text, layout));
          rfb.focus();
          break;
        case 'rfb.clipboardPaste':
          // A desktop that shares its clipboard takes it: the user pastes there with Ctrl+V.
          rfb.clipboardPasteFrom(command.text);
          rfb.focus();
          break;
      }
    });

    return () => {
      stopped = true;
      keys?.stop();
      rfb?.disconnect();
    };
  },
);

/** The app's hub, for who else is on the console; a page signed in by a launch link has none. */
export interface ConsoleHub {
  hub: HubConnectionActorRef;
  hubEvents: HubEventSource;
}

/**
 * Listens on the machine's gamespace channel while the console is attached, and reports who has
 * the console open as the server tells it (CONSOLE.VIEWERS).
 */
const viewersLogic = (deps: ConsoleHub | null) =>
  fromCallback<EventObject, { vmId: string; channelId: string }>(({ input, sendBack }) => {
    if (!deps || input.channelId === '') return undefined;
    const { hub, hubEvents } = deps;
    hub.send({ type: 'hub.listenRequested', channelId: input.channelId });
    const told = machineViewers$(hubEvents, input.vmId).subscribe((event) => sendBack(event));
    return () => {
      told.unsubscribe();
      hub.send({ type: 'hub.leaveRequested', channelId: input.channelId });
    };
  });

/** What the console page reaches in the browser besides the server. */
export interface ConsoleBrowser {
  clipboard: Pick<Clipboard, 'readText' | 'writeText'>;
  rememberKeyboardLayout: (layout: KeyboardLayout) => void;
}

/** The browser's clipboard, and the user's layout kept in the local settings. */
export const consoleBrowser = (
  local: LocalSettingsStore,
  userId: string | null,
): ConsoleBrowser => ({
  clipboard: navigator.clipboard,
  rememberKeyboardLayout: (layout) => rememberKeyboardLayout(local, userId, layout),
});

/** The console page's effects over the SPA's HTTP client (the bearer token of the signed-in user). */
export function consoleImplementations(
  http: HttpClient,
  browser: ConsoleBrowser,
  putFile: GuestFilePutter,
  hub: ConsoleHub | null = null,
): Implementations {
  return {
    actors: {
      files: guestFilesLogic(http, putFile),
      signIn: fromTaskEither((_: void, signal) => pipe(signInConsole(http)(signal), TE.asUnit)),
      loadConsole: fromTaskEither(({ vmId, control }: { vmId: string; control: boolean }, signal) =>
        getVmConsole(http)(vmId, signal, control),
      ),
      viewers: viewersLogic(hub),
      loadVm: fromTaskEither(({ vmId }: { vmId: string }, signal) => loadVm(http)(vmId, signal)),
      rfb: rfbActor,
      readClipboard: fromPromise(() => browser.clipboard.readText()),
      network: consoleNetworkMachine.provide({
        actors: {
          loadNets: fromTaskEither(({ vmId }: { vmId: string }, signal) =>
            pipe(
              TE.Do,
              TE.bind('options', () => getVmNets(http)(vmId, signal)),
              TE.bind('nics', ({ options }) =>
                options.nics
                  ? TE.right(nicNetworks(options))
                  : // An older answer without NICs: the machine's own, when this sign-in may read
                    // it (the launch cookie may not: then NIC 1..3 without their networks).
                    pipe(
                      loadVm(http)(vmId, signal),
                      TE.map(nicNetworks),
                      TE.orElseW(() => TE.right(null)),
                    ),
              ),
              // A hypervisor that cannot move a NIC of a running machine gets no choices to
              // offer, so the switcher offers no move.
              TE.map(({ options, nics }) => ({
                nets: options.capabilities?.netChange === false ? [] : (options.net ?? []),
                nics,
              })),
            ),
          ),
          changeNet: fromTaskEither((change: NetChange, signal) =>
            pipe(changeVmNet(http)(change, signal), TE.map(nicNetworks)),
          ),
        },
      }),
      clipboard: consoleClipboardMachine.provide({
        actors: {
          loadClipboard: fromTaskEither(({ vmId }: { vmId: string }, signal) =>
            getVmClipboard(http)(vmId, signal),
          ),
          copyOut: fromTaskEither(({ vmId }: { vmId: string }, signal) =>
            copyFromVm(http)(vmId, signal),
          ),
          writeClipboard: fromPromise(({ input }: { input: { text: string } }) =>
            browser.clipboard.writeText(input.text),
          ),
          recordPaste: fromTaskEither(({ vmId }: { vmId: string }, signal) =>
            pipe(recordVmPaste(http)(vmId, signal), TE.asUnit),
          ),
        },
      }),
      heartbeat: consoleHeartbeatMachine.provide({
        actors: {
          ping: fromTaskEither((_: void, signal) => pipe(pingConsole(http)(signal), TE.asUnit)),
        },
      }),
    },
    actions: {
      rememberKeyboardLayout: (_, { layout }) => browser.rememberKeyboardLayout(layout),
      requestFullscreen: (_, { screen }) => {
        // Refused outside a user gesture or by policy; the page simply stays as it is.
        asElement(screen)
          .requestFullscreen()
          .catch(() => undefined);
      },
    },
  };
}

import { fromCallback, fromPromise, type EventObject } from 'xstate';
import type { VmConsole } from '../api/console';
import type { Vm } from '../api/vm';
import { consoleClipboardMachine } from './consoleClipboardMachine';
import { consoleHeartbeatMachine } from './consoleHeartbeatMachine';
import { consoleNetworkMachine } from './consoleNetworkMachine';
import type { RfbCommand, RfbInput } from './consoleMachine.types';
import { guestFilesMachine } from './guestFilesMachine';

// The actors of consoleMachine.ts, kept apart so that the machine's file is its setup and chart.
// The effects are placeholders that throw; src/app provides the real ones.

/** What a placeholder throws when the app did not provide the effect. */
export const notProvided = (name: string): Error =>
  new Error(`consoleMachine: '${name}' is provided by the app (src/app)`);

export const consoleActors = {
  /** POST user/login: the console cookie. */
  signIn: fromPromise<void, void>(() => {
    throw notProvided('signIn');
  }),
  /** GET vm-console/{id}: a new ticket each time. */
  loadConsole: fromPromise<VmConsole, { vmId: string; control: boolean }>(() => {
    throw notProvided('loadConsole');
  }),
  /**
   * Listens on the machine's gamespace channel while the console is attached and reports who
   * has the console open (`console.viewersChanged`).
   */
  viewers: fromCallback<EventObject, { vmId: string; channelId: string }>(() => {
    throw notProvided('viewers');
  }),
  /** GET vm/{id}: whether a lost connection means the machine stopped. */
  loadVm: fromPromise<Vm | null, { vmId: string }>(() => {
    throw notProvided('loadVm');
  }),
  /** noVNC's RFB: reports `rfb.*` events, takes `RfbCommand`s, disconnects when stopped. */
  rfb: fromCallback<RfbCommand | { type: 'rfb.credentials' }, RfbInput>(() => {
    throw notProvided('rfb');
  }),
  /** The network switcher; provide its loadNets and changeNet. */
  network: consoleNetworkMachine,
  /** Files into the machine; provide its loadAccess and sendFile. */
  files: guestFilesMachine,
  /** The cookie's heartbeat; provide its ping. */
  heartbeat: consoleHeartbeatMachine,
  /** Copy out of the machine and the record of pastes; provide its effects. */
  clipboard: consoleClipboardMachine,
  /** navigator.clipboard.readText(): the text on the browser's clipboard. */
  readClipboard: fromPromise<string, void>(() => {
    throw notProvided('readClipboard');
  }),
};

import { describe, expect, it, vi } from 'vitest';
import {
  createActor,
  createMachine,
  fromCallback,
  fromPromise,
  SimulatedClock,
  type EventObject,
} from 'xstate';
import type { NetChange, VmConsole } from '../api/console';
import type { Vm } from '../api/vm';
import type { ClipboardDirections } from '../domain/clipboard';
import type { KeyboardLayout } from '../domain/keyboardLayouts';
import { consoleClipboardMachine } from './consoleClipboardMachine';
import { consoleHeartbeatMachine, PING_INTERVAL_MS } from './consoleHeartbeatMachine';
import {
  consoleMachine,
  RECONNECT_FIRST_DELAY_MS,
  RECONNECT_JITTER,
  RECONNECT_MAX_DELAY_MS,
  RECONNECT_TICK_MS,
  reconnectDelayMs,
  type ConsoleEvent,
  type RfbCommand,
  type RfbInput,
} from './consoleMachine';
import {
  selectCanPasteClipboard,
  selectCanReconnect,
  selectCanRetry,
  selectCanTakeControl,
  selectIsViewOnly,
  selectOthersOnConsole,
  selectIsRecorded,
  selectConsoleError,
  selectConsoleStatus,
  selectConsoleStatusLabel,
  selectIsBusy,
  selectIsLive,
  selectIsScreenShown,
  selectKeyboardLayout,
  selectNetworkActor,
  selectPasteError,
  selectReconnectInSeconds,
  type ConsoleStatus,
} from './consoleMachine.selectors';
import {
  consoleNetworkMachine,
  NIC_COUNT,
  type ConsoleNetworkEvent,
  type ConsoleNetworkSnapshot,
  type MachineNetworks,
} from './consoleNetworkMachine';
import {
  selectHasNetworks,
  selectNicNets,
  selectNetworkError,
} from './consoleNetworkMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const SCREEN = { id: 'screen' };

const running = (ticket: string): VmConsole => ({
  id: 'vm-1',
  isolationId: 'ws-1',
  name: 'kali',
  url: `ws://host/api/console/vnc/vm-1?ticket=${ticket}`,
  ticket,
  isRunning: true,
});

const OFF: VmConsole = {
  id: 'vm-1',
  isolationId: 'ws-1',
  name: 'kali',
  url: '',
  ticket: null,
  isRunning: false,
};

/** A failed call as the HTTP client reports it: the status it came with, 0 for no answer. */
const httpError = (status: number, message: string) =>
  Object.assign(new Error(message), { status });
/** The server is down or restarting: no answer at all. */
const UNREACHABLE = httpError(0, 'Failed to fetch');
/** The console cookie is no longer taken. */
const SIGNED_OUT = httpError(401, 'Unauthorized');

interface Options {
  jitter?: number;
  keyboardLayout?: KeyboardLayout;
  clipboard?: () => Promise<string>;
  /** What the machine's clipboard can do (GET vm/{id}/clipboard); unanswered by default. */
  directions?: ClipboardDirections;
  signIn?: () => Promise<void>;
  consoles?: Array<VmConsole | Error>;
  vm?: Vm | null | Error;
  nets?: string[] | Error;
  changeNet?: (change: NetChange) => Promise<void>;
}

/** The machine with stub effects; `rfb` records what it was started with and what it was told. */
function start(options: Options = {}) {
  const consoles = [...(options.consoles ?? [running('t1'), running('t2'), running('t3')])];
  const calls = { signIn: 0, loadConsole: 0, ping: 0, loadVm: 0, changes: [] as NetChange[] };
  /** Whether each ticket was asked for with control. */
  const controls: boolean[] = [];
  /** The channels the viewers actor listened on, and left. */
  const listens: string[] = [];
  const rfb = {
    starts: [] as RfbInput[],
    commands: [] as Array<RfbCommand | { type: 'rfb.credentials' }>,
    stops: 0,
  };
  const requestFullscreen = vi.fn();
  const rememberKeyboardLayout = vi.fn();
  /** What the page put on the browser's clipboard. */
  const written: string[] = [];
  const clock = new SimulatedClock();
  const machine = consoleMachine.provide({
    actors: {
      signIn: fromPromise(async () => {
        calls.signIn += 1;
        if (options.signIn) await options.signIn();
      }),
      loadConsole: fromPromise(async ({ input }: { input: { vmId: string; control: boolean } }) => {
        calls.loadConsole += 1;
        controls.push(input.control);
        const next = consoles.shift() ?? OFF;
        if (next instanceof Error) throw next;
        return next;
      }),
      loadVm: fromPromise(async () => {
        calls.loadVm += 1;
        if (options.vm instanceof Error) throw options.vm;
        return options.vm === undefined ? null : options.vm;
      }),
      network: consoleNetworkMachine.provide({
        actors: {
          loadNets: fromPromise(async () => {
            if (options.nets instanceof Error) throw options.nets;
            // As a TopoMojo server answers: the networks, not the NICs.
            const networks: MachineNetworks = {
              nets: options.nets ?? ['bridge-net', 'lan#ws-1'],
              nics: null,
            };
            return networks;
          }),
          changeNet: fromPromise(async ({ input }) => {
            calls.changes.push(input);
            if (options.changeNet) await options.changeNet(input);
            return null;
          }),
        },
      }),
      heartbeat: consoleHeartbeatMachine.provide({
        actors: {
          ping: fromPromise(async () => {
            calls.ping += 1;
          }),
        },
      }),
      readClipboard: fromPromise(() => (options.clipboard ?? (async () => ''))()),
      clipboard: consoleClipboardMachine.provide({
        actors: {
          loadClipboard: fromPromise(async () => {
            if (!options.directions) throw new Error('not asked in this test');
            return options.directions;
          }),
          copyOut: fromPromise(async () => ''),
          writeClipboard: fromPromise(async ({ input }: { input: { text: string } }) => {
            written.push(input.text);
          }),
          recordPaste: fromPromise(async () => {}),
        },
      }),
      rfb: fromCallback<RfbCommand | { type: 'rfb.credentials' }, RfbInput>(
        ({ input, receive }) => {
          rfb.starts.push(input);
          receive((command) => rfb.commands.push(command));
          return () => {
            rfb.stops += 1;
          };
        },
      ),
      viewers: fromCallback<EventObject, { vmId: string; channelId: string }>(({ input }) => {
        listens.push(input.channelId);
        return () => listens.push(`left ${input.channelId}`);
      }),
    },
    actions: {
      requestFullscreen: (_, params) => requestFullscreen(params.screen),
      rememberKeyboardLayout: (_, params) => rememberKeyboardLayout(params.layout),
    },
  });
  const actor = createActor(machine, {
    input: {
      vmId: 'vm-1',
      name: 'kali',
      fullbleed: false,
      jitter: options.jitter,
      keyboardLayout: options.keyboardLayout,
      userId: 'player-1',
    },
    clock,
  });
  actor.start();
  const send = (event: ConsoleEvent) => actor.send(event);
  const status = () => selectConsoleStatus(actor.getSnapshot());
  /** The network switcher the console runs once signed in. */
  const network = () => {
    const ref = selectNetworkActor(actor.getSnapshot());
    if (ref === undefined) throw new Error('the network switcher is not running');
    return ref;
  };
  const sendNetwork = (event: ConsoleNetworkEvent) => network().send(event);
  const networkSnapshot = (): ConsoleNetworkSnapshot => network().getSnapshot();
  return {
    actor,
    send,
    status,
    calls,
    rfb,
    controls,
    listens,
    clock,
    requestFullscreen,
    rememberKeyboardLayout,
    written,
    sendNetwork,
    networkSnapshot,
  };
}

/** Signed in, ticket loaded, screen mounted, noVNC connected. */
async function connected(options: Options = {}) {
  const t = start(options);
  t.send({ type: 'console.screenAttached', screen: SCREEN });
  await flush();
  t.send({ type: 'rfb.connected' });
  return t;
}

describe('console machine', () => {
  it('signs in, asks for a ticket, and connects noVNC to the url with the ticket', async () => {
    const t = start();
    expect(t.status()).toBe('signingIn');
    await flush();
    // The ticket is here, but noVNC needs the page's screen first.
    expect(t.rfb.starts).toEqual([]);
    t.send({ type: 'console.screenAttached', screen: SCREEN });
    expect(t.status()).toBe('connecting');
    expect(t.rfb.starts).toEqual([
      {
        url: 'ws://host/api/console/vnc/vm-1?ticket=t1',
        ticket: 't1',
        screen: SCREEN,
        keyboardLayout: 'us',
        viewOnly: false,
      },
    ]);
    t.send({ type: 'rfb.connected' });
    expect(t.status()).toBe('connected');
    expect(selectConsoleStatusLabel(t.actor.getSnapshot())).toBe('connected');
    expect(t.calls.signIn).toBe(1);
  });

  it.each([
    ['is off', OFF],
    ['has no address', { ...running('x'), url: '' }],
  ])('says the machine is not running when it %s, and Retry asks again', async (_l, answer) => {
    const t = start({ consoles: [answer, running('t2')] });
    t.send({ type: 'console.screenAttached', screen: SCREEN });
    await flush();
    expect(t.status()).toBe('stopped');
    expect(selectConsoleStatusLabel(t.actor.getSnapshot())).toBe('not running');
    expect(t.rfb.starts).toEqual([]);
    expect(selectCanRetry(t.actor.getSnapshot())).toBe(true);
    t.send({ type: 'console.retryRequested' });
    await flush();
    expect(t.status()).toBe('connecting');
    expect(t.rfb.starts[0]?.ticket).toBe('t2');
  });

  it('watches only with a view-only ticket: noVNC sends nothing, no keys nor paste are offered', async () => {
    const t = await connected({ consoles: [{ ...running('t1'), viewOnly: true }] });
    const snapshot = () => t.actor.getSnapshot();
    expect(t.rfb.starts[0]?.viewOnly).toBe(true);
    expect(selectIsViewOnly(snapshot())).toBe(true);
    expect(snapshot().can({ type: 'console.ctrlAltDelRequested' })).toBe(false);
    expect(snapshot().can({ type: 'console.pasteRequested', text: 'ls' })).toBe(false);
    expect(selectCanPasteClipboard(snapshot())).toBe(false);
    t.send({ type: 'console.ctrlAltDelRequested' });
    t.send({ type: 'console.pasteRequested', text: 'ls' });
    expect(t.rfb.commands).toEqual([]);
    // An observer may not take control.
    expect(selectCanTakeControl(snapshot())).toBe(false);
  });

  it('takes control for an administrator watching: a new ticket asked with control', async () => {
    const watching = { ...running('t1'), viewOnly: true, mayTakeControl: true };
    const t = await connected({ consoles: [watching, running('t2')] });
    expect(selectCanTakeControl(t.actor.getSnapshot())).toBe(true);
    t.send({ type: 'console.takeControlRequested' });
    await flush();
    expect(t.controls).toEqual([false, true]);
    expect(t.rfb.stops).toBe(1);
    expect(t.rfb.starts.at(-1)).toMatchObject({ ticket: 't2', viewOnly: false });
    t.send({ type: 'rfb.connected' });
    expect(selectIsViewOnly(t.actor.getSnapshot())).toBe(false);
    expect(selectCanTakeControl(t.actor.getSnapshot())).toBe(false);
    // A reconnection keeps control.
    t.send({ type: 'console.reconnectRequested' });
    await flush();
    expect(t.controls).toEqual([false, true, true]);
  });

  it('names the others on the console from the ticket answer, then as the hub tells', async () => {
    const ada = { id: 'ada', name: 'Ada', role: 'observer' as const, control: false };
    const self = { id: 'player-1', name: 'Pat', role: 'player' as const, control: true };
    const t = await connected({ consoles: [{ ...running('t1'), viewers: [self, ada] }] });
    expect(t.listens).toEqual(['ws-1']);
    const others = () => selectOthersOnConsole(t.actor.getSnapshot()).map((o) => o.text);
    expect(others()).toEqual(['Ada (observer) is watching this console']);
    // The same list reads as the same lines.
    expect(selectOthersOnConsole(t.actor.getSnapshot())).toBe(
      selectOthersOnConsole(t.actor.getSnapshot()),
    );
    const admin = { id: 'root', name: 'Root', role: 'admin' as const, control: true };
    t.send({ type: 'console.viewersChanged', viewers: [self, admin] });
    expect(others()).toEqual(['Root (admin) has taken control']);
    // Teammates on the same machine are no news.
    t.send({ type: 'console.viewersChanged', viewers: [self, { ...self, id: 'p2', name: 'Bo' }] });
    expect(others()).toEqual([]);
    // Leaving the session leaves the channel.
    t.send({ type: 'console.reconnectRequested' });
    expect(t.listens).toEqual(['ws-1', 'left ws-1']);
  });

  it('says the console is recorded when its ticket answer says so', async () => {
    const plain = await connected();
    expect(selectIsRecorded(plain.actor.getSnapshot())).toBe(false);
    const recorded = await connected({ consoles: [{ ...running('t1'), recorded: true }] });
    expect(selectIsRecorded(recorded.actor.getSnapshot())).toBe(true);
  });

  it('shows why signing in failed, and signs in again on Retry', async () => {
    let fail = true;
    const t = start({
      signIn: async () => {
        if (fail) throw { status: 401, message: 'Unauthorized' };
      },
    });
    await flush();
    expect(t.status()).toBe('failed');
    expect(selectConsoleError(t.actor.getSnapshot())).toBe(
      'You are signed out: sign in again to go on.',
    );
    fail = false;
    t.send({ type: 'console.retryRequested' });
    await flush();
    expect(t.calls.signIn).toBe(2);
    expect(t.status()).toBe('loading');
  });

  it('shows a failed console request with its message', async () => {
    const t = start({ consoles: [Object.assign(new Error('x'), { message: 'ResourceNotFound' })] });
    await flush();
    expect(t.status()).toBe('failed');
    expect(selectConsoleError(t.actor.getSnapshot())).toBe(
      'It was not found: it may have been deleted.',
    );
  });

  it('shows the screen only while a noVNC session is attached', async () => {
    const t = start({ consoles: [running('t1'), OFF] });
    t.send({ type: 'console.screenAttached', screen: SCREEN });
    expect(selectIsScreenShown(t.actor.getSnapshot())).toBe(false);
    await flush();
    expect(t.status()).toBe('connecting');
    expect(selectIsScreenShown(t.actor.getSnapshot())).toBe(true);
    t.send({ type: 'rfb.connected' });
    expect(selectIsScreenShown(t.actor.getSnapshot())).toBe(true);
    // Reconnecting finds the machine off: the notice alone, nothing of the last session.
    t.send({ type: 'console.reconnectRequested' });
    await flush();
    expect(t.status()).toBe('stopped');
    expect(selectIsScreenShown(t.actor.getSnapshot())).toBe(false);
  });

  it('reconnects on its own after a lost connection to a running machine, with a new ticket', async () => {
    const t = await connected({ vm: { id: 'vm-1', state: 'running' } });
    t.send({ type: 'rfb.disconnected', clean: false });
    expect(t.rfb.stops).toBe(1);
    await flush();
    expect(t.status()).toBe('reconnecting');
    expect(selectConsoleStatusLabel(t.actor.getSnapshot())).toBe('reconnecting (attempt 1)');
    expect(t.calls.loadConsole).toBe(1);
    t.clock.increment(RECONNECT_FIRST_DELAY_MS - 1);
    await flush();
    expect(t.calls.loadConsole).toBe(1);
    t.clock.increment(1);
    await flush();
    expect(t.calls.loadConsole).toBe(2);
    expect(t.status()).toBe('connecting');
    expect(t.rfb.starts.map((s) => s.ticket)).toEqual(['t1', 't2']);
    t.send({ type: 'rfb.connected' });
    expect(t.status()).toBe('connected');
  });

  it('reconnects at once on Reconnect while waiting out the back-off', async () => {
    const t = await connected({ vm: { id: 'vm-1', state: 'running' } });
    t.send({ type: 'rfb.disconnected', clean: false });
    await flush();
    expect(selectCanReconnect(t.actor.getSnapshot())).toBe(true);
    t.send({ type: 'console.reconnectRequested' });
    await flush();
    expect(t.calls.loadConsole).toBe(2);
    expect(t.status()).toBe('connecting');
  });

  it('waits 0.5, 1, 2, 4, 8, then 15 s between attempts while the server cannot be reached', async () => {
    const waits = [500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000];
    expect(waits.map((_, i) => reconnectDelayMs(i + 1))).toEqual(waits);
    expect(RECONNECT_MAX_DELAY_MS).toBe(15_000);
    const t = start({
      // The first wait follows the failed look at the machine; each further one a failed ticket.
      consoles: [running('t1'), ...waits.slice(1).map(() => UNREACHABLE), running('t9')],
      vm: UNREACHABLE,
    });
    t.send({ type: 'console.screenAttached', screen: SCREEN });
    await flush();
    t.send({ type: 'rfb.connected' });
    // The server went away: the connection drops and the machine cannot be looked at either.
    t.send({ type: 'rfb.disconnected', clean: false });
    await flush();
    for (const [i, wait] of waits.entries()) {
      const attempt = i + 1;
      expect(t.status()).toBe('reconnecting');
      expect(t.actor.getSnapshot().context.reconnectAttempt).toBe(attempt);
      expect(selectReconnectInSeconds(t.actor.getSnapshot())).toBe(Math.ceil(wait / 1_000));
      const asked = t.calls.loadConsole;
      // Counting down a second at a time, and no sooner than the whole wait.
      for (let left = wait; left > 0; left -= RECONNECT_TICK_MS) {
        expect(t.calls.loadConsole).toBe(asked);
        expect(selectReconnectInSeconds(t.actor.getSnapshot())).toBe(Math.ceil(left / 1_000));
        t.clock.increment(Math.min(left, RECONNECT_TICK_MS));
        await flush();
      }
      expect(t.calls.loadConsole).toBe(asked + 1);
    }
    // The server is back: the console is, without a click.
    expect(t.status()).toBe('connecting');
    expect(t.rfb.starts.at(-1)?.ticket).toBe('t9');
  });

  it('stretches the back-off by the page’s jitter, so pages dropped together spread out', async () => {
    expect(reconnectDelayMs(1, 0.5)).toBe(RECONNECT_FIRST_DELAY_MS * (1 + RECONNECT_JITTER / 2));
    expect(reconnectDelayMs(9, 0.99)).toBeLessThan(RECONNECT_MAX_DELAY_MS * (1 + RECONNECT_JITTER));
    const t = await connected({ jitter: 0.5, vm: { id: 'vm-1', state: 'running' } });
    t.send({ type: 'rfb.disconnected', clean: false });
    await flush();
    const wait = reconnectDelayMs(1, 0.5);
    expect(wait).toBeGreaterThan(reconnectDelayMs(1));
    t.clock.increment(wait - 1);
    await flush();
    expect(t.calls.loadConsole).toBe(1);
    t.clock.increment(1);
    await flush();
    expect(t.calls.loadConsole).toBe(2);
  });

  it('grows the back-off while attempts do not connect, and starts it again once one does', async () => {
    const t = await connected({
      consoles: [running('t1'), running('t2'), running('t3'), running('t4')],
      vm: { id: 'vm-1', state: 'running' },
    });
    const context = () => t.actor.getSnapshot().context;
    t.send({ type: 'rfb.disconnected', clean: false });
    await flush();
    expect(context().reconnectAttempt).toBe(1);
    t.clock.increment(reconnectDelayMs(1));
    await flush();
    expect(t.rfb.starts.at(-1)?.ticket).toBe('t2');
    // Dropped again before it connected: the next wait is longer.
    t.send({ type: 'rfb.disconnected', clean: false });
    await flush();
    expect(context().reconnectAttempt).toBe(2);
    expect(context().reconnectInMs).toBe(reconnectDelayMs(2));
    t.clock.increment(reconnectDelayMs(1));
    await flush();
    expect(t.rfb.starts.at(-1)?.ticket).toBe('t2');
    t.clock.increment(reconnectDelayMs(2) - reconnectDelayMs(1));
    await flush();
    expect(t.rfb.starts.at(-1)?.ticket).toBe('t3');
    t.send({ type: 'rfb.connected' });
    expect(context().reconnectAttempt).toBe(0);
    // A connection that worked: the next loss waits the first delay again.
    t.send({ type: 'rfb.disconnected', clean: false });
    await flush();
    expect(context().reconnectAttempt).toBe(1);
    t.clock.increment(reconnectDelayMs(1));
    await flush();
    expect(t.rfb.starts.at(-1)?.ticket).toBe('t4');
  });

  it('reconnects when the machine cannot be looked at after a drop (server away)', async () => {
    const t = await connected({ vm: UNREACHABLE });
    t.send({ type: 'rfb.disconnected', clean: false });
    await flush();
    expect(t.status()).toBe('reconnecting');
    t.clock.increment(reconnectDelayMs(1));
    await flush();
    expect(t.rfb.starts.at(-1)?.ticket).toBe('t2');
  });

  it('never asks for a ticket again on its own once the machine is found stopped', async () => {
    const t = await connected({ vm: { id: 'vm-1', state: 'off' } });
    t.send({ type: 'rfb.disconnected', clean: true });
    await flush();
    expect(t.status()).toBe('stopped');
    for (let i = 0; i < 20; i++) {
      t.clock.increment(RECONNECT_MAX_DELAY_MS);
      await flush();
    }
    expect(t.status()).toBe('stopped');
    expect(t.calls.loadConsole).toBe(1);
    expect(selectCanReconnect(t.actor.getSnapshot())).toBe(false);
  });

  it('stays stopped when a reconnection finds the machine off', async () => {
    const t = await connected({ consoles: [running('t1'), OFF], vm: UNREACHABLE });
    t.send({ type: 'rfb.disconnected', clean: false });
    await flush();
    t.clock.increment(reconnectDelayMs(1));
    await flush();
    expect(t.status()).toBe('stopped');
    t.clock.increment(RECONNECT_MAX_DELAY_MS * 10);
    await flush();
    expect(t.calls.loadConsole).toBe(2);
  });

  it('signs in again once when the console cookie is refused, then fails if it still is', async () => {
    const t = await connected({
      consoles: [running('t1'), SIGNED_OUT, running('t2'), SIGNED_OUT, SIGNED_OUT],
      vm: { id: 'vm-1', state: 'running' },
    });
    expect(t.calls.signIn).toBe(1);
    t.send({ type: 'console.reconnectRequested' });
    await flush();
    // Signed in again, and the new cookie is taken.
    expect(t.calls.signIn).toBe(2);
    expect(t.status()).toBe('connecting');
    expect(t.rfb.starts.at(-1)?.ticket).toBe('t2');
    // Refused again before connecting: signing in does not help, and the page says why.
    t.send({ type: 'rfb.disconnected', clean: false });
    await flush();
    t.clock.increment(reconnectDelayMs(1));
    await flush();
    expect(t.calls.signIn).toBe(2);
    expect(t.status()).toBe('failed');
    expect(selectConsoleError(t.actor.getSnapshot())).toBe(
      'You are signed out: sign in again to go on.',
    );
    t.clock.increment(RECONNECT_MAX_DELAY_MS * 10);
    await flush();
    expect(t.calls.loadConsole).toBe(4);
  });

  it('says the machine is not running when the connection ends because it stopped', async () => {
    const t = await connected({ vm: { id: 'vm-1', state: 'off' } });
    t.send({ type: 'rfb.disconnected', clean: true });
    await flush();
    expect(t.status()).toBe('stopped');
  });

  it('reconnecting while connected drops the old noVNC and starts one with a new ticket', async () => {
    const t = await connected();
    t.send({ type: 'console.reconnectRequested' });
    expect(t.rfb.stops).toBe(1);
    await flush();
    expect(t.rfb.starts.map((s) => s.ticket)).toEqual(['t1', 't2']);
  });

  it('gives noVNC its ticket once when it asks, and fails when it asks again', async () => {
    const t = start();
    t.send({ type: 'console.screenAttached', screen: SCREEN });
    await flush();
    t.send({ type: 'rfb.credentialsRequired' });
    expect(t.rfb.commands).toEqual([{ type: 'rfb.credentials' }]);
    t.send({ type: 'rfb.credentialsRequired' });
    expect(t.status()).toBe('failed');
    expect(t.rfb.stops).toBe(1);
    // A ticket that is not accepted is not tried again on its own.
    t.clock.increment(RECONNECT_MAX_DELAY_MS * 10);
    await flush();
    expect(t.calls.loadConsole).toBe(1);
  });

  it('fails with the server’s reason on a security failure', async () => {
    const t = start();
    t.send({ type: 'console.screenAttached', screen: SCREEN });
    await flush();
    t.send({ type: 'rfb.securityFailed', reason: 'Unsupported security type' });
    expect(t.status()).toBe('failed');
    expect(selectConsoleError(t.actor.getSnapshot())).toBe('Unsupported security type');
  });

  it('passes Ctrl-Alt-Del, paste and full screen on only while connected', async () => {
    const t = start();
    t.send({ type: 'console.screenAttached', screen: SCREEN });
    await flush();
    t.send({ type: 'console.ctrlAltDelRequested' });
    expect(t.rfb.commands).toEqual([]);
    t.send({ type: 'rfb.connected' });
    t.send({ type: 'console.ctrlAltDelRequested' });
    t.send({ type: 'console.pasteRequested', text: 'ls -l\n' });
    t.send({ type: 'console.pasteRequested', text: '' });
    t.send({ type: 'console.fullscreenRequested' });
    expect(t.rfb.commands).toEqual([
      { type: 'rfb.sendCtrlAltDel' },
      { type: 'rfb.paste', text: 'ls -l\n' },
    ]);
    expect(t.requestFullscreen).toHaveBeenCalledWith(SCREEN);
  });

  it('types on the layout the user chose, remembers a new choice and tells noVNC at once', async () => {
    const t = await connected({ keyboardLayout: 'de' });
    expect(t.rfb.starts.at(-1)?.keyboardLayout).toBe('de');
    t.send({ type: 'console.keyboardLayoutChosen', layout: 'fr' });
    expect(selectKeyboardLayout(t.actor.getSnapshot())).toBe('fr');
    expect(t.rememberKeyboardLayout).toHaveBeenCalledWith('fr');
    expect(t.rfb.commands).toEqual([{ type: 'rfb.keyboardLayoutChanged', layout: 'fr' }]);
    // The next connection starts on it.
    t.send({ type: 'console.reconnectRequested' });
    await flush();
    expect(t.rfb.starts.at(-1)?.keyboardLayout).toBe('fr');
  });

  it('keeps a layout chosen while not connected for the next connection', async () => {
    const t = start();
    t.send({ type: 'console.keyboardLayoutChosen', layout: 'nordic' });
    expect(t.rememberKeyboardLayout).toHaveBeenCalledWith('nordic');
    t.send({ type: 'console.screenAttached', screen: SCREEN });
    await flush();
    expect(t.rfb.starts.at(-1)?.keyboardLayout).toBe('nordic');
  });

  it('pastes what the clipboard holds, once read', async () => {
    const clipboard = deferred<string>();
    const t = await connected({ clipboard: () => clipboard.promise });
    t.send({ type: 'console.clipboardPasteRequested' });
    expect(selectCanPasteClipboard(t.actor.getSnapshot())).toBe(false);
    clipboard.resolve('echo hi\n');
    await flush();
    expect(t.rfb.commands).toEqual([{ type: 'rfb.paste', text: 'echo hi\n' }]);
    expect(selectCanPasteClipboard(t.actor.getSnapshot())).toBe(true);
  });

  it('pastes onto the clipboard of a desktop that shares it, and takes what it copies', async () => {
    const t = await connected({
      directions: { copy: true, paste: true, via: 'vdagent' },
      clipboard: async () => 'from the browser',
    });
    await flush();
    t.send({ type: 'console.clipboardPasteRequested' });
    await flush();
    t.send({ type: 'console.pasteRequested', text: 'typed box' });
    t.send({ type: 'console.pasteRequested', text: '' });
    expect(t.rfb.commands).toEqual([
      { type: 'rfb.clipboardPaste', text: 'from the browser' },
      { type: 'rfb.clipboardPaste', text: 'typed box' },
    ]);
    t.send({ type: 'rfb.clipboard', text: 'copied on the desktop' });
    await flush();
    expect(t.written).toEqual(['copied on the desktop']);
  });

  it('types pastes and ignores clipboard text on a machine that copies through its agent', async () => {
    const t = await connected({
      directions: { copy: true, paste: true, via: 'agent' },
      clipboard: async () => 'from the browser',
    });
    await flush();
    t.send({ type: 'console.clipboardPasteRequested' });
    await flush();
    expect(t.rfb.commands).toEqual([{ type: 'rfb.paste', text: 'from the browser' }]);
    t.send({ type: 'rfb.clipboard', text: 'sent by the VNC server' });
    await flush();
    expect(t.written).toEqual([]);
  });

  it('says why the clipboard could not be read, until dismissed', async () => {
    const t = await connected({
      clipboard: async () => {
        throw new Error('Read permission denied.');
      },
    });
    t.send({ type: 'console.clipboardPasteRequested' });
    await flush();
    expect(selectPasteError(t.actor.getSnapshot())).toBe(
      'The clipboard could not be read: Read permission denied.',
    );
    expect(t.rfb.commands).toEqual([]);
    t.send({ type: 'console.pasteErrorDismissed' });
    expect(selectPasteError(t.actor.getSnapshot())).toBeNull();
  });

  it('pings every minute while open, cookie heartbeat as the reference console does', async () => {
    const t = start();
    await flush();
    expect(t.calls.ping).toBe(0);
    t.clock.increment(PING_INTERVAL_MS - 1);
    await flush();
    expect(t.calls.ping).toBe(0);
    t.clock.increment(1);
    await flush();
    expect(t.calls.ping).toBe(1);
    t.clock.increment(PING_INTERVAL_MS);
    await flush();
    expect(t.calls.ping).toBe(2);
    t.actor.stop();
    t.clock.increment(PING_INTERVAL_MS);
    await flush();
    expect(t.calls.ping).toBe(2);
  });

  it('moves a NIC to a listed network and remembers the choice', async () => {
    const t = start();
    await flush();
    expect(selectHasNetworks(t.networkSnapshot())).toBe(true);
    expect(selectNicNets(t.networkSnapshot())).toHaveLength(NIC_COUNT);
    t.sendNetwork({ type: 'console.netChangeRequested', nic: 1, net: 'lan#ws-1' });
    await flush();
    expect(t.calls.changes).toEqual([{ vmId: 'vm-1', nic: 1, net: 'lan#ws-1' }]);
    expect(selectNicNets(t.networkSnapshot())).toEqual(['', 'lan#ws-1', '']);
    // Not a listed network, or not a NIC: nothing is sent.
    t.sendNetwork({ type: 'console.netChangeRequested', nic: 0, net: 'elsewhere' });
    t.sendNetwork({ type: 'console.netChangeRequested', nic: NIC_COUNT, net: 'lan#ws-1' });
    await flush();
    expect(t.calls.changes).toHaveLength(1);
  });

  it('shows a refused NIC change until dismissed', async () => {
    const t = start({
      changeNet: async () => {
        throw { status: 400, message: 'InvalidOperation' };
      },
    });
    await flush();
    t.sendNetwork({ type: 'console.netChangeRequested', nic: 2, net: 'bridge-net' });
    await flush();
    expect(selectNetworkError(t.networkSnapshot())).toBe('This cannot be done.');
    expect(selectNicNets(t.networkSnapshot())).toEqual(['', '', '']);
    t.sendNetwork({ type: 'console.networkErrorDismissed' });
    expect(selectNetworkError(t.networkSnapshot())).toBeNull();
  });

  it('offers no network switcher when the networks cannot be read', async () => {
    const t = start({ nets: new Error('Forbidden') });
    await flush();
    expect(selectHasNetworks(t.networkSnapshot())).toBe(false);
  });

  it('reaches every state', () => {
    const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output });
    expect(
      unreachedStateIds(consoleMachine, {
        serializeState: (snapshot) => {
          const { context } = snapshot as unknown as {
            context: { screen: unknown; credentialAsks: number; signedInAgain: boolean };
          };
          // The back-off's counters only set how long to wait: left out.
          return JSON.stringify([
            snapshot.value,
            !!context.screen,
            context.credentialAsks > 0,
            context.signedInAgain,
          ]);
        },
        inputs: [{ vmId: 'vm-1', name: 'kali', fullbleed: true }],
        payloads: [
          { type: 'console.screenAttached', screen: SCREEN },
          done('loadConsole', running('t')),
          done('loadConsole', OFF),
          done('loadVm', { id: 'vm-1', state: 'running' }),
          done('loadVm', null),
          { type: 'xstate.error.actor.loadConsole', error: UNREACHABLE },
          { type: 'xstate.error.actor.loadConsole', error: SIGNED_OUT },
          { type: 'xstate.error.actor.loadConsole', error: new Error('ResourceNotFound') },
          { type: 'console.pasteRequested', text: 'x' },
          { type: 'rfb.securityFailed', reason: '' },
          { type: 'rfb.disconnected', clean: true },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the console page as its toolbar shows it (spec §2, wire reference §7), an
 * abstract machine without effects whose shortest paths over every transition drive the real
 * actor, each effect settled by the step that names its outcome. The page's screen is attached
 * from the start, as the view does once it has rendered.
 */
describe('consoleMachine against the page model', () => {
  type ModelEvent =
    | { type: 'SIGNED_IN' }
    | { type: 'SIGN_IN_FAILED' }
    | { type: 'RETRY' }
    | { type: 'TICKET' }
    | { type: 'MACHINE_OFF' }
    | { type: 'LOAD_FAILED' }
    | { type: 'SERVER_AWAY' }
    | { type: 'SIGNED_OUT' }
    | { type: 'WAITED' }
    | { type: 'CONNECTED' }
    | { type: 'CREDENTIALS_ASKED' }
    | { type: 'SECURITY_FAILED' }
    | { type: 'DISCONNECTED' }
    | { type: 'STILL_RUNNING' }
    | { type: 'MACHINE_STOPPED' }
    | { type: 'CHECK_FAILED' }
    | { type: 'RECONNECT' }
    | { type: 'CTRL_ALT_DEL' }
    | { type: 'PASTE' }
    | { type: 'FULLSCREEN' }
    /** A view-only ticket that may take control (an administrator watching). */
    | { type: 'WATCH_TICKET' }
    | { type: 'TAKE_CONTROL' };

  // noVNC's events while it runs, whether or not it has asked for the ticket yet.
  const novnc = {
    SECURITY_FAILED: 'failed',
    DISCONNECTED: 'checking',
    RECONNECT: 'loading',
  } as const;

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'consoleModel',
    initial: 'signingIn',
    states: {
      signingIn: { on: { SIGNED_IN: 'loading', SIGN_IN_FAILED: 'signInFailed' } },
      signInFailed: { on: { RETRY: 'signingIn' } },
      loading: {
        on: {
          TICKET: 'connecting',
          WATCH_TICKET: 'connectingToWatch',
          MACHINE_OFF: 'stopped',
          LOAD_FAILED: 'failed',
          SERVER_AWAY: 'reconnecting',
          SIGNED_OUT: 'signingInAgain',
        },
      },
      // The cookie was refused: signed in again once, until a connection works.
      signingInAgain: { on: { SIGNED_IN: 'loadingSignedInAgain', SIGN_IN_FAILED: 'signInFailed' } },
      loadingSignedInAgain: {
        on: {
          TICKET: 'connecting',
          MACHINE_OFF: 'stopped',
          LOAD_FAILED: 'failed',
          SERVER_AWAY: 'reconnecting',
          SIGNED_OUT: 'failed',
        },
      },
      connecting: {
        on: { ...novnc, CONNECTED: 'connected', CREDENTIALS_ASKED: 'credentialsGiven' },
      },
      credentialsGiven: { on: { ...novnc, CONNECTED: 'connected', CREDENTIALS_ASKED: 'failed' } },
      // Watching: noVNC sends nothing, keys and paste do nothing; control is a new ticket.
      connectingToWatch: { on: { ...novnc, CONNECTED: 'watching', TAKE_CONTROL: 'loading' } },
      watching: {
        on: {
          ...novnc,
          TAKE_CONTROL: 'loading',
          CTRL_ALT_DEL: 'watching',
          PASTE: 'watching',
          FULLSCREEN: 'watching',
        },
      },
      connected: {
        on: { ...novnc, CTRL_ALT_DEL: 'connected', PASTE: 'connected', FULLSCREEN: 'connected' },
      },
      checking: {
        on: {
          STILL_RUNNING: 'reconnecting',
          MACHINE_STOPPED: 'stopped',
          CHECK_FAILED: 'reconnecting',
        },
      },
      reconnecting: { on: { WAITED: 'loading', RECONNECT: 'loading' } },
      stopped: { on: { RETRY: 'loading' } },
      failed: { on: { RETRY: 'loading' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, consoleMachine, {
        states: {
          signingIn: 'signingIn',
          signInFailed: 'signInFailed',
          loading: ['open.loading', 'open.awaitingScreen'],
          signingInAgain: 'signingIn',
          loadingSignedInAgain: 'open.loading',
          connecting: 'open.attached.connecting',
          credentialsGiven: 'open.attached.connecting',
          connected: 'open.attached.connected',
          connectingToWatch: 'open.attached.connecting',
          watching: 'open.attached.connected',
          checking: 'open.checking',
          reconnecting: 'open.reconnecting',
          stopped: 'open.stopped',
          failed: 'open.failed',
        },
        events: {
          SIGNED_IN: 'xstate.done.actor.signIn',
          SIGN_IN_FAILED: 'xstate.error.actor.signIn',
          RETRY: 'console.retryRequested',
          TICKET: 'xstate.done.actor.loadConsole',
          MACHINE_OFF: 'xstate.done.actor.loadConsole',
          LOAD_FAILED: 'xstate.error.actor.loadConsole',
          SERVER_AWAY: 'xstate.error.actor.loadConsole',
          SIGNED_OUT: 'xstate.error.actor.loadConsole',
          WAITED: 'xstate.after.reconnectTick.console.open.reconnecting',
          CONNECTED: 'rfb.connected',
          CREDENTIALS_ASKED: 'rfb.credentialsRequired',
          SECURITY_FAILED: 'rfb.securityFailed',
          DISCONNECTED: 'rfb.disconnected',
          STILL_RUNNING: 'xstate.done.actor.loadVm',
          MACHINE_STOPPED: 'xstate.done.actor.loadVm',
          CHECK_FAILED: 'xstate.error.actor.loadVm',
          RECONNECT: 'console.reconnectRequested',
          CTRL_ALT_DEL: 'console.ctrlAltDelRequested',
          PASTE: 'console.pasteRequested',
          FULLSCREEN: 'console.fullscreenRequested',
          WATCH_TICKET: 'xstate.done.actor.loadConsole',
          TAKE_CONTROL: 'console.takeControlRequested',
        },
        // The screen is attached before the ticket arrives on every path (see above); waiting
        // for it, the keyboard layout and the clipboard are covered by the tests above.
        unmodelledEvents: [
          'console.screenAttached',
          'console.keyboardLayoutChosen',
          'console.clipboardPasteRequested',
          'console.pasteErrorDismissed',
          // The clipboard of a desktop that shares it (tests above, and consoleClipboardMachine's).
          'rfb.clipboard',
          'clipboard.directionsKnown',
          // Who else is on the console changes no state (the tests above).
          'console.viewersChanged',
        ],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  /** The page over effects that wait for the step that settles them. */
  function startPage() {
    const signIns: Array<Deferred<void>> = [];
    const consoles: Array<Deferred<VmConsole>> = [];
    /** Whether each ticket was asked for with control. */
    const controls: boolean[] = [];
    const vms: Array<Deferred<Vm | null>> = [];
    const rfb = {
      starts: [] as RfbInput[],
      commands: [] as Array<RfbCommand | { type: 'rfb.credentials' }>,
      stops: 0,
    };
    const requestFullscreen = vi.fn();
    const clock = new SimulatedClock();
    const pending = <T>(calls: Array<Deferred<T>>) => {
      const call = deferred<T>();
      calls.push(call);
      return call.promise;
    };
    const actor = createActor(
      consoleMachine.provide({
        actors: {
          signIn: fromPromise(() => pending(signIns)),
          loadConsole: fromPromise(({ input }: { input: { vmId: string; control: boolean } }) => {
            controls.push(input.control);
            return pending(consoles);
          }),
          viewers: fromCallback(() => undefined),
          loadVm: fromPromise(() => pending(vms)),
          network: consoleNetworkMachine.provide({
            actors: {
              loadNets: fromPromise(async (): Promise<MachineNetworks> => ({
                nets: ['lan'],
                nics: ['lan'],
              })),
            },
          }),
          heartbeat: consoleHeartbeatMachine.provide({
            actors: { ping: fromPromise(async () => {}) },
          }),
          rfb: fromCallback<RfbCommand | { type: 'rfb.credentials' }, RfbInput>(
            ({ input, receive }) => {
              rfb.starts.push(input);
              receive((command) => rfb.commands.push(command));
              return () => {
                rfb.stops += 1;
              };
            },
          ),
        },
        actions: { requestFullscreen: (_, params) => requestFullscreen(params.screen) },
      }),
      { input: { vmId: 'vm-1', name: 'kali', fullbleed: false }, clock },
    ).start();
    actor.send({ type: 'console.screenAttached', screen: SCREEN });
    /** Settles the newest call of an effect. */
    const settle = async <T>(calls: Array<Deferred<T>>, outcome: T | Error) => {
      const call = calls.at(-1);
      if (call === undefined) throw new Error('the effect was not called');
      if (outcome instanceof Error) call.reject(outcome);
      else call.resolve(outcome);
      await flush();
    };
    return { actor, signIns, consoles, controls, vms, rfb, requestFullscreen, settle, clock };
  }

  for (const path of paths) {
    it(path.description, async () => {
      const page = startPage();
      let tickets = 0;
      let ticketsAsked = 0;
      /** Control was taken: every ticket from then on is asked for with it. */
      let tookControl = false;
      let signInsAsked = 0;
      const snapshot = () => page.actor.getSnapshot();
      const novncRunning = () => page.rfb.starts.length - page.rfb.stops;
      const expectPage = (status: ConsoleStatus, novncRuns: boolean) => {
        expect(selectConsoleStatus(snapshot())).toBe(status);
        expect(novncRunning()).toBe(novncRuns ? 1 : 0);
        expect(selectIsLive(snapshot())).toBe(status === 'connected');
      };
      const expectOffered = (retry: boolean, reconnect: boolean) => {
        expect(selectCanRetry(snapshot())).toBe(retry);
        expect(selectCanReconnect(snapshot())).toBe(reconnect);
      };
      /** Nothing asks for a ticket on its own, however long the page is left. */
      const expectNoRetry = async () => {
        const asked = page.consoles.length;
        page.clock.increment(RECONNECT_MAX_DELAY_MS * 4);
        await flush();
        expect(page.consoles.length).toBe(asked);
      };

      await path.test({
        states: {
          signingIn: () => {
            expectPage('signingIn', false);
            expectOffered(false, false);
            expect(page.signIns.length).toBe(++signInsAsked);
          },
          signInFailed: async () => {
            expectPage('failed', false);
            expect(selectConsoleError(snapshot())).not.toBeNull();
            expectOffered(true, false);
            await expectNoRetry();
          },
          signingInAgain: () => {
            expectPage('signingIn', false);
            expect(page.signIns.length).toBe(++signInsAsked);
          },
          loadingSignedInAgain: () => {
            expectPage('loading', false);
            expect(snapshot().context.signedInAgain).toBe(true);
            expect(page.consoles.length).toBe(++ticketsAsked);
          },
          loading: () => {
            expectPage('loading', false);
            expect(selectIsBusy(snapshot())).toBe(true);
            expect(page.consoles.length).toBe(++ticketsAsked);
            expect(page.controls.at(-1)).toBe(tookControl);
          },
          connecting: () => {
            expectPage('connecting', true);
            expect(page.rfb.starts.at(-1)?.ticket).toBe(`t${tickets}`);
            expect(page.rfb.starts.at(-1)?.viewOnly).toBe(false);
            expect(page.rfb.commands).toEqual([]);
            expectOffered(false, true);
          },
          connectingToWatch: () => {
            expectPage('connecting', true);
            expect(page.rfb.starts.at(-1)).toMatchObject({ ticket: `t${tickets}`, viewOnly: true });
            expect(selectCanTakeControl(snapshot())).toBe(true);
          },
          watching: () => {
            expectPage('connected', true);
            expect(selectIsViewOnly(snapshot())).toBe(true);
            expect(selectCanTakeControl(snapshot())).toBe(true);
          },
          credentialsGiven: () => {
            expectPage('connecting', true);
            expect(page.rfb.commands).toEqual([{ type: 'rfb.credentials' }]);
          },
          connected: () => {
            expectPage('connected', true);
            expectOffered(false, true);
            expect(selectIsViewOnly(snapshot())).toBe(false);
          },
          checking: () => {
            expectPage('loading', false);
            expect(selectIsBusy(snapshot())).toBe(true);
          },
          reconnecting: () => {
            expectPage('reconnecting', false);
            expectOffered(false, true);
            expect(selectIsBusy(snapshot())).toBe(false);
            const { reconnectAttempt } = snapshot().context;
            expect(reconnectAttempt).toBeGreaterThan(0);
            expect(selectConsoleStatusLabel(snapshot())).toBe(
              `reconnecting (attempt ${reconnectAttempt})`,
            );
            expect(selectReconnectInSeconds(snapshot())).toBe(
              Math.ceil(reconnectDelayMs(reconnectAttempt) / 1_000),
            );
          },
          stopped: async () => {
            expectPage('stopped', false);
            expectOffered(true, false);
            await expectNoRetry();
          },
          failed: async () => {
            expectPage('failed', false);
            expect(selectConsoleError(snapshot())).not.toBeNull();
            expectOffered(true, false);
            await expectNoRetry();
          },
        },
        events: {
          SIGNED_IN: () => page.settle(page.signIns, undefined),
          SIGN_IN_FAILED: () => page.settle(page.signIns, new Error('Unauthorized')),
          RETRY: async () => {
            page.actor.send({ type: 'console.retryRequested' });
            await flush();
          },
          TICKET: () => page.settle(page.consoles, running(`t${++tickets}`)),
          WATCH_TICKET: () =>
            page.settle(page.consoles, {
              ...running(`t${++tickets}`),
              viewOnly: true,
              mayTakeControl: true,
            }),
          TAKE_CONTROL: async () => {
            tookControl = true;
            page.actor.send({ type: 'console.takeControlRequested' });
            await flush();
          },
          MACHINE_OFF: () => page.settle(page.consoles, OFF),
          LOAD_FAILED: () => page.settle(page.consoles, new Error('ResourceNotFound')),
          SERVER_AWAY: () => page.settle(page.consoles, UNREACHABLE),
          SIGNED_OUT: () => page.settle(page.consoles, SIGNED_OUT),
          WAITED: async () => {
            // The countdown, a tick at a time, until the back-off is over.
            const asked = page.consoles.length;
            while (snapshot().matches({ open: 'reconnecting' })) {
              expect(page.consoles.length).toBe(asked);
              page.clock.increment(Math.min(snapshot().context.reconnectInMs, RECONNECT_TICK_MS));
              await flush();
            }
          },
          CONNECTED: () => void page.actor.send({ type: 'rfb.connected' }),
          CREDENTIALS_ASKED: () => void page.actor.send({ type: 'rfb.credentialsRequired' }),
          SECURITY_FAILED: () =>
            void page.actor.send({ type: 'rfb.securityFailed', reason: 'Unsupported security' }),
          DISCONNECTED: () => void page.actor.send({ type: 'rfb.disconnected', clean: false }),
          STILL_RUNNING: () => page.settle(page.vms, { id: 'vm-1', state: 'running' }),
          MACHINE_STOPPED: () => page.settle(page.vms, { id: 'vm-1', state: 'off' }),
          CHECK_FAILED: () => page.settle(page.vms, new Error('Forbidden')),
          RECONNECT: async () => {
            page.actor.send({ type: 'console.reconnectRequested' });
            await flush();
          },
          CTRL_ALT_DEL: () => {
            const sent = page.rfb.commands.length;
            page.actor.send({ type: 'console.ctrlAltDelRequested' });
            if (selectIsViewOnly(snapshot())) expect(page.rfb.commands).toHaveLength(sent);
            else expect(page.rfb.commands.at(-1)).toEqual({ type: 'rfb.sendCtrlAltDel' });
          },
          PASTE: () => {
            const sent = page.rfb.commands.length;
            page.actor.send({ type: 'console.pasteRequested', text: 'ls\n' });
            if (selectIsViewOnly(snapshot())) expect(page.rfb.commands).toHaveLength(sent);
            else expect(page.rfb.commands.at(-1)).toEqual({ type: 'rfb.paste', text: 'ls\n' });
          },
          FULLSCREEN: () => {
            page.actor.send({ type: 'console.fullscreenRequested' });
            expect(page.requestFullscreen).toHaveBeenLastCalledWith(SCREEN);
          },
        },
      });
    });
  }
});

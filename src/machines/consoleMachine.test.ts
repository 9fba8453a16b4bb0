import { describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import type { NetChange, VmConsole } from '../api/console';
import type { Vm } from '../api/vm';
import {
  consoleMachine,
  NIC_COUNT,
  PING_INTERVAL_MS,
  type ConsoleEvent,
  type RfbCommand,
  type RfbInput,
} from './consoleMachine';
import {
  selectCanReconnect,
  selectCanRetry,
  selectConsoleError,
  selectConsoleStatus,
  selectConsoleStatusLabel,
  selectHasNetworks,
  selectNicNets,
  selectNetworkError,
} from './consoleMachine.selectors';
import { flush } from './testing/deferred';
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

interface Options {
  signIn?: () => Promise<void>;
  consoles?: Array<VmConsole | Error>;
  vm?: Vm | null;
  nets?: string[] | Error;
  changeNet?: (change: NetChange) => Promise<void>;
}

/** The machine with stub effects; `rfb` records what it was started with and what it was told. */
function start(options: Options = {}) {
  const consoles = [...(options.consoles ?? [running('t1'), running('t2'), running('t3')])];
  const calls = { signIn: 0, loadConsole: 0, ping: 0, loadVm: 0, changes: [] as NetChange[] };
  const rfb = {
    starts: [] as RfbInput[],
    commands: [] as Array<RfbCommand | { type: 'rfb.credentials' }>,
    stops: 0,
  };
  const requestFullscreen = vi.fn();
  const clock = new SimulatedClock();
  const machine = consoleMachine.provide({
    actors: {
      signIn: fromPromise(async () => {
        calls.signIn += 1;
        if (options.signIn) await options.signIn();
      }),
      loadConsole: fromPromise(async () => {
        calls.loadConsole += 1;
        const next = consoles.shift() ?? OFF;
        if (next instanceof Error) throw next;
        return next;
      }),
      loadVm: fromPromise(async () => {
        calls.loadVm += 1;
        return options.vm === undefined ? null : options.vm;
      }),
      loadNets: fromPromise(async () => {
        if (options.nets instanceof Error) throw options.nets;
        return options.nets ?? ['bridge-net', 'lan#ws-1'];
      }),
      changeNet: fromPromise(async ({ input }) => {
        calls.changes.push(input);
        if (options.changeNet) await options.changeNet(input);
      }),
      ping: fromPromise(async () => {
        calls.ping += 1;
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
  });
  const actor = createActor(machine, {
    input: { vmId: 'vm-1', name: 'kali', fullbleed: false },
    clock,
  });
  actor.start();
  const send = (event: ConsoleEvent) => actor.send(event);
  const status = () => selectConsoleStatus(actor.getSnapshot());
  return { actor, send, status, calls, rfb, clock, requestFullscreen };
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
      { url: 'ws://host/api/console/vnc/vm-1?ticket=t1', ticket: 't1', screen: SCREEN },
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

  it('shows why signing in failed, and signs in again on Retry', async () => {
    let fail = true;
    const t = start({
      signIn: async () => {
        if (fail) throw { status: 401, message: 'Unauthorized' };
      },
    });
    await flush();
    expect(t.status()).toBe('failed');
    expect(selectConsoleError(t.actor.getSnapshot())).toBe('Unauthorized');
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
    expect(selectConsoleError(t.actor.getSnapshot())).toBe('Resource Not Found');
  });

  it('offers Reconnect after a lost connection to a running machine, with a new ticket', async () => {
    const t = await connected({ vm: { id: 'vm-1', state: 'running' } });
    t.send({ type: 'rfb.disconnected', clean: false });
    expect(t.rfb.stops).toBe(1);
    await flush();
    expect(t.status()).toBe('disconnected');
    expect(selectCanReconnect(t.actor.getSnapshot())).toBe(true);
    t.send({ type: 'console.reconnectRequested' });
    await flush();
    expect(t.calls.loadConsole).toBe(2);
    expect(t.rfb.starts.map((s) => s.ticket)).toEqual(['t1', 't2']);
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
    expect(selectHasNetworks(t.actor.getSnapshot())).toBe(true);
    expect(selectNicNets(t.actor.getSnapshot())).toHaveLength(NIC_COUNT);
    t.send({ type: 'console.netChangeRequested', nic: 1, net: 'lan#ws-1' });
    await flush();
    expect(t.calls.changes).toEqual([{ vmId: 'vm-1', nic: 1, net: 'lan#ws-1' }]);
    expect(selectNicNets(t.actor.getSnapshot())).toEqual(['', 'lan#ws-1', '']);
    // Not a listed network, or not a NIC: nothing is sent.
    t.send({ type: 'console.netChangeRequested', nic: 0, net: 'elsewhere' });
    t.send({ type: 'console.netChangeRequested', nic: NIC_COUNT, net: 'lan#ws-1' });
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
    t.send({ type: 'console.netChangeRequested', nic: 2, net: 'bridge-net' });
    await flush();
    expect(selectNetworkError(t.actor.getSnapshot())).toBe('Invalid Operation');
    expect(selectNicNets(t.actor.getSnapshot())).toEqual(['', '', '']);
    t.send({ type: 'console.networkErrorDismissed' });
    expect(selectNetworkError(t.actor.getSnapshot())).toBeNull();
  });

  it('offers no network switcher when the networks cannot be read', async () => {
    const t = start({ nets: new Error('Forbidden') });
    await flush();
    expect(selectHasNetworks(t.actor.getSnapshot())).toBe(false);
  });

  it('reaches every state', () => {
    const done = (state: string, output: unknown) => ({
      type: `xstate.done.actor.0.console.${state}`,
      output,
    });
    expect(
      unreachedStateIds(consoleMachine, {
        serializeState: (snapshot) => {
          const { context } = snapshot as unknown as {
            context: { screen: unknown; credentialAsks: number };
          };
          return JSON.stringify([snapshot.value, !!context.screen, context.credentialAsks > 0]);
        },
        inputs: [{ vmId: 'vm-1', name: 'kali', fullbleed: true }],
        payloads: [
          { type: 'console.screenAttached', screen: SCREEN },
          done('open.session.loading', running('t')),
          done('open.session.loading', OFF),
          done('open.session.checking', { id: 'vm-1', state: 'running' }),
          done('open.session.checking', null),
          done('open.network.loading', ['lan']),
          { type: 'console.netChangeRequested', nic: 0, net: 'lan' },
          { type: 'console.pasteRequested', text: 'x' },
          { type: 'rfb.securityFailed', reason: '' },
          { type: 'rfb.disconnected', clean: true },
        ],
      }),
    ).toEqual([]);
  });
});

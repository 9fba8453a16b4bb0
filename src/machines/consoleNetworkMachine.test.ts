import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { NetChange } from '../api/console';
import {
  consoleNetworkMachine,
  NIC_COUNT,
  type ConsoleNetworkEvent,
  type MachineNetworks,
} from './consoleNetworkMachine';
import {
  selectHasNetworks,
  selectIsChangingNet,
  selectNets,
  selectNetworkError,
  selectNicNets,
  netLabel,
} from './consoleNetworkMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const NETS = ['bridge-net', 'lan#ws-1'];
/** As a TopoMojo server answers: the networks, not where the NICs are. */
const UNREPORTED: MachineNetworks = { nets: NETS, nics: null };
/** As ours answers: a machine of two NICs, the second disconnected. */
const REPORTED: MachineNetworks = { nets: NETS, nics: ['lan#ws-1', ''] };

/** The switcher over calls that wait for the test to answer them. */
function startNetwork() {
  const loads: Array<Deferred<MachineNetworks>> = [];
  const changes: Array<{ change: NetChange; result: Deferred<string[] | null> }> = [];
  const actor = createActor(
    consoleNetworkMachine.provide({
      actors: {
        loadNets: fromPromise<MachineNetworks, { vmId: string }>(() => {
          const result = deferred<MachineNetworks>();
          loads.push(result);
          return result.promise;
        }),
        changeNet: fromPromise<string[] | null, NetChange>(({ input }) => {
          const result = deferred<string[] | null>();
          changes.push({ change: input, result });
          return result.promise;
        }),
      },
    }),
    { input: { vmId: 'vm-1' } },
  ).start();
  const send = (event: ConsoleNetworkEvent) => actor.send(event);
  const snapshot = () => actor.getSnapshot();
  const made = <T>(call: Deferred<T> | undefined): Deferred<T> => {
    if (call === undefined) throw new Error('the call was not made');
    return call;
  };
  const answer = async <T>(call: Deferred<T> | undefined, value: T) => {
    made(call).resolve(value);
    await flush();
  };
  const refuse = async <T>(call: Deferred<T> | undefined, reason: unknown) => {
    made(call).reject(reason);
    await flush();
  };
  return { actor, loads, changes, send, snapshot, answer, refuse };
}

describe('consoleNetworkMachine', () => {
  it('offers one switch per NIC of its machine, each on its current network, once loaded', async () => {
    const t = startNetwork();
    expect(selectHasNetworks(t.snapshot())).toBe(false);
    await t.answer(t.loads[0], REPORTED);
    expect(selectHasNetworks(t.snapshot())).toBe(true);
    expect(selectNets(t.snapshot())).toEqual(NETS);
    expect(selectNicNets(t.snapshot())).toEqual(['lan#ws-1', '']);
  });

  it('offers NIC 1 to 3 on unknown networks when the server does not report the NICs', async () => {
    const t = startNetwork();
    await t.answer(t.loads[0], UNREPORTED);
    expect(selectNicNets(t.snapshot())).toEqual(Array.from({ length: NIC_COUNT }, () => ''));
  });

  it('shows the NICs as the server reports them after a change', async () => {
    const t = startNetwork();
    await t.answer(t.loads[0], REPORTED);
    t.send({ type: 'console.netChangeRequested', nic: 1, net: 'bridge-net' });
    expect(t.changes.map((c) => c.change)).toEqual([{ vmId: 'vm-1', nic: 1, net: 'bridge-net' }]);
    // The server says where every NIC is now (here another change moved the first as well).
    await t.answer(t.changes[0]?.result, ['bridge-net', 'bridge-net']);
    expect(selectNicNets(t.snapshot())).toEqual(['bridge-net', 'bridge-net']);
    // No third NIC on this machine: nothing to send.
    t.send({ type: 'console.netChangeRequested', nic: 2, net: 'lan#ws-1' });
    expect(t.changes).toHaveLength(1);
  });

  it('moves one NIC at a time and remembers where it went once the server agreed', async () => {
    const t = startNetwork();
    await t.answer(t.loads[0], UNREPORTED);
    t.send({ type: 'console.netChangeRequested', nic: 2, net: 'lan#ws-1' });
    t.send({ type: 'console.netChangeRequested', nic: 0, net: 'bridge-net' });
    expect(selectIsChangingNet(t.snapshot())).toBe(true);
    expect(t.changes.map((c) => c.change)).toEqual([{ vmId: 'vm-1', nic: 2, net: 'lan#ws-1' }]);
    expect(selectNicNets(t.snapshot())).toEqual(['', '', '']);

    await t.answer(t.changes[0]?.result, null);
    expect(selectIsChangingNet(t.snapshot())).toBe(false);
    expect(selectNicNets(t.snapshot())).toEqual(['', '', 'lan#ws-1']);
  });

  it('sends nothing for a network it does not list or a NIC it does not offer', async () => {
    const t = startNetwork();
    await t.answer(t.loads[0], UNREPORTED);
    t.send({ type: 'console.netChangeRequested', nic: 0, net: 'elsewhere' });
    t.send({ type: 'console.netChangeRequested', nic: -1, net: 'lan#ws-1' });
    t.send({ type: 'console.netChangeRequested', nic: NIC_COUNT, net: 'lan#ws-1' });
    expect(t.changes).toEqual([]);
  });

  it('shows a refused change until dismissed or until a change succeeds', async () => {
    const t = startNetwork();
    await t.answer(t.loads[0], UNREPORTED);
    t.send({ type: 'console.netChangeRequested', nic: 1, net: 'bridge-net' });
    await t.refuse(t.changes[0]?.result, { status: 400, message: 'InvalidOperation' });
    expect(selectNetworkError(t.snapshot())).toBe('This cannot be done.');
    t.send({ type: 'console.networkErrorDismissed' });
    expect(selectNetworkError(t.snapshot())).toBeNull();

    t.send({ type: 'console.netChangeRequested', nic: 1, net: 'bridge-net' });
    await t.refuse(t.changes[1]?.result, new Error('Forbidden'));
    t.send({ type: 'console.netChangeRequested', nic: 1, net: 'bridge-net' });
    await t.answer(t.changes[2]?.result, null);
    expect(selectNetworkError(t.snapshot())).toBeNull();
    expect(selectNicNets(t.snapshot())).toEqual(['', 'bridge-net', '']);
  });

  it('offers no switcher when the networks cannot be read', async () => {
    const t = startNetwork();
    await t.refuse(t.loads[0], new Error('Forbidden'));
    expect(selectHasNetworks(t.snapshot())).toBe(false);
    t.send({ type: 'console.netChangeRequested', nic: 0, net: 'bridge-net' });
    expect(t.changes).toEqual([]);
  });

  it("names each network without the lab's isolation tag, unless two would read alike", () => {
    const tag = '0a523b7e083841c4bb2f9dcf101c2355';
    const nets = [`lan#${tag}`, `dmz#${tag}`, 'bridge-net'];
    expect(nets.map((net) => netLabel(net, nets))).toEqual(['lan', 'dmz', 'bridge-net']);
    const clash = [`lan#${tag}`, 'lan#other'];
    expect(clash.map((net) => netLabel(net, clash))).toEqual(clash);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(consoleNetworkMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ vmId: 'vm-1' }],
        payloads: [
          { type: 'xstate.done.actor.loadNets', output: { nets: ['lan'], nics: ['lan'] } },
          { type: 'console.netChangeRequested', nic: 0, net: 'lan' },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the switcher as the console's toolbar shows it, an abstract machine whose
 * shortest paths over every transition drive the real actor, each call answered by the step that
 * names its outcome.
 */
describe('consoleNetworkMachine against the switcher model', () => {
  type ModelEvent =
    | { type: 'LOADED' }
    | { type: 'LOAD_FAILED' }
    | { type: 'CHANGE' }
    | { type: 'CHANGE_UNLISTED' }
    | { type: 'CHANGED' }
    | { type: 'REFUSED' }
    | { type: 'DISMISS' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'networkModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'ready', LOAD_FAILED: 'unavailable' } },
      ready: { on: { CHANGE: 'changing', CHANGE_UNLISTED: 'ready', DISMISS: 'ready' } },
      changing: { on: { CHANGED: 'ready', REFUSED: 'refused' } },
      // A refusal shows until dismissed or until a change succeeds.
      refused: { on: { CHANGE: 'retrying', CHANGE_UNLISTED: 'refused', DISMISS: 'ready' } },
      retrying: { on: { CHANGED: 'ready', REFUSED: 'refused' } },
      unavailable: { on: { CHANGE: 'unavailable' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, consoleNetworkMachine, {
        states: {
          loading: 'loading',
          ready: 'ready',
          changing: 'changing',
          refused: 'ready',
          retrying: 'changing',
          unavailable: 'unavailable',
        },
        events: {
          LOADED: 'xstate.done.actor.loadNets',
          LOAD_FAILED: 'xstate.error.actor.loadNets',
          CHANGE: 'console.netChangeRequested',
          CHANGE_UNLISTED: 'console.netChangeRequested',
          CHANGED: 'xstate.done.actor.changeNet',
          REFUSED: 'xstate.error.actor.changeNet',
          DISMISS: 'console.networkErrorDismissed',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const t = startNetwork();
      // Where the NIC moved last, as the server agreed.
      let moved = '';
      const expectSwitcher = (offered: boolean, changing: boolean, refused: boolean) => {
        expect(selectHasNetworks(t.snapshot())).toBe(offered);
        expect(selectIsChangingNet(t.snapshot())).toBe(changing);
        expect(selectNetworkError(t.snapshot()) !== null).toBe(refused);
        // The NICs are known with the networks: none before, NIC 1..3 after (not reported).
        expect(selectNicNets(t.snapshot())).toEqual(offered ? ['', moved, ''] : []);
      };

      await path.test({
        states: {
          loading: () => expectSwitcher(false, false, false),
          ready: () => expectSwitcher(true, false, false),
          changing: () => expectSwitcher(true, true, false),
          refused: () => expectSwitcher(true, false, true),
          retrying: () => expectSwitcher(true, true, true),
          unavailable: () => expectSwitcher(false, false, false),
        },
        events: {
          LOADED: () => t.answer(t.loads[0], UNREPORTED),
          LOAD_FAILED: () => t.refuse(t.loads[0], new Error('Forbidden')),
          CHANGE: async () => {
            const calls = t.changes.length;
            const net = moved === 'lan#ws-1' ? 'bridge-net' : 'lan#ws-1';
            t.send({ type: 'console.netChangeRequested', nic: 1, net });
            const offeredNow = t.snapshot().matches('changing');
            expect(t.changes).toHaveLength(offeredNow ? calls + 1 : calls);
          },
          CHANGE_UNLISTED: () => {
            const calls = t.changes.length;
            t.send({ type: 'console.netChangeRequested', nic: 1, net: 'elsewhere' });
            expect(t.changes).toHaveLength(calls);
          },
          CHANGED: async () => {
            const change = t.changes.at(-1);
            await t.answer(change?.result, null);
            moved = change?.change.net ?? moved;
          },
          REFUSED: () => t.refuse(t.changes.at(-1)?.result, new Error('InvalidOperation')),
          DISMISS: () => void t.send({ type: 'console.networkErrorDismissed' }),
        },
      });
    });
  }
});

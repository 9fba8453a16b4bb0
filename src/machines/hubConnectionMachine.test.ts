import { describe, expect, it } from 'vitest';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import {
  createActor,
  createMachine,
  fromCallback,
  fromPromise,
  SimulatedClock,
  type EventObject,
} from 'xstate';
import { hubChannelMachine } from './hubChannelMachine';
import { hubConnectorMachine } from './hubConnectorMachine';
import {
  hubConnectionMachine,
  INITIAL_RETRY_MS,
  RECONNECT_DELAYS_MS,
  REJOIN_RETRY_MS,
  type HubConnectionEvent,
  type HubConnectionState,
  type HubInvocation,
} from './hubConnectionMachine';
import {
  selectHubAttempt,
  selectHubChannels,
  selectHubLastError,
  selectHubState,
  selectIsChannelJoined,
  selectIsHubConnected,
  selectIsHubInitialized,
} from './hubConnectionMachine.selectors';
import { hubOutboxMachine } from './hubOutboxMachine';
import { modelDisagreements } from './testing/modelAgreement';
import { unreachedStateIds } from './testing/reachability';

/** Settles promise actors: their results arrive on the microtask queue. */
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

interface Call<T> {
  /** What went on the wire, as `Method(args)@connection`. */
  label: string;
  result: Deferred<T>;
}

/**
 * The machine over a simulated server: every connection attempt, join, invocation and close is a
 * deferred the test settles, and every call is recorded in the order it was made (`wire`), which
 * is the order the SignalR client would write it to the socket.
 */
function startHub() {
  const clock = new SimulatedClock();
  const wire: string[] = [];
  const opens: Array<{ at: number; result: Deferred<string>; aborted: () => boolean }> = [];
  const joins: Array<Call<void>> = [];
  const invocations: Array<Call<unknown>> = [];
  const closes: Array<Call<void>> = [];
  const watchers = new Map<string, (event: HubConnectionEvent) => void>();

  const machine = hubConnectionMachine.provide({
    actors: {
      connector: hubConnectorMachine.provide({
        actors: {
          openConnection: fromPromise<string, void>(({ signal }) => {
            const result = deferred<string>();
            opens.push({ at: clock.now(), result, aborted: () => signal.aborted });
            wire.push('open');
            return result.promise;
          }),
        },
      }),
      watchConnection: fromCallback<EventObject, { connectionId: string }>(
        ({ input, sendBack }) => {
          watchers.set(input.connectionId, sendBack);
          return () => watchers.delete(input.connectionId);
        },
      ),
      closeConnection: fromPromise<void, { connectionId: string }>(({ input }) => {
        const result = deferred<void>();
        const label = `close@${input.connectionId}`;
        closes.push({ label, result });
        wire.push(label);
        return result.promise;
      }),
      outbox: hubOutboxMachine.provide({
        actors: {
          invoke: fromPromise<unknown, HubInvocation & { connectionId: string }>(({ input }) => {
            const result = deferred<unknown>();
            const label = `${input.method}(${input.args.join(',')})@${input.connectionId}`;
            invocations.push({ label, result });
            wire.push(label);
            return result.promise;
          }),
        },
      }),
      hubChannel: hubChannelMachine.provide({
        actors: {
          joinChannel: fromPromise<void, { connectionId: string; channelId: string }>(
            ({ input }) => {
              const result = deferred<void>();
              const label = `Listen(${input.channelId})@${input.connectionId}`;
              joins.push({ label, result });
              wire.push(label);
              return result.promise;
            },
          ),
        },
      }),
    },
  });

  const actor = createActor(machine, { clock }).start();
  const snapshot = () => actor.getSnapshot();
  const state = (): HubConnectionState => selectHubState(snapshot());
  /** What waits to be sent, the one in flight first (the outbox child's queue). */
  const outbox = () => snapshot().children.outbox?.getSnapshot().context.outbox;
  const lastOpen = () => {
    const open = opens.at(-1);
    if (open === undefined) throw new Error('no connection attempt was made');
    return open;
  };

  return {
    actor,
    clock,
    wire,
    opens,
    joins,
    invocations,
    closes,
    watchers,
    snapshot,
    state,
    outbox,
    send: (event: HubConnectionEvent) => actor.send(event),
    /** The pending attempt succeeds with connection `id`. */
    async connect(id: string) {
      lastOpen().result.resolve(id);
      await flush();
    },
    /** The pending attempt fails. */
    async failAttempt(message = 'WebSocket failed to connect.') {
      lastOpen().result.reject(new Error(message));
      await flush();
    },
    /** The server goes away from under connection `id`. */
    lose(id: string) {
      const watcher = watchers.get(id);
      if (watcher === undefined) throw new Error(`connection ${id} is not watched`);
      watcher({ type: 'hub.connectionLost', error: 'WebSocket closed with status code: 1006 ().' });
    },
    /** Starts and connects with `id`. */
    async started(id = 'c1') {
      actor.send({ type: 'hub.startRequested' });
      lastOpen().result.resolve(id);
      await flush();
    },
  };
}

const settle = async <T>(call: Call<T> | undefined, value: T) => {
  if (call === undefined) throw new Error('no such call');
  call.result.resolve(value);
  await flush();
};

const fail = async <T>(call: Call<T> | undefined, message: string) => {
  if (call === undefined) throw new Error('no such call');
  call.result.reject(new Error(message));
  await flush();
};

describe('hubConnectionMachine', () => {
  describe('connecting', () => {
    it('stays disconnected and uninitialized, making no attempt, until a start is requested', () => {
      const hub = startHub();
      expect(hub.state()).toBe('disconnected');
      expect(selectIsHubInitialized(hub.snapshot())).toBe(false);
      hub.clock.increment(INITIAL_RETRY_MS * 10);
      expect(hub.opens).toHaveLength(0);
    });

    it('connects on start: connecting, then connected with the connection watched', async () => {
      const hub = startHub();
      hub.send({ type: 'hub.startRequested' });
      expect(hub.state()).toBe('connecting');
      expect(selectIsHubConnected(hub.snapshot())).toBe(false);
      expect(hub.opens).toHaveLength(1);

      await hub.connect('c1');
      expect(hub.state()).toBe('connected');
      expect(selectIsHubConnected(hub.snapshot())).toBe(true);
      expect(selectIsHubInitialized(hub.snapshot())).toBe(true);
      expect(hub.snapshot().context.connectionId).toBe('c1');
      expect([...hub.watchers.keys()]).toEqual(['c1']);
    });

    it('is not initialized while the first attempt is under way, so the banner does not flash', () => {
      const hub = startHub();
      hub.send({ type: 'hub.startRequested' });
      expect(selectIsHubInitialized(hub.snapshot())).toBe(false);
    });

    it('retries a failed first connection after INITIAL_RETRY_MS, with a new attempt each time', async () => {
      const hub = startHub();
      hub.send({ type: 'hub.startRequested' });
      await hub.failAttempt();
      expect(hub.state()).toBe('connecting');
      expect(selectIsHubInitialized(hub.snapshot())).toBe(true);
      expect(selectHubAttempt(hub.snapshot())).toBe(1);
      expect(selectHubLastError(hub.snapshot())).toBe('WebSocket failed to connect.');

      hub.clock.increment(INITIAL_RETRY_MS - 1);
      expect(hub.opens).toHaveLength(1);
      hub.clock.increment(1);
      expect(hub.opens).toHaveLength(2);

      await hub.failAttempt();
      hub.clock.increment(INITIAL_RETRY_MS);
      expect(hub.opens.map((open) => open.at)).toEqual([0, INITIAL_RETRY_MS, 2 * INITIAL_RETRY_MS]);

      await hub.connect('c1');
      expect(hub.state()).toBe('connected');
      expect(selectHubAttempt(hub.snapshot())).toBe(0);
    });

    it('starts only from disconnected: start is ignored while connecting, connected or reconnecting', async () => {
      const hub = startHub();
      hub.send({ type: 'hub.startRequested' });
      hub.send({ type: 'hub.startRequested' });
      expect(hub.opens).toHaveLength(1);

      await hub.connect('c1');
      hub.send({ type: 'hub.startRequested' });
      expect(hub.state()).toBe('connected');
      expect(hub.opens).toHaveLength(1);

      hub.lose('c1');
      hub.send({ type: 'hub.startRequested' });
      expect(hub.state()).toBe('reconnecting');
      expect(hub.opens).toHaveLength(1);
    });
  });

  describe('stopping', () => {
    it('closes the connection: disconnecting until it has closed, then disconnected', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.send({ type: 'hub.stopRequested' });
      expect(hub.state()).toBe('disconnecting');
      expect(hub.closes.map((close) => close.label)).toEqual(['close@c1']);
      expect(hub.watchers.size).toBe(0);

      await settle(hub.closes[0], undefined);
      expect(hub.state()).toBe('disconnected');
      expect(hub.snapshot().context.connectionId).toBeNull();
    });

    it('ignores stop when disconnected', () => {
      const hub = startHub();
      hub.send({ type: 'hub.stopRequested' });
      expect(hub.state()).toBe('disconnected');
      expect(hub.closes).toHaveLength(0);
    });

    it('ignores stop and start while disconnecting', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.send({ type: 'hub.stopRequested' });
      hub.send({ type: 'hub.stopRequested' });
      hub.send({ type: 'hub.startRequested' });
      expect(hub.state()).toBe('disconnecting');
      expect(hub.closes).toHaveLength(1);
      expect(hub.opens).toHaveLength(1);
    });

    it('ends up disconnected even when closing fails', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.send({ type: 'hub.stopRequested' });
      await fail(hub.closes[0], 'already closed');
      expect(hub.state()).toBe('disconnected');
    });

    it('abandons an attempt in flight when stopped while connecting', () => {
      const hub = startHub();
      hub.send({ type: 'hub.startRequested' });
      hub.send({ type: 'hub.stopRequested' });
      expect(hub.state()).toBe('disconnected');
      expect(hub.opens[0]?.aborted()).toBe(true);
      hub.clock.increment(INITIAL_RETRY_MS);
      expect(hub.opens).toHaveLength(1);
    });

    it('stops reconnecting when stopped while reconnecting', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.lose('c1');
      hub.send({ type: 'hub.stopRequested' });
      expect(hub.state()).toBe('disconnected');
      hub.clock.increment(RECONNECT_DELAYS_MS.reduce((a, b) => a + b, 0));
      expect(hub.opens).toHaveLength(1);
    });

    it('can start again once disconnected', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.send({ type: 'hub.stopRequested' });
      await settle(hub.closes[0], undefined);
      await hub.started('c2');
      expect(hub.state()).toBe('connected');
      expect(hub.snapshot().context.connectionId).toBe('c2');
    });
  });

  describe('reconnecting', () => {
    it('follows the spec schedule: 1, 2, 3 s, then 5 s, 14 attempts in all', () => {
      expect(RECONNECT_DELAYS_MS).toEqual([
        1000, 2000, 3000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000,
      ]);
    });

    it('reconnects after a lost connection with a new connection per attempt', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.lose('c1');
      expect(hub.state()).toBe('reconnecting');
      expect(selectIsHubConnected(hub.snapshot())).toBe(false);
      expect(selectIsHubInitialized(hub.snapshot())).toBe(true);
      expect(selectHubLastError(hub.snapshot())).toBe(
        'WebSocket closed with status code: 1006 ().',
      );

      hub.clock.increment((RECONNECT_DELAYS_MS[0] as number) - 1);
      expect(hub.opens).toHaveLength(1);
      hub.clock.increment(1);
      expect(hub.opens).toHaveLength(2);

      await hub.connect('c2');
      expect(hub.state()).toBe('connected');
      expect(hub.snapshot().context.connectionId).toBe('c2');
      expect([...hub.watchers.keys()]).toEqual(['c2']);
      expect(selectHubAttempt(hub.snapshot())).toBe(0);
    });

    it('waits each delay of the schedule in turn, gives up after the last and stays initialized', async () => {
      const hub = startHub();
      await hub.started('c1');
      const lostAt = hub.clock.now();
      hub.lose('c1');

      for (const [i, delay] of RECONNECT_DELAYS_MS.entries()) {
        const attempts = hub.opens.length;
        hub.clock.increment(delay - 1);
        expect(hub.opens, `attempt ${i + 1} is not made before ${delay} ms`).toHaveLength(attempts);
        hub.clock.increment(1);
        expect(hub.opens, `attempt ${i + 1} is made after ${delay} ms`).toHaveLength(attempts + 1);
        expect(hub.state()).toBe('reconnecting');
        await hub.failAttempt();
      }

      const times = hub.opens.slice(1).map((open) => open.at - lostAt);
      let elapsed = 0;
      expect(times).toEqual(RECONNECT_DELAYS_MS.map((delay) => (elapsed += delay)));
      expect(hub.state()).toBe('disconnected');
      expect(selectIsHubInitialized(hub.snapshot())).toBe(true);

      hub.clock.increment(60 * 60_000);
      expect(hub.opens).toHaveLength(1 + RECONNECT_DELAYS_MS.length);
    });

    it('starts the schedule again from the first delay after each reconnection', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.lose('c1');
      hub.clock.increment(RECONNECT_DELAYS_MS[0] as number);
      await hub.failAttempt();
      hub.clock.increment(RECONNECT_DELAYS_MS[1] as number);
      await hub.connect('c2');

      hub.lose('c2');
      const lostAt = hub.clock.now();
      hub.clock.increment(RECONNECT_DELAYS_MS[0] as number);
      expect(hub.opens.at(-1)?.at).toBe(lostAt + (RECONNECT_DELAYS_MS[0] as number));
    });

    it('ignores a loss reported after the connection was replaced', async () => {
      const hub = startHub();
      await hub.started('c1');
      const staleWatcher = hub.watchers.get('c1');
      hub.lose('c1');
      hub.clock.increment(RECONNECT_DELAYS_MS[0] as number);
      await hub.connect('c2');
      staleWatcher?.({ type: 'hub.connectionLost', error: null });
      // The callback of a stopped watcher is not the current connection's: only c2 is watched.
      expect([...hub.watchers.keys()]).toEqual(['c2']);
    });
  });

  describe('channels', () => {
    it('keeps channels asked for while disconnected and joins them once connected', async () => {
      const hub = startHub();
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-2' });
      expect(selectHubChannels(hub.snapshot())).toEqual({
        'ws-1': { joined: false, listeners: 1 },
        'ws-2': { joined: false, listeners: 1 },
      });
      expect(hub.joins).toHaveLength(0);

      await hub.started('c1');
      expect(hub.joins.map((join) => join.label)).toEqual(['Listen(ws-1)@c1', 'Listen(ws-2)@c1']);
      expect(Object.keys(hub.snapshot().children).filter((id) => id.startsWith('join:'))).toEqual([
        'join:ws-1',
        'join:ws-2',
      ]);

      await settle(hub.joins[0], undefined);
      expect(selectIsChannelJoined('ws-1')(hub.snapshot())).toBe(true);
      expect(selectIsChannelJoined('ws-2')(hub.snapshot())).toBe(false);
    });

    it('joins a channel at once when connected, and only once however often it is asked for', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      expect(hub.joins.map((join) => join.label)).toEqual(['Listen(ws-1)@c1']);
      await settle(hub.joins[0], undefined);
      expect(selectIsChannelJoined('ws-1')(hub.snapshot())).toBe(true);
    });

    it('retries a failed join after REJOIN_RETRY_MS, each channel on its own', async () => {
      const hub = startHub();
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-2' });
      await hub.started('c1');
      await fail(hub.joins[0], 'ActionForbidden');
      expect(selectHubLastError(hub.snapshot())).toBe('You are not allowed to do this.');
      await settle(hub.joins[1], undefined);

      hub.clock.increment(REJOIN_RETRY_MS - 1);
      expect(hub.joins).toHaveLength(2);
      hub.clock.increment(1);
      expect(hub.joins.map((join) => join.label)).toEqual([
        'Listen(ws-1)@c1',
        'Listen(ws-2)@c1',
        'Listen(ws-1)@c1',
      ]);
      await settle(hub.joins[2], undefined);
      expect(selectHubChannels(hub.snapshot())).toEqual({
        'ws-1': { joined: true, listeners: 1 },
        'ws-2': { joined: true, listeners: 1 },
      });
    });

    it('leaves a channel: stops its join, sends Leave and forgets it', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      await fail(hub.joins[0], 'ActionForbidden');
      hub.send({ type: 'hub.leaveRequested', channelId: 'ws-1' });

      expect(selectHubChannels(hub.snapshot())).toEqual({});
      expect(hub.snapshot().children['join:ws-1']).toBeUndefined();
      expect(hub.invocations.map((call) => call.label)).toEqual(['Leave(ws-1)@c1']);
      hub.clock.increment(REJOIN_RETRY_MS * 5);
      expect(hub.joins).toHaveLength(1);
    });

    it('leaves a channel only when the last of its listeners leaves it', async () => {
      const hub = startHub();
      await hub.started('c1');
      // The help queue and a timeline listen on the same observe channel.
      hub.send({ type: 'hub.listenRequested', channelId: 'observe:w' });
      hub.send({ type: 'hub.listenRequested', channelId: 'observe:w' });
      await settle(hub.joins[0], undefined);
      expect(hub.joins).toHaveLength(1);

      hub.send({ type: 'hub.leaveRequested', channelId: 'observe:w' });
      expect(selectIsChannelJoined('observe:w')(hub.snapshot())).toBe(true);
      expect(hub.invocations).toEqual([]);

      hub.send({ type: 'hub.leaveRequested', channelId: 'observe:w' });
      expect(selectHubChannels(hub.snapshot())).toEqual({});
      expect(hub.invocations.map((call) => call.label)).toEqual(['Leave(observe:w)@c1']);
      // A leave too many changes nothing.
      hub.send({ type: 'hub.leaveRequested', channelId: 'observe:w' });
      expect(hub.invocations).toHaveLength(1);
    });

    it('keeps counting listeners across a reconnect', async () => {
      const hub = startHub();
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      await hub.started('c1');
      await settle(hub.joins[0], undefined);
      hub.lose('c1');
      hub.send({ type: 'hub.leaveRequested', channelId: 'ws-1' });
      expect(Object.keys(selectHubChannels(hub.snapshot()))).toEqual(['ws-1']);
    });

    it('forgets a channel left while disconnected without sending Leave to the next connection', async () => {
      const hub = startHub();
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      hub.send({ type: 'hub.leaveRequested', channelId: 'ws-1' });
      await hub.started('c1');
      expect(hub.wire).toEqual(['open']);
    });

    it('joins every channel again on the new connection after a reconnect', async () => {
      const hub = startHub();
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      await hub.started('c1');
      await settle(hub.joins[0], undefined);

      hub.lose('c1');
      expect(selectIsChannelJoined('ws-1')(hub.snapshot())).toBe(false);
      expect(hub.snapshot().children['join:ws-1']).toBeUndefined();

      hub.clock.increment(RECONNECT_DELAYS_MS[0] as number);
      await hub.connect('c2');
      expect(hub.joins.map((join) => join.label)).toEqual(['Listen(ws-1)@c1', 'Listen(ws-1)@c2']);
      await settle(hub.joins[1], undefined);
      expect(selectIsChannelJoined('ws-1')(hub.snapshot())).toBe(true);
    });

    it('stops a join that is still retrying when the connection is lost', async () => {
      const hub = startHub();
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      await hub.started('c1');
      await fail(hub.joins[0], 'ActionForbidden');
      hub.lose('c1');
      hub.clock.increment(REJOIN_RETRY_MS);
      expect(hub.joins).toHaveLength(1);
    });

    it('cancels a Leave not yet sent when the channel is listened to again', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.send({ type: 'hub.invokeRequested', method: 'Greet', args: ['ws-9'] });
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      hub.send({ type: 'hub.leaveRequested', channelId: 'ws-1' });
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      await settle(hub.invocations[0], undefined);

      // Sending the Leave after the second Listen would leave the channel the view is back on.
      expect(hub.wire).toEqual(['open', 'Greet(ws-9)@c1', 'Listen(ws-1)@c1', 'Listen(ws-1)@c1']);
      expect(selectHubChannels(hub.snapshot())).toEqual({
        'ws-1': { joined: false, listeners: 1 },
      });
    });
  });

  describe('invocations', () => {
    it('sends at once while connected, one at a time in the order requested', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.send({ type: 'hub.invokeRequested', method: 'Greet', args: ['ws-1'] });
      hub.send({ type: 'hub.invokeRequested', method: 'Edited', args: ['ws-1', 'a'] });
      expect(hub.invocations.map((call) => call.label)).toEqual(['Greet(ws-1)@c1']);

      await settle(hub.invocations[0], undefined);
      expect(hub.invocations.map((call) => call.label)).toEqual([
        'Greet(ws-1)@c1',
        'Edited(ws-1,a)@c1',
      ]);
      await settle(hub.invocations[1], undefined);
      expect(hub.outbox()).toEqual([]);
    });

    it('buffers invocations while not connected and sends them in order after the joins', async () => {
      const hub = startHub();
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      hub.send({ type: 'hub.invokeRequested', method: 'Greet', args: ['ws-1'] });
      hub.send({ type: 'hub.startRequested' });
      hub.send({ type: 'hub.invokeRequested', method: 'Edited', args: ['ws-1', 'a'] });
      hub.send({ type: 'hub.invokeRequested', method: 'CursorChanged', args: ['ws-1', 'b'] });
      expect(hub.outbox()).toHaveLength(3);
      expect(hub.invocations).toHaveLength(0);

      await hub.connect('c1');
      await settle(hub.invocations[0], undefined);
      await settle(hub.invocations[1], undefined);
      await settle(hub.invocations[2], undefined);
      expect(hub.wire).toEqual([
        'open',
        'Listen(ws-1)@c1',
        'Greet(ws-1)@c1',
        'Edited(ws-1,a)@c1',
        'CursorChanged(ws-1,b)@c1',
      ]);
      expect(hub.outbox()).toEqual([]);
    });

    it('buffers while reconnecting and flushes on the new connection', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.lose('c1');
      hub.send({ type: 'hub.invokeRequested', method: 'Greet', args: ['ws-1'] });
      hub.send({ type: 'hub.invokeRequested', method: 'Edited', args: ['ws-1', 'x'] });
      expect(hub.invocations).toHaveLength(0);

      hub.clock.increment(RECONNECT_DELAYS_MS[0] as number);
      await hub.connect('c2');
      await settle(hub.invocations[0], undefined);
      expect(hub.invocations.map((call) => call.label)).toEqual([
        'Greet(ws-1)@c2',
        'Edited(ws-1,x)@c2',
      ]);
    });

    it('logs a refused invocation, drops it and goes on with the next', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.send({ type: 'hub.invokeRequested', method: 'Greet', args: ['ws-1'] });
      hub.send({ type: 'hub.invokeRequested', method: 'Greet', args: ['ws-2'] });
      await fail(hub.invocations[0], 'ActionForbidden');
      expect(selectHubLastError(hub.snapshot())).toBe('You are not allowed to do this.');
      expect(hub.invocations.map((call) => call.label)).toEqual([
        'Greet(ws-1)@c1',
        'Greet(ws-2)@c1',
      ]);
    });

    it('sends an invocation at most once: the one in flight when the connection drops is not resent', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.send({ type: 'hub.invokeRequested', method: 'Edited', args: ['ws-1', 'a'] });
      hub.send({ type: 'hub.invokeRequested', method: 'Edited', args: ['ws-1', 'b'] });
      hub.lose('c1');
      expect(hub.outbox()).toEqual([{ method: 'Edited', args: ['ws-1', 'b'] }]);

      hub.clock.increment(RECONNECT_DELAYS_MS[0] as number);
      await hub.connect('c2');
      expect(hub.invocations.map((call) => call.label)).toEqual([
        'Edited(ws-1,a)@c1',
        'Edited(ws-1,b)@c2',
      ]);
    });

    it('drops an unsent Leave when the connection drops: the server left the group with it', async () => {
      const hub = startHub();
      await hub.started('c1');
      hub.send({ type: 'hub.invokeRequested', method: 'Greet', args: ['ws-2'] });
      hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
      hub.send({ type: 'hub.leaveRequested', channelId: 'ws-1' });
      hub.lose('c1');
      expect(hub.outbox()).toEqual([]);
    });

    it('discards what is buffered when the session stops', async () => {
      const hub = startHub();
      hub.send({ type: 'hub.startRequested' });
      hub.send({ type: 'hub.invokeRequested', method: 'Greet', args: ['ws-1'] });
      hub.send({ type: 'hub.stopRequested' });
      expect(hub.outbox()).toEqual([]);
      await hub.started('c2');
      expect(hub.invocations).toHaveLength(0);
    });
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(hubConnectionMachine, {
        // The state; channels, counters and ids are abstracted.
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the spec's connection rules (§4, §7) as an abstract machine without timers
 * or effects, whose shortest paths over every transition drive the real actor through a
 * simulated server, asserting its state, tags and the banner's inputs after each step.
 */
describe('hubConnectionMachine against the spec model', () => {
  type ModelEvent =
    | { type: 'START' }
    | { type: 'STOP' }
    | { type: 'OPENED' }
    | { type: 'OPEN_FAILED' }
    | { type: 'LOST' }
    | { type: 'CLOSED' }
    | { type: 'GAVE_UP' };

  // Self-loops are events the actor must ignore, or retries that keep the state.
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'hubModel',
    initial: 'disconnected',
    states: {
      disconnected: { on: { START: 'connecting', STOP: 'disconnected' } },
      connecting: {
        on: {
          OPENED: 'connected',
          OPEN_FAILED: 'connecting',
          STOP: 'disconnected',
          START: 'connecting',
        },
      },
      connected: { on: { LOST: 'reconnecting', STOP: 'disconnecting', START: 'connected' } },
      disconnecting: {
        on: { CLOSED: 'disconnected', STOP: 'disconnecting', START: 'disconnecting' },
      },
      reconnecting: {
        on: {
          OPENED: 'connected',
          OPEN_FAILED: 'reconnecting',
          GAVE_UP: 'disconnected',
          STOP: 'disconnected',
          START: 'reconnecting',
        },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, hubConnectionMachine, {
        states: {
          disconnected: 'disconnected',
          connecting: 'connecting',
          connected: 'connected',
          disconnecting: 'disconnecting',
          reconnecting: 'reconnecting',
        },
        events: {
          START: 'hub.startRequested',
          STOP: 'hub.stopRequested',
          OPENED: 'hub.opened',
          OPEN_FAILED: 'hub.attemptFailed',
          LOST: 'hub.connectionLost',
          CLOSED: 'xstate.done.actor.closeConnection',
          GAVE_UP: 'hub.gaveUp',
        },
        // Channels and invocations do not move the connection: the tests above cover them.
        unmodelledEvents: [
          'hub.listenRequested',
          'hub.leaveRequested',
          'hub.invokeRequested',
          'hub.channelJoined',
          'hub.channelJoinFailed',
          'hub.invocationFailed',
        ],
      }),
    ).toEqual([]);
  });

  // Every transition of the model, self-loops included, is a step of some path.
  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const hub = startHub();
      let connections = 0;
      let everConnected = false;

      const expectState = (state: HubConnectionState) => () => {
        const snapshot = hub.actor.getSnapshot();
        expect(selectHubState(snapshot)).toBe(state);
        expect(selectIsHubConnected(snapshot)).toBe(state === 'connected');
        if (state === 'connected') expect(selectIsHubInitialized(snapshot)).toBe(true);
      };

      /** Makes the attempt the real actor is about to make, when it waits for a delay first. */
      const reachAttempt = () => {
        const snapshot = hub.actor.getSnapshot();
        if (!snapshot.children.connector?.getSnapshot().matches('waiting')) return;
        if (snapshot.matches('connecting')) hub.clock.increment(INITIAL_RETRY_MS);
        if (snapshot.matches('reconnecting')) {
          hub.clock.increment(RECONNECT_DELAYS_MS[selectHubAttempt(snapshot)] as number);
        }
      };

      await path.test({
        states: {
          disconnected: expectState('disconnected'),
          connecting: expectState('connecting'),
          connected: expectState('connected'),
          disconnecting: expectState('disconnecting'),
          reconnecting: expectState('reconnecting'),
        },
        events: {
          START: () => hub.send({ type: 'hub.startRequested' }),
          STOP: () => hub.send({ type: 'hub.stopRequested' }),
          OPENED: async () => {
            reachAttempt();
            await hub.connect(`c${++connections}`);
            everConnected = true;
          },
          OPEN_FAILED: async () => {
            reachAttempt();
            await hub.failAttempt();
          },
          LOST: () => hub.lose(`c${connections}`),
          CLOSED: async () => settle(hub.closes.at(-1), undefined),
          GAVE_UP: async () => {
            while (hub.actor.getSnapshot().matches('reconnecting')) {
              reachAttempt();
              await hub.failAttempt();
            }
            expect(everConnected).toBe(true);
          },
        },
      });
    });
  }
});

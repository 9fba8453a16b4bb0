import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, type AnyActorLogic } from 'xstate';
import { hubConnectionMachine, RECONNECT_DELAYS_MS } from '../machines/hubConnectionMachine';
import { selectHubState, selectIsChannelJoined } from '../machines/hubConnectionMachine.selectors';
import { presenceEvents$ } from '../streams/hub';
import { createHubAdapter, hubUrl, type HubConnectionLike } from './hub';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A SignalR connection against a simulated server. */
class FakeConnection implements HubConnectionLike {
  state = 'Disconnected';
  ticket: string | null = null;
  readonly invocations: string[] = [];
  private readonly handlers = new Map<string, Array<(...args: unknown[]) => void>>();
  private readonly closed: Array<(error?: Error) => void> = [];

  constructor(
    private readonly accessTokenFactory: () => Promise<string>,
    private readonly refuse: boolean,
  ) {}

  async start() {
    this.state = 'Connecting';
    this.ticket = await this.accessTokenFactory();
    if (this.refuse) {
      this.state = 'Disconnected';
      throw new Error('WebSocket failed to connect.');
    }
    this.state = 'Connected';
  }

  async stop() {
    // Like SignalR, stopping reports the close to onclose callbacks.
    this.drop();
  }

  async invoke(method: string, ...args: unknown[]) {
    this.invocations.push(`${method}(${args.join(',')})`);
  }

  on(name: string, handler: (...args: unknown[]) => void) {
    const key = name.toLowerCase();
    this.handlers.set(key, [...(this.handlers.get(key) ?? []), handler]);
  }

  onclose(callback: (error?: Error) => void) {
    this.closed.push(callback);
  }

  /** The server calls a client method; SignalR matches its name case-insensitively. */
  serverSends(name: string, payload: unknown) {
    this.handlers.get(name.toLowerCase())?.forEach((handler) => handler(payload));
  }

  drop(error?: Error) {
    if (this.state === 'Disconnected') return;
    this.state = 'Disconnected';
    this.closed.forEach((callback) => callback(error));
  }
}

function startAdapter({ refuse = () => false }: { refuse?: (attempt: number) => boolean } = {}) {
  const connections: FakeConnection[] = [];
  const urls: string[] = [];
  let tickets = 0;
  const adapter = createHubAdapter({
    url: '/hub',
    ticket: async () => `ticket-${++tickets}`,
    build: async (url, accessTokenFactory) => {
      urls.push(url);
      const connection = new FakeConnection(accessTokenFactory, refuse(connections.length + 1));
      connections.push(connection);
      return connection;
    },
  });
  const clock = new SimulatedClock();
  const hub = createActor(hubConnectionMachine.provide(adapter.implementations), { clock }).start();
  const state = () => selectHubState(hub.getSnapshot());
  return { adapter, hub, clock, connections, urls, state };
}

describe('hubUrl', () => {
  it('is {apphost}hub, the SPA origin when the app host is empty, asking for batched presence', () => {
    expect(hubUrl('')).toBe('/hub?presence=batched');
    expect(hubUrl('https://topo.example')).toBe('https://topo.example/hub?presence=batched');
    expect(hubUrl('https://topo.example/base/')).toBe(
      'https://topo.example/base/hub?presence=batched',
    );
  });
});

describe('createHubAdapter', () => {
  it('connects with a fresh ticket on a new connection for every attempt', async () => {
    const { hub, clock, connections, urls, state } = startAdapter({
      refuse: (attempt) => attempt === 1,
    });
    hub.send({ type: 'hub.startRequested' });
    await flush();
    expect(state()).toBe('connecting');

    clock.increment(5_000);
    await flush();
    expect(state()).toBe('connected');
    expect(urls).toEqual(['/hub', '/hub']);
    expect(connections.map((connection) => connection.ticket)).toEqual(['ticket-1', 'ticket-2']);

    connections[1]?.drop(new Error('WebSocket closed with status code: 1006 ().'));
    expect(state()).toBe('reconnecting');
    clock.increment(RECONNECT_DELAYS_MS[0] as number);
    await flush();
    expect(state()).toBe('connected');
    expect(connections.map((connection) => connection.ticket)).toEqual([
      'ticket-1',
      'ticket-2',
      'ticket-3',
    ]);
  });

  it('joins channels and sends invocations on the connection the machine names', async () => {
    const { hub, connections } = startAdapter();
    hub.send({ type: 'hub.listenRequested', channelId: 'ws-1' });
    hub.send({ type: 'hub.invokeRequested', method: 'Greet', args: ['ws-1'] });
    hub.send({ type: 'hub.startRequested' });
    await flush();
    await flush();
    expect(connections[0]?.invocations).toEqual(['Listen(ws-1)', 'Greet(ws-1)']);
    expect(selectIsChannelJoined('ws-1')(hub.getSnapshot())).toBe(true);
  });

  it('forwards server events of every connection to the same subscribers, across reconnects', async () => {
    const { adapter, hub, clock, connections } = startAdapter();
    const seen: string[] = [];
    presenceEvents$(adapter.events).subscribe((event) => seen.push(event.type));
    hub.send({ type: 'hub.startRequested' });
    await flush();
    connections[0]?.serverSends('PresenceEvent', {
      action: 'PRESENCE.ARRIVED',
      actor: { id: 'u-1', name: 'Ada' },
    });

    connections[0]?.drop();
    clock.increment(RECONNECT_DELAYS_MS[0] as number);
    await flush();
    connections[1]?.serverSends('presenceevent', {
      action: 'PRESENCE.GREETED',
      actor: { id: 'u-1', name: 'Ada' },
    });
    expect(seen).toEqual(['presence.arrived', 'presence.greeted']);
  });

  it('stops the connection when the session stops, without reporting it as lost', async () => {
    const { hub, connections, state } = startAdapter();
    hub.send({ type: 'hub.startRequested' });
    await flush();
    hub.send({ type: 'hub.stopRequested' });
    await flush();
    expect(connections[0]?.state).toBe('Disconnected');
    expect(state()).toBe('disconnected');
  });

  it('stops a connection whose attempt was abandoned', async () => {
    const { hub, connections, state } = startAdapter();
    hub.send({ type: 'hub.startRequested' });
    hub.send({ type: 'hub.stopRequested' });
    await flush();
    await flush();
    expect(state()).toBe('disconnected');
    expect(connections[0]?.state).toBe('Disconnected');
  });

  it('refuses to invoke on a connection it does not hold', async () => {
    const { adapter } = startAdapter();
    // The outbox's invoke, as the adapter provides it.
    const invoke = adapter.implementations.actors?.outbox?.implementations.actors.invoke;
    expect(invoke).toBeDefined();
    const actor = createActor(invoke as AnyActorLogic, {
      input: { connectionId: 'nope', method: 'Greet', args: [] },
    });
    const settled = new Promise<unknown>((resolve) =>
      actor.subscribe({ error: resolve, complete: () => resolve(null) }),
    );
    actor.start();
    expect(String(await settled)).toContain(
      'Cannot send data if the connection is not in the Connected State',
    );
  });
});

describe('the hub adapter’s direct invocation', () => {
  it('invokes on the open connection and fails at once without one', async () => {
    const { adapter, hub, connections } = startAdapter();
    await expect(adapter.invoke('Edited', 'ws-1', { crdt: 'yjs', update: 'AA==' })).rejects.toThrow(
      'Cannot send data if the connection is not in the Connected State.',
    );
    hub.send({ type: 'hub.startRequested' });
    await flush();
    await adapter.invoke('Edited', 'ws-1', 'u');
    expect(connections[0]?.invocations).toEqual(['Edited(ws-1,u)']);
    connections[0]?.drop();
    await expect(adapter.invoke('Edited', 'ws-1', 'u')).rejects.toThrow();
  });
});

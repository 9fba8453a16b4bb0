import { filter, Subject, type Subscription } from 'rxjs';
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import { hubChannelMachine } from '../machines/hubChannelMachine';
import { hubConnectorMachine } from '../machines/hubConnectorMachine';
import type {
  HubConnectionEvent,
  HubInvocation,
  hubConnectionMachine,
} from '../machines/hubConnectionMachine';
import { hubOutboxMachine } from '../machines/hubOutboxMachine';
import { HUB_EVENT_NAMES, type HubEventHandler, type HubEventSource } from '../streams/hub';

/**
 * Asks the server for presence in the batched form: a snapshot of who is present when a channel
 * is joined, then changes at most twice a second, and no greetings (server/hub/presence.ts). The
 * reference server ignores it and sends per-member presence, which the SPA answers with greetings
 * as the reference UI does.
 */
export const BATCHED_PRESENCE_QUERY = 'presence=batched';

/** The hub endpoint from the app host (spec §7: `{apphost}hub`; '' means the SPA's origin). */
export function hubUrl(apphost: string): string {
  const host = apphost === '' ? '/' : apphost.endsWith('/') ? apphost : `${apphost}/`;
  return `${host}hub?${BATCHED_PRESENCE_QUERY}`;
}

/** What the adapter uses of @microsoft/signalr's HubConnection. */
export interface HubConnectionLike {
  /** 'Disconnected', 'Connecting', 'Connected', 'Disconnecting' or 'Reconnecting'. */
  readonly state: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  invoke(method: string, ...args: unknown[]): Promise<unknown>;
  on(name: string, handler: (...args: unknown[]) => void): void;
  onclose(callback: (error?: Error) => void): void;
}

/** Builds one connection; `accessTokenFactory` is called by the client when it connects. */
export type BuildConnection = (
  url: string,
  accessTokenFactory: () => Promise<string>,
) => Promise<HubConnectionLike>;

/**
 * A SignalR connection as the reference UI makes it (wire reference §3): WebSockets only, no
 * negotiation, the one-time ticket as access token. No automatic reconnect: the hubConnection
 * machine owns the schedule and asks for a new connection (and so a new ticket) for every
 * attempt. The client library is loaded on the first connection, which only a signed-in user
 * makes, so it stays out of the first page's download.
 */
export const buildSignalRConnection: BuildConnection = async (url, accessTokenFactory) => {
  const { HubConnectionBuilder, HttpTransportType, LogLevel } = await import('@microsoft/signalr');
  return new HubConnectionBuilder()
    .withUrl(url, {
      transport: HttpTransportType.WebSockets,
      skipNegotiation: true,
      accessTokenFactory,
    })
    .configureLogging(LogLevel.Warning)
    .build();
};

export interface HubAdapterOptions {
  url: string;
  /** Fetches a fresh one-time ticket (GET /api/user/ticket). */
  ticket: (signal: AbortSignal) => Promise<string>;
  build?: BuildConnection;
}

export type HubConnectionImplementations = Parameters<typeof hubConnectionMachine.provide>[0];

export interface HubAdapter {
  /** Server events of whichever connection is open: the hub streams' source. */
  events: HubEventSource;
  /** The hubConnection machine's effects over the connections this adapter holds. */
  implementations: HubConnectionImplementations;
  /**
   * Invokes a hub method on the open connection and resolves with the server's completion; fails
   * at once when none is connected. For calls whose caller must know the server has acted
   * (Edited: the document's update is stored before it is relayed); the others go through the
   * hubConnection machine's outbox.
   */
  invoke: (method: HubInvocation['method'], ...args: unknown[]) => Promise<unknown>;
}

const NOT_CONNECTED = 'Cannot send data if the connection is not in the Connected State.';

/**
 * The app's side of the hub: it builds the connections and keeps them, handing the machine only
 * an opaque id for each, and forwards every connection's server events into one stream that
 * outlives the connections, so subscribers need not resubscribe after a reconnect.
 */
export function createHubAdapter(options: HubAdapterOptions): HubAdapter {
  const { url, ticket, build = buildSignalRConnection } = options;
  const connections = new Map<string, HubConnectionLike>();
  let nextId = 1;

  // Event names are matched case-insensitively, as the SignalR client does.
  const received = new Subject<{ name: string; payload: unknown }>();
  const listeners = new Map<string, Map<HubEventHandler, Subscription>>();
  const events: HubEventSource = {
    on(name, handler) {
      const key = name.toLowerCase();
      const handlers = listeners.get(key) ?? new Map<HubEventHandler, Subscription>();
      listeners.set(key, handlers);
      if (handlers.has(handler)) return;
      handlers.set(
        handler,
        received
          .pipe(filter((event) => event.name === key))
          .subscribe((event) => handler(event.payload)),
      );
    },
    off(name, handler) {
      const handlers = listeners.get(name.toLowerCase());
      handlers?.get(handler)?.unsubscribe();
      handlers?.delete(handler);
    },
  };

  const connection = (connectionId: string): HubConnectionLike => {
    const found = connections.get(connectionId);
    if (found === undefined) throw new Error(NOT_CONNECTED);
    return found;
  };

  const invoke = (connectionId: string, { method, args }: HubInvocation) =>
    connection(connectionId).invoke(method, ...args);

  const invokeOpen = async (method: HubInvocation['method'], ...args: unknown[]) => {
    // The newest connection is the open one; older ones are closing or gone.
    const open = [...connections.values()].pop();
    if (open === undefined || open.state !== 'Connected') throw new Error(NOT_CONNECTED);
    return open.invoke(method, ...args);
  };

  return {
    events,
    invoke: invokeOpen,
    implementations: {
      actors: {
        connector: hubConnectorMachine.provide({
          actors: {
            openConnection: fromPromise<string, void>(async ({ signal }) => {
              const opened = await build(url, () => ticket(signal));
              if (signal.aborted) throw new Error('Connection attempt abandoned');
              for (const name of HUB_EVENT_NAMES) {
                const key = name.toLowerCase();
                opened.on(name, (payload) => received.next({ name: key, payload }));
              }
              // Leaving the attempt (stop requested) abandons it: nothing may stay connected.
              const abandon = () => void opened.stop();
              signal.addEventListener('abort', abandon);
              try {
                await opened.start();
              } finally {
                signal.removeEventListener('abort', abandon);
              }
              if (signal.aborted) {
                await opened.stop();
                throw new Error('Connection attempt abandoned');
              }
              const id = `connection-${nextId++}`;
              connections.set(id, opened);
              return id;
            }),
          },
        }),

        watchConnection: fromCallback<EventObject, { connectionId: string }>(
          ({ input, sendBack }) => {
            let watching = true;
            const lost = (error?: Error) => {
              connections.delete(input.connectionId);
              if (!watching) return;
              watching = false;
              const event: HubConnectionEvent = {
                type: 'hub.connectionLost',
                error: error?.message ?? null,
              };
              sendBack(event);
            };
            const watched = connections.get(input.connectionId);
            // Closed between starting and being watched: report it as any other loss.
            if (watched === undefined || watched.state === 'Disconnected') {
              queueMicrotask(() => lost());
            } else {
              watched.onclose(lost);
            }
            return () => {
              watching = false;
            };
          },
        ),

        closeConnection: fromPromise<void, { connectionId: string }>(async ({ input }) => {
          const closing = connections.get(input.connectionId);
          connections.delete(input.connectionId);
          await closing?.stop();
        }),

        outbox: hubOutboxMachine.provide({
          actors: {
            invoke: fromPromise<unknown, HubInvocation & { connectionId: string }>(({ input }) =>
              invoke(input.connectionId, input),
            ),
          },
        }),

        hubChannel: hubChannelMachine.provide({
          actors: {
            joinChannel: fromPromise<void, { connectionId: string; channelId: string }>(
              async ({ input }) => {
                await invoke(input.connectionId, { method: 'Listen', args: [input.channelId] });
              },
            ),
          },
        }),
      },
    },
  };
}

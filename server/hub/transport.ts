import type { RawData, WebSocket } from 'ws';
import type { Actor } from '../core/actor';
import type { ConnectionOptions, HubActor, HubMetrics } from './types';
import {
  CLOSE_RECONNECT,
  closeWithError,
  completionFrame,
  HANDSHAKE_OK,
  handshakeError,
  MessageType,
  parseHandshake,
  parseMessage,
  PING,
  ProtocolError,
  RECORD_SEPARATOR,
  type ClientMessage,
} from './protocol';

// The hub's connections and their transport (wire reference §3): it owns the WebSocket once it
// is upgraded, the SignalR handshake and framing, the coalesced writes, keep-alive and timeouts,
// closing, and each connection's state. It hands each invocation to the hub methods
// (server/hub/methods.ts) and writes the completion they return; it tells the channels
// (server/hub/channels.ts) when a connection ends.
// It must not know what a method does, what a group is, or who may do what: it never touches
// the groups or the backplane (it only keeps each connection's `groups` for the channels).

/** The server pings every connection this often (the SignalR default). */
export const KEEP_ALIVE_MS = 15_000;
/** A connection the client has not sent anything on for this long is dropped. */
export const CLIENT_TIMEOUT_MS = 30_000;
/** The largest message a client may send; `ws` closes the connection with 1009 above it. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
/** A client that stops reading is dropped once this much is queued for it. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/**
 * On shutdown, how long clients get to answer the close before their sockets are destroyed (part
 * of the server's own SHUTDOWN_GRACE_MS, which bounds the whole close).
 */
const CLIENT_CLOSE_WAIT_MS = 2_000;

/** A host name an agent may give: what a machine's name holds, and not too long. */
const AGENT_HOSTNAME = /^[\w.-]{1,64}$/;

export interface Connection {
  id: string;
  actor: Actor;
  user: HubActor;
  /** Presence in the batched form rather than the reference's per-member events. */
  batched: boolean;
  /** The host an agent connection said it runs on (ConnectionOptions.hostname). */
  hostname: string | null;
  socket: WebSocket;
  /** The groups it listens on; the channels (server/hub/channels.ts) keep it. */
  groups: Set<string>;
  handshaken: boolean;
  /** False once the hub has decided to close it or it has closed: nothing more is processed. */
  open: boolean;
  lastSeen: number;
  nextPing: number;
  /** The start of a message whose separator has not arrived yet. */
  pending: string;
  /** Invocations of one connection run one after another, as in ASP.NET Core. */
  queue: Promise<void>;
  /** Frames written during this turn of the event loop, sent together as one WebSocket frame. */
  outbox: Buffer | Buffer[] | null;
}

/** What a hub method's invocation came to: the completion's `error` text, if it failed. */
export interface Outcome {
  error?: string;
}

export interface TransportOptions {
  keepAliveMs?: number;
  clientTimeoutMs?: number;
  metrics?: Pick<HubMetrics, 'connected' | 'disconnected' | 'received'>;
  /** Runs one invocation of a hub method; never rejects. */
  invoke(conn: Connection, target: string, args: unknown[]): Promise<Outcome>;
  /** The connection has ended (its `open` is false): it leaves its groups. */
  disconnected(conn: Connection): void;
}

export interface Transport {
  /** Takes an upgraded, authenticated WebSocket; see Hub.accept. */
  accept(socket: WebSocket, connectionId: string, actor: Actor, options?: ConnectionOptions): void;
  /** This process's connection with that id, until it has ended. */
  connection(id: string): Connection | undefined;
  /** This process's connections. */
  connections(): IterableIterator<Connection>;
  /** Queues a frame for the connection, sent at the end of this turn of the event loop. */
  write(conn: Connection, frame: Buffer | string): void;
  /** Closes a connection that may no longer connect at all (1008), and ends it at once. */
  evict(conn: Connection): void;
  /**
   * Tells every client it may reconnect, closes the sockets and ends every connection; later
   * sockets are refused.
   */
  close(): Promise<void>;
}

const TEXT = { binary: false } as const;
const IDLE = Promise.resolve();

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

export function createTransport(options: TransportOptions): Transport {
  const { metrics, invoke } = options;
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const clientTimeoutMs = options.clientTimeoutMs ?? CLIENT_TIMEOUT_MS;
  const connections = new Map<string, Connection>();
  let closing: Promise<void> | null = null;

  // Writes are coalesced per connection until the end of the event loop's turn: a burst (say
  // forty clients joining a channel at once, each announced to every member) then costs one
  // WebSocket frame and one system call per member instead of one per message. The JSON
  // protocol allows several messages in one frame.
  let dirty: Connection[] = [];

  function write(conn: Connection, frame: Buffer | string) {
    if (!conn.open) return;
    const data = typeof frame === 'string' ? Buffer.from(frame) : frame;
    const queued = conn.outbox;
    if (queued === null) {
      conn.outbox = data;
      if (dirty.push(conn) === 1) setImmediate(flush);
    } else if (Array.isArray(queued)) queued.push(data);
    else conn.outbox = [queued, data];
  }

  /** Sends what a connection has queued, even when the hub is about to close it. */
  function drain(conn: Connection) {
    const queued = conn.outbox;
    if (queued === null) return;
    conn.outbox = null;
    if (conn.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      conn.open = false;
      conn.socket.terminate();
      return;
    }
    conn.socket.send(Array.isArray(queued) ? Buffer.concat(queued) : queued, TEXT);
  }

  function flush() {
    const batch = dirty;
    dirty = [];
    for (const conn of batch) drain(conn);
  }

  /** Closes on a protocol fault or timeout, telling the client why (it does not reconnect). */
  function fault(conn: Connection, detail: string) {
    if (!conn.open) return;
    conn.open = false;
    drain(conn);
    conn.socket.send(closeWithError(`Connection closed with an error. ${detail}`), TEXT);
    conn.socket.close(1000);
  }

  function evict(conn: Connection) {
    conn.open = false;
    drain(conn);
    conn.socket.close(1008);
    disconnected(conn);
  }

  async function run(conn: Connection, message: Extract<ClientMessage, { type: 1 }>) {
    if (!conn.open) return;
    const outcome = await invoke(conn, message.target, message.arguments);
    if (message.invocationId !== undefined) {
      write(conn, completionFrame(message.invocationId, outcome));
    }
  }

  /** Handles one message; false when the connection is closing. */
  function handle(conn: Connection, message: ClientMessage): boolean {
    switch (message.type) {
      case MessageType.Invocation:
        if (message.streamIds?.length) {
          if (message.invocationId !== undefined) {
            write(
              conn,
              completionFrame(message.invocationId, {
                error: 'Client streaming is not supported by this hub.',
              }),
            );
          }
          return true;
        }
        conn.queue = conn.queue.then(() => run(conn, message));
        return true;
      case MessageType.StreamInvocation:
      case MessageType.CancelInvocation:
        if (message.invocationId !== undefined) {
          write(
            conn,
            completionFrame(message.invocationId, {
              error: 'Streaming is not supported by this hub.',
            }),
          );
        }
        return true;
      case MessageType.Close:
        conn.open = false;
        conn.socket.close(1000);
        return false;
      default:
        // Pings only keep the connection alive; stream items have no stream to go to.
        return true;
    }
  }

  function handshake(conn: Connection, record: string): boolean {
    const { error } = parseHandshake(record);
    if (error) {
      conn.open = false;
      conn.socket.send(handshakeError(error), TEXT);
      conn.socket.close(1000);
      return false;
    }
    conn.handshaken = true;
    write(conn, HANDSHAKE_OK);
    return true;
  }

  function receive(conn: Connection, data: RawData, isBinary: boolean) {
    if (!conn.open) return;
    conn.lastSeen = Date.now();
    if (isBinary) {
      fault(conn, 'InvalidDataException: Binary messages are not supported by the JSON protocol.');
      return;
    }
    const text = conn.pending + toBuffer(data).toString('utf8');
    let start = 0;
    for (let end = text.indexOf(RECORD_SEPARATOR); end !== -1;) {
      const record = text.slice(start, end);
      start = end + 1;
      if (!conn.handshaken) {
        if (!handshake(conn, record)) return;
      } else {
        let message: ClientMessage;
        try {
          message = parseMessage(record);
        } catch (error) {
          fault(conn, error instanceof ProtocolError ? error.message : 'InvalidDataException');
          return;
        }
        metrics?.received(message.type);
        if (!handle(conn, message)) return;
      }
      end = text.indexOf(RECORD_SEPARATOR, start);
    }
    conn.pending = start < text.length ? text.slice(start) : '';
    if (conn.pending.length > MAX_MESSAGE_BYTES) {
      fault(conn, 'InvalidDataException: The maximum message size was exceeded.');
    }
  }

  function disconnected(conn: Connection) {
    if (!connections.delete(conn.id)) return;
    metrics?.disconnected();
    conn.open = false;
    options.disconnected(conn);
  }

  // Each connection is pinged keepAliveMs after its previous ping, so pings are spread over
  // time as connections are, rather than sent to every connection at once.
  const tickMs = Math.max(10, Math.min(1_000, keepAliveMs / 4, clientTimeoutMs / 4));
  let lastTick = Date.now();
  const keepAlive = setInterval(() => {
    const now = Date.now();
    // After the event loop was blocked, clients' messages may still be waiting to be read:
    // timeouts are judged on the next tick, once they have been.
    const lagged = now - lastTick > 2 * tickMs;
    lastTick = now;
    const silentSince = now - clientTimeoutMs;
    for (const conn of connections.values()) {
      if (!lagged && conn.lastSeen < silentSince) {
        fault(conn, 'Server timeout elapsed without receiving a message from the client.');
      } else if (conn.handshaken && conn.nextPing <= now) {
        conn.nextPing = now + keepAliveMs;
        write(conn, PING);
      }
    }
  }, tickMs);
  keepAlive.unref();

  async function shutdown() {
    clearInterval(keepAlive);
    const closed: Promise<void>[] = [];
    for (const conn of connections.values()) {
      const { socket } = conn;
      closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
      drain(conn);
      if (conn.open && conn.handshaken) socket.send(CLOSE_RECONNECT, TEXT);
      conn.open = false;
      socket.close(1000);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(closed),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, CLIENT_CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
    for (const conn of connections.values()) conn.socket.terminate();
    for (const conn of [...connections.values()]) disconnected(conn);
  }

  return {
    accept(socket, connectionId, actor, connectionOptions = {}) {
      if (closing) {
        socket.close(1001);
        return;
      }
      const conn: Connection = {
        id: connectionId,
        actor,
        user: { id: actor.id, name: actor.name },
        batched: connectionOptions.batchedPresence === true,
        hostname:
          actor.isAgent && AGENT_HOSTNAME.test(connectionOptions.hostname ?? '')
            ? connectionOptions.hostname!
            : null,
        socket,
        groups: new Set(),
        handshaken: false,
        open: true,
        lastSeen: Date.now(),
        nextPing: Date.now() + keepAliveMs,
        pending: '',
        queue: IDLE,
        outbox: null,
      };
      connections.set(connectionId, conn);
      metrics?.connected();
      socket.on('message', (data, isBinary) => receive(conn, data, isBinary));
      socket.on('close', () => disconnected(conn));
    },

    connection: (id) => connections.get(id),
    connections: () => connections.values(),
    write,
    evict,

    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}

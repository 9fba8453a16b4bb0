import type { FastifyBaseLogger } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { DomainError } from '../core/errors';
import { newToken } from '../core/ids';
import type { Actor } from '../core/users';
import type { Audience, Backplane, LiveEntry } from './backplane';
import type { ChannelAccess } from './access';
import { createPresence, PRESENCE_ACTIONS } from './presence';
import {
  CLOSE_RECONNECT,
  closeWithError,
  completionFrame,
  HANDSHAKE_OK,
  handshakeError,
  invocationFrame,
  MessageType,
  parseHandshake,
  parseMessage,
  PING,
  ProtocolError,
  RECORD_SEPARATOR,
  type ClientMessage,
} from './protocol';

// The real-time hub (wire reference §3): connections, their groups (channels), the client
// methods, keep-alive, and the service the rest of the server publishes events through.

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

export type HubEventName =
  | 'GlobalEvent'
  | 'PresenceEvent'
  | 'TopoEvent'
  | 'TemplateEvent'
  | 'DocumentEvent'
  | 'VmEvent'
  | 'GameEvent'
  | 'DispatchEvent';

export interface HubActor {
  id: string;
  name: string;
}

/** The one argument of every server-to-client event; PresenceEvent has no model. */
export interface HubEvent {
  action: string;
  actor: HubActor;
  model?: unknown;
}

export interface HubTarget {
  /** Serializes the event once and delivers it on every server process. */
  send(event: HubEventName, payload: HubEvent): void;
}

/** How server code publishes: `hub.toGroup(gamespaceId).send('GameEvent', {...})`. */
export interface HubPublisher {
  toAll(): HubTarget;
  toGroup(groupId: string): HubTarget;
  toGroupExcept(groupId: string, connectionId: string): HubTarget;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The hub (server/plugins/hub.ts): `app.hub.toGroup(id).send('VmEvent', {...})`. */
    hub: Hub;
  }
}

/** How a connection asked to be served when it connected. */
export interface ConnectionOptions {
  /** Presence in the batched form (server/hub/presence.ts), as `?presence=batched` asks. */
  batchedPresence?: boolean;
  /**
   * The machine an in-lab agent runs on, as `?hostname=` names it (our agent gives it; the
   * reference's does not): kept for agents only, so that observers see which machines listen.
   */
  hostname?: string;
}

/** An agent listening on its gamespace's channel, on any server process. */
export interface AgentConnection {
  /** The host it said it runs on; null when it said none (the reference's agent). */
  hostname: string | null;
}

/** A host name an agent may give: what a machine's name holds, and not too long. */
const AGENT_HOSTNAME = /^[\w.-]{1,64}$/;

export interface Hub extends HubPublisher {
  /** Takes an upgraded, authenticated WebSocket; the hub owns it from now on. */
  accept(socket: WebSocket, connectionId: string, actor: Actor, options?: ConnectionOptions): void;
  /** Connections and their rooms on every server process (GET /api/admin/live). */
  live(): Promise<LiveEntry[]>;
  /**
   * The agents listening on a gamespace's channel on every server process: connections of its
   * grader key (whose actor id is the gamespace id), one entry each.
   */
  agentsOf(gamespaceId: string): Promise<AgentConnection[]>;
  /**
   * Someone's right to listen may have ended (a player removed, a gamespace or workspace
   * deleted, a worker removed, a user disabled): on every server process, the connections in
   * `group` (every group, when none is named) of `subjectId` (everyone, when none is named) are
   * checked again, and leave each group they may no longer listen on; a connection whose user
   * is gone or disabled is closed.
   */
  revoke(target: { group?: string; subjectId?: string }): void;
  /** Tells every client it may reconnect, closes the connections and announces departures. */
  close(): Promise<void>;
}

/** What `Edited` does before it relays: the document service stores co-editing updates. */
export interface HubDocuments {
  /** Awaited before the relay; a DomainError it throws is the client's completion error. */
  edited(room: string, changes: unknown, actor: Actor): Promise<void>;
}

/** What the hub counts for the metrics (server/metrics.ts), on this process. */
export interface HubMetrics {
  connected(): void;
  disconnected(): void;
  /** A message from a client, after the handshake. */
  received(type: ClientMessage['type']): void;
  /**
   * An event published to a group or everyone, from any process's code; for presence, one per
   * arrival, greeting or departure, whichever form (server/hub/presence.ts) tells it.
   */
  published(event: HubEventName): void;
  /** Event messages written to this process's connections by one delivery. */
  sent(count: number): void;
}

export interface HubOptions {
  backplane: Backplane;
  canListen: ChannelAccess;
  /**
   * The connection's actor as the store has it now (its roles, whether it is disabled); null
   * when it may no longer connect at all. Without it, revocations recheck the actor as it was.
   */
  reloadActor?: (actor: Actor) => Promise<Actor | null>;
  log: FastifyBaseLogger;
  keepAliveMs?: number;
  clientTimeoutMs?: number;
  documents?: HubDocuments;
  metrics?: HubMetrics;
  /** The most people one presence message names (server/hub/presence.ts; PRESENCE_LIMIT). */
  presenceLimit?: number;
}

/** An error the client sees as the completion's `error` text. */
class HubError extends Error {}

interface Connection {
  id: string;
  actor: Actor;
  user: HubActor;
  /** Presence in the batched form rather than the reference's per-member events. */
  batched: boolean;
  /** The host an agent connection said it runs on (ConnectionOptions.hostname). */
  hostname: string | null;
  socket: WebSocket;
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

const TEXT = { binary: false } as const;

/**
 * A revocation travels through the backplane like a message, so that it reaches every server
 * process, but is never sent to a client: its frame starts with a byte no JSON-protocol frame
 * starts with, followed by the subject's id (empty for everyone).
 */
const REVOKE = 0x00;
const IDLE = Promise.resolve();

const bindingError = (target: string) =>
  new HubError(
    `Failed to invoke '${target}' due to an error on the server. InvalidDataException: Error binding arguments. Make sure that the types of the provided values match the types of the hub method being invoked.`,
  );

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

export function createHub(options: HubOptions): Hub {
  const { backplane, canListen, log, documents, metrics } = options;
  const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  const clientTimeoutMs = options.clientTimeoutMs ?? CLIENT_TIMEOUT_MS;
  const connections = new Map<string, Connection>();
  const groups = new Map<string, Set<Connection>>();
  /** Backplane updates still running, awaited on shutdown. */
  const settling = new Set<Promise<void>>();
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

  /** Checks connections again after a revocation; see Hub.revoke. */
  async function recheck(conn: Connection, rooms: readonly string[]) {
    const actor = options.reloadActor ? await options.reloadActor(conn.actor) : conn.actor;
    if (!conn.open || !connections.has(conn.id)) return;
    if (!actor || actor.role === 'disabled') {
      conn.open = false;
      drain(conn);
      conn.socket.close(1008);
      disconnected(conn);
      return;
    }
    conn.actor = actor;
    for (const room of rooms) {
      if (conn.groups.has(room) && !(await canListen(actor, room))) {
        await leaveGroup(conn, room);
      }
    }
  }

  function revoked(audience: Audience, frame: Buffer) {
    const subjectId = frame.subarray(1).toString('utf8');
    const concerned = (conn: Connection) => !subjectId || conn.actor.id === subjectId;
    if (audience.all) {
      for (const conn of connections.values()) {
        if (concerned(conn)) track(recheck(conn, [...conn.groups]));
      }
      return;
    }
    for (const conn of [...(groups.get(audience.group) ?? [])]) {
      if (concerned(conn)) track(recheck(conn, [audience.group]));
    }
  }

  // Presence changes travel between processes as control frames; each process tells its own
  // connections in the form each asked for.
  const presence = createPresence<Connection>(newToken(), {
    limit: options.presenceLimit,
    members: (room) => groups.get(room),
    connection: (id) => connections.get(id),
    write,
    publish: (room, frame) => backplane.publish({ all: false, group: room }, frame),
    sent: (count) => metrics?.sent(count),
  });

  backplane.attach((audience, frame) => {
    if (frame[0] === REVOKE) {
      revoked(audience, frame);
      return;
    }
    if (presence.handles(frame)) {
      if (!audience.all) presence.received(audience.group, frame);
      return;
    }
    let sent = 0;
    if (audience.all) {
      for (const conn of connections.values()) {
        if (conn.handshaken) {
          write(conn, frame);
          sent += 1;
        }
      }
    } else {
      for (const conn of groups.get(audience.group) ?? []) {
        if (conn.id !== audience.except) {
          write(conn, frame);
          sent += 1;
        }
      }
    }
    // Once per delivery, not per connection: a channel of thousands costs one count.
    metrics?.sent(sent);
  });

  const target = (audience: Audience): HubTarget => ({
    send(event, payload) {
      metrics?.published(event);
      backplane.publish(audience, Buffer.from(invocationFrame(event, payload)));
    },
  });
  const publisher: HubPublisher = {
    toAll: () => target({ all: true }),
    toGroup: (group) => target({ all: false, group }),
    toGroupExcept: (group, except) => target({ all: false, group, except }),
  };

  function track(work: Promise<void>) {
    const settled = work.catch((error) => log.warn({ err: error }, 'hub backplane update failed'));
    settling.add(settled);
    void settled.finally(() => settling.delete(settled));
  }

  /** Closes on a protocol fault or timeout, telling the client why (it does not reconnect). */
  function fault(conn: Connection, detail: string) {
    if (!conn.open) return;
    conn.open = false;
    drain(conn);
    conn.socket.send(closeWithError(`Connection closed with an error. ${detail}`), TEXT);
    conn.socket.close(1000);
  }

  // A user's own channel (their id) carries news of their workspaces to their tabs: another tab
  // of theirs is nobody arriving. (A gamespace agent's id is its gamespace's channel, where it
  // is announced as in the reference.)
  const announced = (conn: Connection, room: string) =>
    room !== conn.actor.id || conn.actor.isAgent;

  function leaveGroup(conn: Connection, room: string): Promise<void> {
    conn.groups.delete(room);
    const members = groups.get(room);
    members?.delete(conn);
    if (members?.size === 0) groups.delete(room);
    if (announced(conn, room)) {
      metrics?.published('PresenceEvent');
      presence.left(conn, room);
    }
    return backplane.left(conn.id, room);
  }

  function requireJoined(conn: Connection, room: string) {
    if (!conn.groups.has(room)) throw new HubError('ActionForbidden');
  }

  const channelOf = (target: string, value: unknown): string => {
    if (typeof value !== 'string' || !value || value.length > 256) throw bindingError(target);
    return value;
  };

  type Method = (conn: Connection, args: unknown[], target: string) => Promise<void> | void;
  const method = (arity: number, run: Method) => ({ arity, run });

  // Client methods by lower-cased name: SignalR matches them case-insensitively.
  const methods: Record<string, { arity: number; run: Method }> = {
    listen: method(1, async (conn, [channel], name) => {
      const room = channelOf(name, channel);
      if (!(await canListen(conn.actor, room))) throw new HubError('ActionForbidden');
      if (!conn.open) return;
      let members = groups.get(room);
      if (!members) groups.set(room, (members = new Set()));
      members.add(conn);
      // Listening again on a channel announces the connection again, as in the reference, but
      // it is still one connection there.
      if (!conn.groups.has(room) && announced(conn, room)) presence.entered(conn, room);
      conn.groups.add(room);
      await backplane.joined({
        id: conn.id,
        room,
        profileId: conn.user.id,
        profileName: conn.user.name,
        ...(conn.hostname ? { hostname: conn.hostname } : {}),
      });
      // Gone meanwhile (closed, or its right revoked): its departure has been announced.
      if (conn.open && conn.groups.has(room) && announced(conn, room)) {
        metrics?.published('PresenceEvent');
        presence.announce(conn, room, PRESENCE_ACTIONS.arrived);
      }
    }),
    leave: method(1, async (conn, [channel], name) => {
      const room = channelOf(name, channel);
      requireJoined(conn, room);
      await leaveGroup(conn, room);
    }),
    greet: method(1, (conn, [channel], name) => {
      const room = channelOf(name, channel);
      requireJoined(conn, room);
      if (announced(conn, room)) {
        metrics?.published('PresenceEvent');
        presence.announce(conn, room, PRESENCE_ACTIONS.greeted);
      }
    }),
    edited: method(2, async (conn, [channel, changes], name) => {
      const room = channelOf(name, channel);
      requireJoined(conn, room);
      // Stored first, so that the completion tells the client its update is in the log, and
      // an update the log refuses is not relayed either.
      await documents?.edited(room, changes, conn.actor);
      publisher
        .toGroupExcept(room, conn.id)
        .send('DocumentEvent', { action: 'DOCUMENT.UPDATED', actor: conn.user, model: changes });
    }),
    cursorchanged: method(2, (conn, [channel, positions], name) => {
      const room = channelOf(name, channel);
      requireJoined(conn, room);
      publisher
        .toGroupExcept(room, conn.id)
        .send('DocumentEvent', { action: 'DOCUMENT.CURSOR', actor: conn.user, model: positions });
    }),
    templatemessage: method(2, (conn, [action, model], name) => {
      if (typeof action !== 'string' || !model || typeof model !== 'object') {
        throw bindingError(name);
      }
      const room = channelOf(name, (model as { workspaceId?: unknown }).workspaceId);
      // Only a connection listening on the workspace may speak in it.
      requireJoined(conn, room);
      publisher
        .toGroupExcept(room, conn.id)
        .send('TemplateEvent', { action, actor: conn.user, model });
    }),
  };

  async function invoke(conn: Connection, message: Extract<ClientMessage, { type: 1 }>) {
    if (!conn.open) return;
    const { target } = message;
    let outcome: { error?: string } = {};
    try {
      const key = target.toLowerCase();
      const found = Object.hasOwn(methods, key) ? methods[key] : undefined;
      if (!found) {
        throw new HubError(
          `Failed to invoke '${target}' due to an error on the server. HubException: Method does not exist.`,
        );
      }
      if (message.arguments.length !== found.arity) {
        throw new HubError(
          `Failed to invoke '${target}' due to an error on the server. InvalidDataException: Invocation provides ${message.arguments.length} argument(s) but target expects ${found.arity}.`,
        );
      }
      await found.run(conn, message.arguments, target);
    } catch (error) {
      if (error instanceof HubError || error instanceof DomainError) {
        outcome = { error: error.message };
      } else {
        log.error({ err: error, target, connectionId: conn.id }, 'hub method failed');
        outcome = { error: `An unexpected error occurred invoking '${target}' on the server.` };
      }
    }
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
        conn.queue = conn.queue.then(() => invoke(conn, message));
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
    for (const room of [...conn.groups]) track(leaveGroup(conn, room));
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
    // Departures are announced to the other server processes before the backplane closes, the
    // batches they make too.
    for (const conn of [...connections.values()]) disconnected(conn);
    presence.flush();
    await Promise.all(settling);
  }

  return {
    ...publisher,

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

    live: () => backplane.live(),

    async agentsOf(gamespaceId) {
      return (await backplane.live())
        .filter((entry) => entry.room === gamespaceId && entry.profileId === gamespaceId)
        .map((entry) => ({ hostname: entry.hostname ?? null }));
    },

    revoke({ group, subjectId }) {
      const audience: Audience = group ? { all: false, group } : { all: true };
      backplane.publish(
        audience,
        Buffer.concat([Buffer.from([REVOKE]), Buffer.from(subjectId ?? '', 'utf8')]),
      );
    },

    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}

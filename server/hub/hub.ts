import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import type { Actor } from '../core/actor';
import type { ChannelAccess } from './access';
import type { Backplane, LiveEntry } from './backplane';
import { createChannels } from './channels';
import { createMethods } from './methods';
import type { ClientMessage } from './protocol';
import { createTransport } from './transport';

// The real-time hub (wire reference §3) as the rest of the server sees it: what it publishes
// events through, and how a hub is made from its three parts, each of which says what it owns:
// - server/hub/transport.ts: the connections, the WebSocket and the SignalR protocol on it;
// - server/hub/channels.ts: the groups, presence, and the backplane across server processes;
// - server/hub/methods.ts: the methods clients invoke (Listen, Leave, Greet, ...).
// This file holds no state of its own and must not grow any: it wires the parts together.

export { CLIENT_TIMEOUT_MS, KEEP_ALIVE_MS, MAX_MESSAGE_BYTES } from './transport';

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

export function createHub(options: HubOptions): Hub {
  const { backplane, log, metrics } = options;
  // The transport reaches the channels and the methods only once a client has connected, after
  // both are made.
  const transport = createTransport({
    keepAliveMs: options.keepAliveMs,
    clientTimeoutMs: options.clientTimeoutMs,
    metrics,
    invoke: (conn, target, args) => invoke(conn, target, args),
    disconnected: (conn) => channels.disconnected(conn),
  });
  const channels = createChannels({
    backplane,
    canListen: options.canListen,
    reloadActor: options.reloadActor,
    log,
    metrics,
    presenceLimit: options.presenceLimit,
    transport,
  });
  const invoke = createMethods({
    channels,
    canListen: options.canListen,
    documents: options.documents,
    log,
  });
  let closing: Promise<void> | null = null;

  async function shutdown() {
    await transport.close();
    await channels.close();
  }

  return {
    toAll: channels.toAll,
    toGroup: channels.toGroup,
    toGroupExcept: channels.toGroupExcept,
    accept: transport.accept,
    revoke: channels.revoke,

    live: () => backplane.live(),

    async agentsOf(gamespaceId) {
      return (await backplane.live())
        .filter((entry) => entry.room === gamespaceId && entry.profileId === gamespaceId)
        .map((entry) => ({ hostname: entry.hostname ?? null }));
    },

    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}

import type { WebSocket } from 'ws';
import type { Actor } from '../core/actor';
import type { LiveEntry } from './backplane';
import type { ClientMessage } from './protocol';

// The hub's vocabulary: what the rest of the server publishes through and what the hub's parts
// (transport, channels, methods) hand each other. Types only; it imports none of those parts,
// so they can all name it without importing one another back.

export type HubEventName =
  | 'GlobalEvent'
  | 'PresenceEvent'
  | 'TopoEvent'
  | 'TemplateEvent'
  | 'DocumentEvent'
  | 'VmEvent'
  | 'GameEvent'
  | 'DispatchEvent'
  // Ours: the observers' live feed (server/core/observeFeed.ts).
  | 'ObserveEvent'
  // Ours: who has a machine's console open, to its gamespace (server/console/viewers.ts).
  | 'ConsoleEvent';

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

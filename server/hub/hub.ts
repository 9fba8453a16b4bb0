import type { FastifyBaseLogger } from 'fastify';
import type { Actor } from '../core/actor';
import type { ChannelAccess } from './access';
import type { Backplane } from './backplane';
import { createChannels } from './channels';
import { createMethods } from './methods';
import { createTransport } from './transport';
import type { Hub, HubDocuments, HubMetrics } from './types';

// The real-time hub (wire reference §3) as the rest of the server sees it: what it publishes
// events through, and how a hub is made from its three parts, each of which says what it owns:
// - server/hub/transport.ts: the connections, the WebSocket and the SignalR protocol on it;
// - server/hub/channels.ts: the groups, presence, and the backplane across server processes;
// - server/hub/methods.ts: the methods clients invoke (Listen, Leave, Greet, ...).
// This file holds no state of its own and must not grow any: it wires the parts together.

export { CLIENT_TIMEOUT_MS, KEEP_ALIVE_MS, MAX_MESSAGE_BYTES } from './transport';

export type {
  HubEventName,
  HubActor,
  HubEvent,
  HubTarget,
  HubPublisher,
  ConnectionOptions,
  AgentConnection,
  Hub,
  HubDocuments,
  HubMetrics,
} from './types';

declare module 'fastify' {
  interface FastifyInstance {
    /** The hub (server/plugins/hub.ts): `app.hub.toGroup(id).send('VmEvent', {...})`. */
    hub: Hub;
  }
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

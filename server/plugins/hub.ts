import fastifyWebsocket from '@fastify/websocket';
import fp from 'fastify-plugin';
import { subjectOf } from '../core/tickets';
import { createObserveFeed, type ObserveFeed } from '../core/observeFeed';
import { createChannelAccess } from '../hub/access';
import { createHub, MAX_MESSAGE_BYTES } from '../hub/hub';

// The real-time hub (wire reference §3) on the WebSocket plugin: its groups reach every server
// process through the backplane; the services publish through it, and the machines' tasks that
// end on their own (a deploy finishing) reach the editors and players watching.

declare module 'fastify' {
  interface FastifyInstance {
    /** The observers' live feed (server/core/observeFeed.ts). */
    observeFeed: ObserveFeed;
  }
}

export const hubPlugin = fp(
  async (fastify) => {
    const { config, services, repositories } = fastify;
    const hub = createHub({
      backplane: fastify.backplane,
      canListen: createChannelAccess(
        repositories.membership,
        services.workspaces,
        services.gameEventReader.mayObserve,
      ),
      log: fastify.log,
      keepAliveMs: config.hubKeepAliveMs,
      clientTimeoutMs: config.hubClientTimeoutMs,
      presenceLimit: config.hubPresenceLimit,
      documents: services.documents,
      metrics: fastify.metrics?.hub,
      // A revocation rechecks a connection's user as stored now (roles, disabled); an agent
      // connection lasts as long as its gamespace. The authenticator is registered after the
      // hub (it needs the identity provider), before any connection.
      async reloadActor(actor) {
        if (actor.isAgent) return (await repositories.gamespaces.exists(actor.id)) ? actor : null;
        const current = await fastify.authenticator.actorForSubject(subjectOf(actor));
        // A stored user who is stored no more was deleted (DELETE /api/user/{id}).
        return actor.persisted && !current.persisted ? null : current;
      },
    });
    fastify.decorate('hub', hub);
    const observeFeed = createObserveFeed(
      repositories,
      { publish: (channel, payload) => hub.toGroup(channel).send('ObserveEvent', payload) },
      fastify.log,
    );
    fastify.decorate('observeFeed', observeFeed);
    const stopFeed = fastify.gameEvents.subscribe(observeFeed.recorded);
    fastify.addHook('onClose', async () => stopFeed());
    const stopRelay = services.vms.relayDriverEvents();
    fastify.addHook('onClose', async () => stopRelay());
    // Added before the WebSocket plugin's own preClose, so clients are told they may reconnect
    // before their sockets are closed.
    fastify.addHook('preClose', () => hub.close());
    await fastify.register(fastifyWebsocket, {
      options: { maxPayload: MAX_MESSAGE_BYTES },
      // `ws` closes the connection itself after a protocol error (1009 for a too-large message).
      errorHandler: (error) => fastify.log.debug({ err: error }, 'hub socket error'),
    });
  },
  {
    name: 'hub',
    dependencies: [
      'settings',
      'store',
      'repositories',
      'gameEvents',
      'cache',
      'metrics',
      'services',
    ],
  },
);

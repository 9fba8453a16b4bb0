import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/websocket';
import {
  readCredentials,
  subjectOf,
  ticketKey,
  type Authenticator,
  type TicketSubject,
} from '../auth/authenticate';
import type { Cache } from '../core/cache';
import { newToken } from '../core/ids';
import { assertEnabled, type Actor } from '../core/actor';
import { anonymousErrorResponses, emptySchema } from '../http/schemas';
import type { ConnectionOptions, Hub } from './hub';
import { BATCHED_PRESENCE_QUERY } from './presence';
import { typed } from '../http/typed';

// The hub's endpoint, /hub. Two ways in, both with a one-time ticket (GET /api/user/ticket):
// - skipNegotiation + WebSockets (the SPA and the .NET agent): the upgrade request carries the
//   ticket in `?access_token=` / `?ticket=` (browsers) or `Authorization: Bearer <ticket>`.
// - The default negotiate: POST /hub/negotiate with the ticket binds the user to a fresh
//   connection token for NEGOTIATION_TTL_MS; the upgrade then presents `?id=<connectionToken>`.
//   The binding lives in the Cache, so negotiating with one server process and connecting to
//   another works when they share Redis.
// Only WebSockets are offered: no long polling, no server-sent events.
// `?presence=batched` on the WebSocket's URL (the SPA puts it on the hub URL, so it is on both
// requests of a negotiated connection too) asks for presence in the batched form
// (server/hub/presence.ts); the reference server ignores it. An agent's `?hostname=` says which
// machine it runs on (see hub.agentsOf).

export const NEGOTIATION_TTL_MS = 30_000;
/** `?hostname=` on the hub's URL: the machine an in-lab agent runs on (agent/agent.ts). */
export const AGENT_HOSTNAME_QUERY = 'hostname';
const negotiationKey = (token: string) => `hubneg:${token}`;

interface Admission {
  connectionId: string;
  actor: Actor;
  options: ConnectionOptions;
}

interface Negotiation {
  connectionId: string;
  /** Who the ticket stood for, with the gamespace it was held to, if any. */
  subject: TicketSubject;
}

const negotiateResponse = {
  type: 'object',
  properties: {
    negotiateVersion: { type: 'integer' },
    connectionId: { type: 'string' },
    connectionToken: { type: 'string' },
    availableTransports: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          transport: { type: 'string' },
          transferFormats: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const;

const TRANSPORTS = [{ transport: 'WebSockets', transferFormats: ['Text', 'Binary'] }];

function unauthorized(reply: FastifyReply) {
  reply.header('WWW-Authenticate', 'Bearer');
  return reply.code(401).send('');
}

export async function hubRoutes(
  fastify: FastifyInstance,
  options: { hub: Hub; authenticator: Authenticator; cache: Cache },
): Promise<void> {
  const app = typed(fastify);
  const { hub, authenticator, cache } = options;
  const admissions = new WeakMap<FastifyRequest, Admission>();

  const ticketActor = (request: FastifyRequest) =>
    authenticator.authenticate(
      readCredentials(request.headers, request.query as Record<string, unknown>),
      ['ticket'],
    );

  app.post(
    '/hub/negotiate',
    {
      config: { auth: 'anonymous' },
      schema: {
        querystring: { type: 'object', properties: { negotiateVersion: { type: 'integer' } } },
        // 401: no valid one-time ticket (the hub's only credential).
        response: { 200: negotiateResponse, 401: emptySchema, ...anonymousErrorResponses },
      },
    },
    async (request, reply) => {
      const actor = await ticketActor(request);
      if (!actor) return unauthorized(reply);
      assertEnabled(actor);
      const connectionId = newToken();
      // Version 0 clients connect with the connection id itself.
      const version = (request.query.negotiateVersion ?? 0) >= 1 ? 1 : 0;
      const connectionToken = version ? newToken() : connectionId;
      const binding: Negotiation = { connectionId, subject: subjectOf(actor) };
      await cache.set(negotiationKey(connectionToken), JSON.stringify(binding), NEGOTIATION_TTL_MS);
      return {
        negotiateVersion: version,
        connectionId,
        ...(version ? { connectionToken } : {}),
        availableTransports: TRANSPORTS,
      };
    },
  );

  app.get(
    '/hub',
    {
      websocket: true,
      config: { auth: 'anonymous' },
      // The ticket may come in any case of `access_token` or `ticket`, so other keys are allowed.
      schema: {
        querystring: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            [BATCHED_PRESENCE_QUERY.name]: { type: 'string' },
            [AGENT_HOSTNAME_QUERY]: { type: 'string' },
          },
        },
      },
      // Runs before the upgrade, so a refused client gets a plain HTTP status.
      async preValidation(request, reply) {
        if (!request.ws) return;
        const query = request.query as Record<string, unknown>;
        const token = typeof query.id === 'string' ? query.id : '';
        const hostname = query[AGENT_HOSTNAME_QUERY];
        const options: ConnectionOptions = {
          batchedPresence: query[BATCHED_PRESENCE_QUERY.name] === BATCHED_PRESENCE_QUERY.value,
          ...(typeof hostname === 'string' ? { hostname } : {}),
        };
        let admission: Admission;
        if (token) {
          const stored = await cache.take(negotiationKey(token));
          if (!stored) return reply.code(404).type('text/plain').send('No Connection with that ID');
          // The stock client asks its token factory again for the WebSocket: that fresh ticket
          // is not needed, so it is spent rather than left usable.
          const { ticket } = readCredentials(request.headers, query);
          if (ticket) await cache.take(ticketKey(ticket));
          const binding = JSON.parse(stored) as Negotiation;
          admission = {
            connectionId: binding.connectionId,
            actor: await authenticator.actorForSubject(binding.subject),
            options,
          };
        } else {
          const actor = await ticketActor(request);
          if (!actor) return unauthorized(reply);
          admission = { connectionId: newToken(), actor, options };
        }
        assertEnabled(admission.actor);
        admissions.set(request, admission);
      },
    },
    (socket, request) => {
      const admission = admissions.get(request);
      admissions.delete(request);
      if (!admission) socket.close(1008);
      else hub.accept(socket, admission.connectionId, admission.actor, admission.options);
    },
  );
}

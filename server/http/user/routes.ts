import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MKS_COOKIE, readCredentials, type Authenticator } from '../../auth/authenticate';
import type { ListenerRevoker } from '../../core/membership';
import { actorFrom, type UserDefaults } from '../../core/actor';
import { userDto, type UserService } from '../../core/users';
import { forbidden } from '../../core/errors';
import { actorOf } from '../auth';
import { anonymousErrorResponses, emptySchema, errorResponses } from '../schemas';
import { gamespaceSchema } from '../gamespace/schemas';
import { lowercaseQuery } from '../workspace/query';
import { workspaceSummarySchema } from '../workspace/schemas';
import {
  apiKeyResultSchema,
  apiKeySchema,
  changedUserBody,
  idParams,
  keyIdParams,
  userSchema,
  userSearchQuery,
} from './schemas';
import { typed } from '../typed';

// Users, API keys, tickets and the console cookie (wire reference §1.7). `admin` routes are the
// reference's AdminOnly; "admin or self" is checked by the user service.

export interface UserRoutesOptions {
  users: UserService;
  /**
   * The hub: a changed or deleted user's live connections are checked again at once, so a
   * disabled or deleted user's are closed and a narrowed scope leaves its groups.
   */
  listeners: ListenerRevoker;
  authenticator: Authenticator;
  defaults: UserDefaults;
  cookieMinutes: number;
  commit: string;
  version: string;
}

export async function userRoutes(
  fastify: FastifyInstance,
  options: UserRoutesOptions,
): Promise<void> {
  const app = typed(fastify);
  const { users, authenticator } = options;

  // The console cookie: HttpOnly, SameSite=Strict, Secure when the request is, `cookieMinutes`.
  async function setCookie(request: FastifyRequest, reply: FastifyReply) {
    const value = await authenticator.cookieFor(actorOf(request));
    const secure = request.protocol === 'https' ? '; Secure' : '';
    reply.header(
      'Set-Cookie',
      `${MKS_COOKIE}=${value}; Path=/; Max-Age=${options.cookieMinutes * 60}; HttpOnly; SameSite=Strict${secure}`,
    );
  }

  app.post(
    '/api/user/register',
    {
      // Registers the caller (the body is ignored) and sets the console cookie.
      schema: { response: { 200: userSchema, ...errorResponses } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const row = await users.register(actor);
      request.actor = actorFrom(row, actor, actor.lastIdpAssignedRole, options.defaults);
      await setCookie(request, reply);
      return userDto(request.actor);
    },
  );

  app.get(
    '/api/user',
    { schema: { response: { 200: userSchema, ...errorResponses } } },
    async (request) => userDto(actorOf(request)),
  );

  app.get(
    '/api/user/:id',
    {
      // The caller as its credential says (as GET /api/user), or another stored user for admins.
      schema: { params: idParams, response: { 200: userSchema, ...errorResponses } },
    },
    async (request) => {
      const actor = actorOf(request);
      if (request.params.id === actor.id) return userDto(actor);
      if (!actor.isAdmin) throw forbidden();
      return users.load(request.params.id);
    },
  );

  app.get(
    '/api/users',
    {
      config: { auth: 'admin' },
      // Query keys are case-insensitive on the wire (`?Term=`, `?isserviceaccount=`).
      preValidation: async (request) => {
        const query = lowercaseQuery(request.query);
        if ('isserviceaccount' in query) {
          query.isServiceAccount = query.isserviceaccount;
          delete query.isserviceaccount;
        }
        request.query = query;
      },
      schema: {
        querystring: userSearchQuery,
        response: { 200: { type: 'array', items: userSchema }, ...errorResponses },
      },
    },
    async (request) => users.search(request.query),
  );

  app.get(
    '/api/user/scopes',
    {
      config: { auth: 'admin' },
      schema: {
        response: { 200: { type: 'array', items: { type: 'string' } }, ...errorResponses },
      },
    },
    async () => users.scopes(),
  );

  app.post(
    '/api/user',
    {
      config: { auth: 'admin' },
      schema: { body: changedUserBody, response: { 200: userSchema, ...errorResponses } },
    },
    async (request) => {
      const saved = await users.save(actorOf(request), request.body ?? {});
      options.listeners.revoke({ subjectId: saved.id });
      return saved;
    },
  );

  app.delete(
    '/api/user/:id',
    { schema: { params: idParams, response: { 200: emptySchema, ...errorResponses } } },
    async (request, reply) => {
      await users.remove(actorOf(request), request.params.id);
      options.listeners.revoke({ subjectId: request.params.id });
      return reply.code(200).send('');
    },
  );

  app.get(
    '/api/user/:id/workspaces',
    {
      schema: {
        params: idParams,
        response: { 200: { type: 'array', items: workspaceSummarySchema }, ...errorResponses },
      },
    },
    async (request) => users.workspaces(actorOf(request), request.params.id),
  );

  app.get(
    '/api/user/:id/gamespaces',
    {
      schema: {
        params: idParams,
        response: { 200: { type: 'array', items: gamespaceSchema }, ...errorResponses },
      },
    },
    async (request) => users.gamespaces(actorOf(request), request.params.id),
  );

  app.get(
    '/api/user/:id/worker',
    {
      schema: { params: idParams, response: { 200: { type: 'boolean' }, ...errorResponses } },
    },
    async (request) => users.canWork(request.params.id),
  );

  // The three key routes are AdminOnly in the reference. Ours also answer the user itself, signed
  // in interactively (its profile page, issue 29), so that existing clients keep the same routes;
  // an API key, a ticket or the console cookie never manages its user's keys
  // (server/core/apiKeys.ts mayManageKeysOf).
  app.get(
    '/api/user/:id/keys',
    {
      schema: {
        params: idParams,
        response: { 200: { type: 'array', items: apiKeySchema }, ...errorResponses },
      },
    },
    async (request) => users.apiKeys.list(actorOf(request), request.params.id),
  );

  app.post(
    '/api/apikey/:id',
    {
      schema: { params: idParams, response: { 200: apiKeyResultSchema, ...errorResponses } },
    },
    async (request) => users.apiKeys.create(actorOf(request), request.params.id),
  );

  app.delete(
    '/api/apikey/:keyId',
    {
      schema: { params: keyIdParams, response: { 200: emptySchema, ...errorResponses } },
    },
    async (request, reply) => {
      await users.apiKeys.remove(actorOf(request), request.params.keyId);
      return reply.code(200).send('');
    },
  );

  app.get(
    '/api/user/ticket',
    {
      // A one-time ticket (30 s, single use) for the hub and console pages.
      schema: {
        response: {
          200: { type: 'object', properties: { ticket: { type: 'string' } } },
          ...errorResponses,
        },
      },
    },
    async (request) => ({ ticket: await authenticator.issueTicket(actorOf(request)) }),
  );

  app.post(
    '/api/user/login',
    { config: { auth: 'anyUser' }, schema: { response: { 200: emptySchema, ...errorResponses } } },
    async (request, reply) => {
      await setCookie(request, reply);
      return reply.code(200).send('');
    },
  );

  app.post(
    '/api/user/logout',
    { config: { auth: 'cookie' }, schema: { response: { 200: emptySchema, ...errorResponses } } },
    async (request, reply) => {
      // Ended on the server too: a copy of the cookie (another tab, a stolen one) opens nothing.
      const { cookie } = readCredentials(request.headers, {});
      if (cookie) await authenticator.endCookie(cookie);
      const secure = request.protocol === 'https' ? '; Secure' : '';
      reply.header(
        'Set-Cookie',
        `${MKS_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure}`,
      );
      return reply.code(200).send('');
    },
  );

  app.get(
    '/api/user/ping',
    { config: { auth: 'cookie' }, schema: { response: { 200: emptySchema, ...errorResponses } } },
    async (_request, reply) => reply.code(200).send(''),
  );

  app.get(
    '/api/version',
    {
      schema: {
        response: {
          200: { type: 'object', properties: { commit: { type: 'string' } } },
          ...errorResponses,
        },
      },
    },
    async () => ({ commit: options.commit }),
  );

  app.get(
    '/api/health/version',
    {
      config: { auth: 'anonymous' },
      schema: {
        response: {
          200: { description: 'The server version, as text/plain' },
          ...anonymousErrorResponses,
        },
      },
    },
    async (_request, reply) => reply.type('text/plain; charset=utf-8').send(options.version),
  );
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MKS_COOKIE, type Authenticator } from '../../auth/authenticate';
import { actorFrom, userDto, type UserDefaults, type UserService } from '../../core/users';
import { actorOf } from '../auth';

export interface UserRoutesOptions {
  users: UserService;
  authenticator: Authenticator;
  defaults: UserDefaults;
  cookieMinutes: number;
  commit: string;
  version: string;
}

const userSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    scope: { type: 'string' },
    workspaceLimit: { type: 'integer' },
    gamespaceLimit: { type: 'integer' },
    gamespaceMaxMinutes: { type: 'integer' },
    gamespaceCleanupGraceMinutes: { type: 'integer' },
    appRole: { type: 'string' },
    lastIdpAssignedRole: { type: ['string', 'null'] },
    role: { type: 'string' },
    serviceAccountClientId: { type: ['string', 'null'] },
    whenCreated: { type: 'string' },
    isAdmin: { type: 'boolean' },
    isObserver: { type: 'boolean' },
    isCreator: { type: 'boolean' },
    isBuilder: { type: 'boolean' },
    // Ours: may register other people for a game (POST /api/gamespace with players[]).
    isRegistrar: { type: 'boolean' },
  },
} as const;

export async function userRoutes(app: FastifyInstance, options: UserRoutesOptions): Promise<void> {
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
      schema: { response: { 200: userSchema } },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const row = await users.register(actor);
      request.actor = actorFrom(row, actor, actor.lastIdpAssignedRole, options.defaults);
      await setCookie(request, reply);
      return userDto(request.actor);
    },
  );

  app.get('/api/user', { schema: { response: { 200: userSchema } } }, async (request) =>
    userDto(actorOf(request)),
  );

  app.get(
    '/api/user/ticket',
    {
      // A one-time ticket (30 s, single use) for the hub and console pages.
      schema: {
        response: { 200: { type: 'object', properties: { ticket: { type: 'string' } } } },
      },
    },
    async (request) => ({ ticket: await authenticator.issueTicket(actorOf(request)) }),
  );

  app.post('/api/user/login', { config: { auth: 'anyUser' } }, async (request, reply) => {
    await setCookie(request, reply);
    return reply.code(200).send('');
  });

  app.post('/api/user/logout', { config: { auth: 'cookie' } }, async (request, reply) => {
    const secure = request.protocol === 'https' ? '; Secure' : '';
    reply.header(
      'Set-Cookie',
      `${MKS_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure}`,
    );
    return reply.code(200).send('');
  });

  app.get('/api/user/ping', { config: { auth: 'cookie' } }, async (_request, reply) =>
    reply.code(200).send(''),
  );

  app.get(
    '/api/version',
    {
      schema: { response: { 200: { type: 'object', properties: { commit: { type: 'string' } } } } },
    },
    async () => ({ commit: options.commit }),
  );

  app.get('/api/health/version', { config: { auth: 'anonymous' } }, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send(options.version),
  );
}

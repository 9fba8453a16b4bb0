import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { ListenerRevoker } from '../../core/membership';
import type { UserService } from '../../core/users';
import { DomainError, notFound } from '../../core/errors';
import {
  accountStatus,
  AccountError,
  createAccount,
  setPasswordById,
} from '../../identity/accounts';
import type { Database } from '../../store/schema';
import { actorOf } from '../auth';
import { errorResponses, idParams } from '../schemas';
import { typed } from '../typed';

// Our own routes, not the reference's: the embedded identity provider has no screens for an
// administrator, so these let one give a user a local sign-in, set its password, or disable it.
// Administrators only. The account's id is the user's id (the `sub` of its tokens).

export interface AccountRoutesOptions {
  db: Kysely<Database>;
  users: UserService;
  /** The hub: a user whose sign-in is disabled has its live connections closed at once. */
  listeners: ListenerRevoker;
}

const accountSchema = {
  type: 'object',
  required: ['username', 'disabled'],
  properties: {
    username: {
      type: ['string', 'null'],
      description: 'The local account of the user; null when it has none.',
    },
    disabled: { type: 'boolean' },
  },
} as const;

const passwordBody = {
  type: 'object',
  required: ['password'],
  properties: {
    password: { type: 'string', minLength: 8, maxLength: 256 },
    username: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: 'Only when the user has no local account yet: the one to create.',
    },
  },
} as const;

const disabledBody = {
  type: 'object',
  required: ['disabled'],
  properties: { disabled: { type: 'boolean' } },
} as const;

export async function accountRoutes(
  fastify: FastifyInstance,
  options: AccountRoutesOptions,
): Promise<void> {
  const app = typed(fastify);
  const { db, users, listeners } = options;
  const response = { 200: accountSchema, ...errorResponses };

  app.get(
    '/api/user/:id/account',
    { config: { auth: 'admin' }, schema: { params: idParams, response } },
    async (request) => accountStatus(db, request.params.id),
  );

  app.put(
    '/api/user/:id/password',
    {
      config: { auth: 'admin' },
      schema: { params: idParams, body: passwordBody, response },
    },
    async (request) => {
      const { id } = request.params;
      const { password, username } = request.body;
      const user = await users.find(id);
      if (!user) throw notFound();
      const current = await accountStatus(db, id);
      try {
        if (current.username !== null) await setPasswordById(db, id, password);
        else
          await createAccount(db, {
            id,
            username: username ?? user.name,
            name: user.name,
            password,
          });
      } catch (error) {
        if (error instanceof AccountError && error.message === 'AccountExists')
          throw new DomainError('ResourceAlreadyExists', 'Username');
        if (error instanceof AccountError) throw new DomainError('InvalidOperation', 'Username');
        throw error;
      }
      return accountStatus(db, id);
    },
  );

  app.put(
    '/api/user/:id/disabled',
    {
      config: { auth: 'admin' },
      schema: { params: idParams, body: disabledBody, response },
    },
    async (request) => {
      const { id } = request.params;
      // Not one's own, nor the last administrator's who can sign in (server/core/users.ts).
      await users.setSignInDisabled(actorOf(request), id, request.body.disabled);
      // Tokens, tickets and cookies the user already holds are refused from now on (the
      // authenticator reads the account with the user's row); its connections close too.
      if (request.body.disabled) listeners.revoke({ subjectId: id });
      return accountStatus(db, id);
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { ListenerRevoker } from '../../core/membership';
import type { UserService } from '../../core/users';
import { DomainError, forbidden, notFound } from '../../core/errors';
import {
  accountStatus,
  AccountError,
  createAccount,
  setPasswordById,
  verifyCredentials,
} from '../../identity/accounts';
import type { Database } from '../../store/schema';
import { actorOf } from '../auth';
import { errorResponses, idParams } from '../schemas';
import { typed } from '../typed';

// Our own routes, not the reference's: the embedded identity provider has no screens for an
// administrator, so these let one give a user a local sign-in, set its password, or disable it.
// Administrators only, but for a user's own: whether it has one, and changing its password
// (the profile page, issue 29). The account's id is the user's id (the `sub` of its tokens).

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

/** A new password follows the same rule as the administrator's route above. */
const ownPasswordBody = {
  type: 'object',
  required: ['currentPassword', 'password'],
  properties: {
    currentPassword: { type: 'string', minLength: 1, maxLength: 256 },
    password: passwordBody.properties.password,
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
    // The user itself too: its profile offers a password change only to a local account.
    { schema: { params: idParams, response } },
    async (request) => {
      const actor = actorOf(request);
      if (!actor.isAdmin && actor.id !== request.params.id) throw forbidden();
      return accountStatus(db, request.params.id);
    },
  );

  app.put(
    '/api/user/password',
    {
      // Only with the access token of an interactive sign-in: an API key, a ticket or the
      // console cookie never changes the password (server/auth/authenticate.ts 'interactive').
      // The current password is checked as the sign-in page checks it, so a token left open on
      // someone else's screen is not enough to take the account over.
      config: { auth: 'interactive' },
      schema: { body: ownPasswordBody, response },
    },
    async (request) => {
      const { id } = actorOf(request);
      const { username } = await accountStatus(db, id);
      if (username === null) throw new DomainError('InvalidOperation', 'NoLocalAccount');
      const account = await verifyCredentials(db, username, request.body.currentPassword);
      if (account?.id !== id) throw new DomainError('InvalidOperation', 'WrongPassword');
      await setPasswordById(db, id, request.body.password);
      return accountStatus(db, id);
    },
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

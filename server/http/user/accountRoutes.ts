import type { FastifyInstance } from 'fastify';
import type { LocalAccountService } from '../../core/localAccounts';
import { actorOf } from '../auth';
import { errorResponses, idParams } from '../schemas';
import { typed } from '../typed';

// Our own routes, not the reference's: the embedded identity provider has no screens for an
// administrator, so these let one give a user a local sign-in, set its password, or disable it.
// Administrators only, but for a user's own: whether it has one, and changing its password
// (the profile page, issue 29). The rules are the local account service's
// (server/core/localAccounts.ts).

export interface AccountRoutesOptions {
  accounts: LocalAccountService;
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
  const { accounts } = options;
  const response = { 200: accountSchema, ...errorResponses };

  app.get(
    '/api/user/:id/account',
    // The user itself too: its profile offers a password change only to a local account.
    { schema: { params: idParams, response } },
    async (request) => accounts.status(actorOf(request), request.params.id),
  );

  app.put(
    '/api/user/password',
    {
      // Only with the access token of an interactive sign-in: an API key, a ticket or the
      // console cookie never changes the password (server/auth/authenticate.ts 'interactive').
      config: { auth: 'interactive' },
      schema: { body: ownPasswordBody, response },
    },
    async (request) =>
      accounts.changeOwnPassword(
        actorOf(request),
        request.body.currentPassword,
        request.body.password,
      ),
  );

  app.put(
    '/api/user/:id/password',
    {
      config: { auth: 'admin' },
      schema: { params: idParams, body: passwordBody, response },
    },
    async (request) =>
      accounts.setPassword(request.params.id, request.body.password, request.body.username),
  );

  app.put(
    '/api/user/:id/disabled',
    {
      config: { auth: 'admin' },
      schema: { params: idParams, body: disabledBody, response },
    },
    async (request) =>
      accounts.setDisabled(actorOf(request), request.params.id, request.body.disabled),
  );
}

import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import type { Interaction, InteractionResults } from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Database } from '../store/schema';
import { verifyCredentials } from './accounts';
import { errorPage, loginPage, type Page } from './pages';
import { firstPartyGrant, type IdentityLogger } from './provider';

// The provider sends the browser here when it needs the user: a login page of our own (the
// consent prompt only appears when a client asks for it with prompt=consent, and is granted at
// once for the configured first-party clients).

/**
 * Slows password guessing down: after some failed sign-ins, from one address to one account or
 * to any, each next try must wait longer. The wait is per address, so an attacker hammering an
 * account never keeps its owner out (server/http/rateLimit.ts implements it).
 */
export interface SignInThrottle {
  /** Milliseconds this request's address must still wait before trying `username`; 0: now. */
  wait(request: FastifyRequest, username: string): Promise<number>;
  /** Counts a failed sign-in to `username` from this request's address. */
  failed(request: FastifyRequest, username: string): Promise<void>;
}

/** No throttle: for a provider mounted without the server's limits (its own tests). */
export const unthrottled: SignInThrottle = { wait: async () => 0, failed: async () => {} };

export interface InteractionSetup {
  provider: Provider;
  db: Kysely<Database>;
  mountPath: string;
  appName: string;
  resourceIndicator: string;
  logger: IdentityLogger;
  throttle: SignInThrottle;
}

const FORM_LIMIT = 16 * 1024;
const EXPIRED = 'This sign-in request has expired or was already completed.';

type UidRequest = FastifyRequest<{ Params: { uid: string } }>;

const uidSchema = {
  params: {
    type: 'object',
    properties: { uid: { type: 'string', minLength: 1, maxLength: 128 } },
    required: ['uid'],
  },
} as const;

class FormTooLarge extends Error {}

/** Reads an urlencoded body from the raw request (the plugin leaves bodies unparsed). */
async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) {
    return new URLSearchParams();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT) throw new FormTooLarge();
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sendPage(reply: FastifyReply, page: Page): FastifyReply {
  return reply.code(page.status).headers(page.headers).send(page.body);
}

export function registerInteractions(app: FastifyInstance, setup: InteractionSetup): void {
  const { provider, mountPath, appName, logger } = setup;
  const base = `${mountPath}/interaction`;

  const showError = (reply: FastifyReply, status: number, message: string) =>
    sendPage(reply, errorPage({ appName, status, message }));

  const showLogin = (
    uid: string,
    options: { username?: string; failed?: boolean; retryAfterSeconds?: number } = {},
  ) =>
    loginPage({
      appName,
      action: `${base}/${encodeURIComponent(uid)}/login`,
      abortUrl: `${base}/${encodeURIComponent(uid)}/abort`,
      ...options,
    });

  /** The pending interaction of this browser, when it is the one named in the URL. */
  async function pendingInteraction(request: UidRequest, reply: FastifyReply) {
    try {
      const details = await provider.interactionDetails(request.raw, reply.raw);
      return details.uid === request.params.uid ? details : undefined;
    } catch (error) {
      if (error instanceof errors.SessionNotFound) return undefined;
      throw error;
    }
  }

  /**
   * Stores the result in the interaction already loaded and answers where the browser goes next,
   * as provider.interactionResult does, without reading the cookie and the interaction again.
   */
  async function finish(interaction: Interaction, result: InteractionResults): Promise<string> {
    interaction.result = { ...interaction.lastSubmission, ...result };
    await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
    return interaction.returnTo;
  }

  /** Runs a handler; unexpected errors are logged and answered with a page without details. */
  function guarded(handler: (request: UidRequest, reply: FastifyReply) => Promise<unknown>) {
    return async (request: UidRequest, reply: FastifyReply) => {
      try {
        return await handler(request, reply);
      } catch (error) {
        if (error instanceof FormTooLarge) return showError(reply, 413, 'The form was too large.');
        logger.error({ err: error, url: request.url }, 'identity: interaction failed');
        return showError(reply, 500, 'The sign-in service had an unexpected problem.');
      }
    };
  }

  app.get(
    `${base}/:uid`,
    { schema: uidSchema },
    guarded(async (request, reply) => {
      const details = await pendingInteraction(request, reply);
      if (!details) return showError(reply, 400, EXPIRED);
      if (details.prompt.name === 'login') return sendPage(reply, showLogin(details.uid));
      if (details.prompt.name === 'consent' && details.session?.accountId) {
        const grant = await firstPartyGrant(provider, setup.resourceIndicator, {
          clientId: String(details.params.client_id),
          accountId: details.session.accountId,
          grantId: details.grantId,
          requestedScope: details.params.scope,
        });
        return reply.redirect(await finish(details, { consent: { grantId: grant.jti } }), 303);
      }
      logger.warn({ prompt: details.prompt.name }, 'identity: unsupported interaction prompt');
      return showError(reply, 400, 'This sign-in request cannot be completed here.');
    }),
  );

  app.post(
    `${base}/:uid/login`,
    { schema: uidSchema },
    guarded(async (request, reply) => {
      const form = await readForm(request.raw);
      const details = await pendingInteraction(request, reply);
      if (!details || details.prompt.name !== 'login') return showError(reply, 400, EXPIRED);
      const username = form.get('username') ?? '';
      // A try that must wait is refused before the password is checked, and does not count.
      const waitMs = await setup.throttle.wait(request, username);
      if (waitMs > 0) {
        const retryAfterSeconds = Math.ceil(waitMs / 1000);
        return sendPage(reply, showLogin(details.uid, { username, retryAfterSeconds }));
      }
      const account = await verifyCredentials(setup.db, username, form.get('password') ?? '');
      if (!account) {
        await setup.throttle.failed(request, username);
        return sendPage(reply, showLogin(details.uid, { username, failed: true }));
      }
      return reply.redirect(await finish(details, { login: { accountId: account.id } }), 303);
    }),
  );

  app.get(
    `${base}/:uid/abort`,
    { schema: uidSchema },
    guarded(async (request, reply) => {
      const details = await pendingInteraction(request, reply);
      if (!details) return showError(reply, 400, EXPIRED);
      const returnTo = await provider.interactionResult(request.raw, reply.raw, {
        error: 'access_denied',
        error_description: 'The user cancelled the sign-in.',
      });
      return reply.redirect(returnTo, 303);
    }),
  );
}

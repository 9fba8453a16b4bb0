import { createHash } from 'node:crypto';
import fastifyRateLimit, { normalizeIP, type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { credentialsOf, policyOf, routedPath } from './auth';
import type { SignInThrottle } from '../identity';

// Abuse limits, per client address (request.ip: set TRUST_PROXY behind a reverse proxy, or every
// client is the proxy). Counters live in Redis when REDIS_URL is set, so every server process
// shares them; in memory otherwise. An address over a limit gets 429 with Retry-After.
//
// - Routes that need no sign-in (/identity, /hub, anonymous /api routes): requests per minute.
// - API keys and tickets: refused ones (401 to a request that carried one) are counted; over the
//   limit, a refused one is answered 429 instead. The credential is looked up first either way:
//   everyone behind one address (a classroom's NAT, a proxy without TRUST_PROXY) shares its
//   count, so a valid key or ticket is served whatever others there got wrong, while a guesser
//   there is refused. Every request carrying one reads the count, so that a valid and a refused
//   one take as long. Bearer tokens and the console cookie are signed, so guessing them is
//   pointless; they are not counted.
// - Sign-in to the embedded provider: failed sign-ins are counted per account and address and per
//   address; past the free ones, each next try waits twice as long as the one before. Nothing is
//   counted per account alone, so hammering a victim's account never locks its owner out.

export const ANONYMOUS_WINDOW_MS = 60_000;
export const CREDENTIAL_FAILURE_WINDOW_MS = 5 * 60_000;
/** How long failed sign-ins are remembered, from the first one. */
export const SIGN_IN_FAILURE_WINDOW_MS = 60 * 60_000;
/** The wait after the first failed sign-in past the free ones; it doubles with each next one. */
export const SIGN_IN_FIRST_DELAY_MS = 1_000;
export const SIGN_IN_MAX_DELAY_MS = 15 * 60_000;

export interface RateLimitSettings {
  /** Requests per minute and address to routes that need no sign-in; 0: unlimited. */
  anonymousPerMinute: number;
  /** Refused API keys and tickets per address in CREDENTIAL_FAILURE_WINDOW_MS; 0: unlimited. */
  credentialFailures: number;
  /** Failed sign-ins to one account from one address before the delay; 0: no delay. */
  signInFailuresPerAccount: number;
  /** Failed sign-ins from one address before the delay; 0: no delay. */
  signInFailuresPerAddress: number;
}

export interface RateLimitSetup {
  limits: RateLimitSettings;
  /** Redis shared by the server processes; null keeps the counters in memory. */
  redis: { url: string; prefix: string; onError(error: unknown): void } | null;
}

/** The wait after `excess` failed sign-ins past the free ones (1 s, 2 s, 4 s, ... 15 min). */
export function signInDelayMs(excess: number): number {
  if (excess <= 0) return 0;
  return Math.min(SIGN_IN_FIRST_DELAY_MS * 2 ** Math.min(excess - 1, 30), SIGN_IN_MAX_DELAY_MS);
}

/** Routes that need no sign-in and cost the server work: everything else anonymous is a file. */
const LIMITED_ANONYMOUS = /^\/(api|hub|identity)(\/|$)/;

interface Count {
  /** How many were counted in the current window (0 when it has expired). */
  current: number;
  /** Milliseconds left in the current window. */
  ttlMs: number;
}

type Counter = (request: FastifyRequest, key: string, increment: boolean) => Promise<Count>;

/** Keys each in-memory counter keeps (least recently used dropped first). */
const LOCAL_KEYS = 10_000;

/** A number big enough never to be reached, so that `remaining` tells the count. */
const UNREACHABLE = Number.MAX_SAFE_INTEGER;

const TOO_MANY_REQUESTS = { message: 'TooManyRequests' };

/** Sets a 429's status and Retry-After; its body is TOO_MANY_REQUESTS. */
function throttled(reply: FastifyReply, waitMs: number): FastifyReply {
  return reply.code(429).header('Retry-After', String(Math.max(1, Math.ceil(waitMs / 1000))));
}

function tooManyRequests(reply: FastifyReply, waitMs: number) {
  return throttled(reply, waitMs).send(TOO_MANY_REQUESTS);
}

/** The credential a caller could be guessing: an API key or a ticket. */
function guessableCredential(request: FastifyRequest): boolean {
  // The cookie is left out: it is signed.
  const creds = credentialsOf(request);
  return Boolean(creds.apiKey || creds.ticket);
}

const hashed = (value: string) => createHash('sha256').update(value).digest('base64url');

/**
 * Registers the limits on `app` (before the routes they guard, and before authentication, so
 * that a request refused for its rate costs no credential lookup, and a refused credential's
 * count is read before it is looked up) and returns the sign-in throttle for the embedded
 * identity provider.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  options: RateLimitSetup,
): Promise<{ signIn: SignInThrottle; credentialRefused(request: FastifyRequest): Promise<void> }> {
  const { limits } = options;
  let redis: Redis | null = null;
  if (options.redis) {
    // A rate limiter must not hold requests while Redis is away: one retry, then the request
    // goes through uncounted (skipOnError).
    redis = new Redis(options.redis.url, { maxRetriesPerRequest: 1 });
    redis.on('error', options.redis.onError);
    app.addHook('onClose', async () => {
      await redis?.quit().catch(() => redis?.disconnect());
    });
  }
  await app.register(fastifyRateLimit, {
    global: false,
    skipOnError: true,
    ...(redis ? { redis, nameSpace: `${options.redis?.prefix ?? ''}ratelimit:` } : {}),
  });

  /** A counter of its own; `name` keeps its keys apart from the others' in a shared store. */
  function counter(name: string, settings: RateLimitOptions): Counter {
    const keys = new WeakMap<FastifyRequest, string>();
    const limit = app.createRateLimit({
      cache: LOCAL_KEYS,
      ...settings,
      keyGenerator: (request) => `${name}:${keys.get(request) ?? ''}`,
    });
    return async (request, key, increment) => {
      // The key generator runs synchronously at the start of the call: the key set here is read.
      keys.set(request, key);
      const result = await limit(request, { increment });
      if (result.isAllowed) return { current: 0, ttlMs: 0 };
      return { current: result.max - result.remaining, ttlMs: result.ttl };
    };
  }

  const address = (request: FastifyRequest) => normalizeIP(request.ip);

  if (limits.anonymousPerMinute > 0) {
    const anonymous = counter('anonymous', {
      max: UNREACHABLE,
      timeWindow: ANONYMOUS_WINDOW_MS,
    });
    app.addHook('onRequest', (request, reply, done) => {
      if (policyOf(request) !== 'anonymous' || !LIMITED_ANONYMOUS.test(routedPath(request))) {
        return done();
      }
      anonymous(request, address(request), true).then(
        (count) => {
          if (count.current > limits.anonymousPerMinute) tooManyRequests(reply, count.ttlMs);
          else done();
        },
        (error: Error) => done(error),
      );
    });
  }

  /** Counts a credential a route refused without answering 401 (a console socket's ticket). */
  let credentialRefused: (request: FastifyRequest) => Promise<void> = async () => {};
  if (limits.credentialFailures > 0) {
    const failures = counter('credential', {
      max: UNREACHABLE,
      timeWindow: CREDENTIAL_FAILURE_WINDOW_MS,
    });
    // The address's count when a request carrying an API key or a ticket arrived.
    const counted = new WeakMap<FastifyRequest, Count>();
    // Callback hooks: a request without a key or a ticket (most of them) costs no promise.
    app.addHook('onRequest', (request, _reply, done) => {
      if (!guessableCredential(request)) return done();
      failures(request, address(request), false).then(
        (count) => {
          counted.set(request, count);
          done();
        },
        (error: Error) => done(error),
      );
    });
    // Whatever route refused the credential (the API's authentication, the hub's), its 401
    // becomes 429 once the address is over the limit.
    // A callback hook: it runs for every answer, and an async one costs a promise each time.
    app.addHook('onSend', (request, reply, payload, done) => {
      const count = counted.get(request);
      if (reply.statusCode !== 401 || !count || count.current < limits.credentialFailures) {
        done(null, payload);
        return;
      }
      throttled(reply, count.ttlMs)
        .removeHeader('WWW-Authenticate')
        .type('application/json; charset=utf-8');
      done(null, JSON.stringify(TOO_MANY_REQUESTS));
    });
    app.addHook('onResponse', (request, reply, done) => {
      if (reply.statusCode !== 401 || !counted.has(request)) return done();
      failures(request, address(request), true).then(
        () => done(),
        (error: Error) => done(error),
      );
    });
    credentialRefused = async (request) => {
      await failures(request, address(request), true);
    };
  }

  /**
   * Failed sign-ins under one key, and the wait they impose. The count runs for
   * SIGN_IN_FAILURE_WINDOW_MS from the first failure; the time of the last failure is a second
   * counter whose window restarts with each failure, so its remaining time tells how long ago
   * that was.
   */
  function growingDelay(name: string, free: number) {
    const count = counter(`${name}:count`, {
      max: UNREACHABLE,
      timeWindow: SIGN_IN_FAILURE_WINDOW_MS,
    });
    const last = counter(`${name}:last`, {
      max: 0,
      timeWindow: SIGN_IN_MAX_DELAY_MS,
      continueExceeding: true,
    });
    return {
      async wait(request: FastifyRequest, key: string): Promise<number> {
        if (free <= 0) return 0;
        const failed = (await count(request, key, false)).current;
        if (failed <= free) return 0;
        const { ttlMs } = await last(request, key, false);
        if (ttlMs <= 0) return 0;
        const sinceLastMs = SIGN_IN_MAX_DELAY_MS - ttlMs;
        return Math.max(0, signInDelayMs(failed - free) - sinceLastMs);
      },
      async failed(request: FastifyRequest, key: string): Promise<void> {
        if (free <= 0) return;
        await count(request, key, true);
        await last(request, key, true);
      },
    };
  }

  const perAccount = growingDelay('signin:account', limits.signInFailuresPerAccount);
  const perAddress = growingDelay('signin:address', limits.signInFailuresPerAddress);
  // Usernames are hashed: keys stay short whatever is typed, and Redis holds no usernames.
  const accountKey = (request: FastifyRequest, username: string) =>
    `${hashed(username.trim().toLowerCase())}:${address(request)}`;

  return {
    credentialRefused: (request) => credentialRefused(request),
    signIn: {
      async wait(request, username) {
        const [account, from] = await Promise.all([
          perAccount.wait(request, accountKey(request, username)),
          perAddress.wait(request, address(request)),
        ]);
        return Math.max(account, from);
      },
      async failed(request, username) {
        await Promise.all([
          perAccount.failed(request, accountKey(request, username)),
          perAddress.failed(request, address(request)),
        ]);
      },
    },
  };
}

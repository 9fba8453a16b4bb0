import type { FastifyInstance } from 'fastify';
import { anonymousErrorResponses } from './schemas';
import { typed } from './typed';

// Health probes, for the container's healthcheck, the compose file and Kubernetes. Both are
// anonymous, answer HEAD too, and tell nothing but a check's name and whether it passed.
// - GET /api/health/live: the process answers requests. Nothing else is looked at: a database
//   outage must not get every replica restarted.
// - GET /api/health/ready: this replica can serve: the database answers and holds every migration
//   this build knows, Redis answers (when REDIS_URL is set), the hypervisor driver is ready. 503
//   names the failing checks; a load balancer then sends its requests to other replicas.
// Probes come every few seconds from several places, so the checks run one round at a time,
// in parallel, each for READY_TIMEOUT_MS at most (a database that hangs answers 503, not never),
// and a round's outcome answers the probes of the next READY_REUSE_MS.

export const READY_TIMEOUT_MS = 2_000;
export const READY_REUSE_MS = 1_000;

export class TimeoutError extends Error {}

/** `work`, or a TimeoutError once `ms` have passed; the timer never holds the process open. */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export interface ReadinessSources {
  /**
   * The migrations this build knows that the database has not applied; rejects when the
   * database does not answer.
   */
  pendingMigrations(): Promise<readonly string[]>;
  /** Resolves once Redis has answered; null when the server uses no Redis. */
  redis: (() => Promise<unknown>) | null;
  /** Resolves when the hypervisor driver can serve calls. */
  hypervisor(): Promise<void>;
}

type CheckStatus = 'ok' | 'failed';

const readySchema = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ok', 'unavailable'] },
    checks: {
      type: 'object',
      description: 'database, migrations, redis (when configured), hypervisor: ok or failed',
      additionalProperties: { type: 'string', enum: ['ok', 'failed'] },
    },
  },
} as const;

const liveSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ok'] } },
} as const;

interface Round {
  ready: boolean;
  checks: Record<string, CheckStatus>;
  /** Why each failed check failed, for the log (never for the answer). */
  problems: Record<string, string>;
}

export async function healthRoutes(
  fastify: FastifyInstance,
  options: { sources: ReadinessSources },
): Promise<void> {
  const app = typed(fastify);
  const { sources } = options;

  async function runChecks(): Promise<Round> {
    const [database, redis, hypervisor] = await Promise.allSettled([
      withTimeout(sources.pendingMigrations(), READY_TIMEOUT_MS),
      sources.redis ? withTimeout(sources.redis(), READY_TIMEOUT_MS) : null,
      withTimeout(sources.hypervisor(), READY_TIMEOUT_MS),
    ]);
    const problems: Record<string, string> = {};
    const outcome = (name: string, result: PromiseSettledResult<unknown>): CheckStatus => {
      if (result.status === 'fulfilled') return 'ok';
      problems[name] =
        result.reason instanceof Error ? result.reason.message : String(result.reason);
      return 'failed';
    };
    const checks: Record<string, CheckStatus> = { database: outcome('database', database) };
    if (database.status === 'fulfilled' && database.value.length > 0) {
      problems.migrations = `not applied: ${database.value.join(', ')}`;
      checks.migrations = 'failed';
    } else {
      // Unknown when the database does not answer: not ready either way.
      checks.migrations = database.status === 'fulfilled' ? 'ok' : 'failed';
    }
    if (sources.redis) checks.redis = outcome('redis', redis);
    checks.hypervisor = outcome('hypervisor', hypervisor);
    return { ready: Object.values(checks).every((c) => c === 'ok'), checks, problems };
  }

  let round: Promise<Round> | null = null;
  let roundEnded = 0;
  let wasReady = true;

  /** The current round, or a new one once the last is older than READY_REUSE_MS. */
  function readiness(): Promise<Round> {
    if (round && (roundEnded === 0 || Date.now() - roundEnded < READY_REUSE_MS)) return round;
    roundEnded = 0;
    const current = runChecks().then((result) => {
      roundEnded = Date.now();
      // Changes only: a replica that stays down is probed every few seconds.
      if (wasReady && !result.ready) {
        app.log.warn({ checks: result.problems }, 'not ready');
      } else if (!wasReady && result.ready) {
        app.log.info('ready again');
      }
      wasReady = result.ready;
      return result;
    });
    round = current;
    return current;
  }

  app.get(
    '/api/health/live',
    {
      config: { auth: 'anonymous' },
      schema: {
        description: 'Whether the process answers (liveness). Checks nothing else.',
        response: {
          200: { ...liveSchema, description: 'The process is up' },
          ...anonymousErrorResponses,
        },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { status: 'ok' as const };
    },
  );

  app.get(
    '/api/health/ready',
    {
      config: { auth: 'anonymous' },
      schema: {
        description:
          'Whether this server can serve (readiness): the database answers and is migrated, ' +
          'Redis answers when configured, the hypervisor driver is ready.',
        response: {
          200: { ...readySchema, description: 'Every check passed' },
          503: { ...readySchema, description: 'A check failed: its value is failed' },
          ...anonymousErrorResponses,
        },
      },
    },
    async (_request, reply) => {
      const { ready, checks } = await readiness();
      reply.header('Cache-Control', 'no-store');
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
    },
  );
}

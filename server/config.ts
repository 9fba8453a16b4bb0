import { resolve } from 'node:path';

// Every setting comes from the environment (documented in README.md with its default).

export interface Config {
  port: number;
  host: string;
  /** The address people use to reach this server; the embedded identity provider's issuer. */
  publicUrl: string;
  /** Other origins the SPA may be served from (the Vite dev server), allowed to sign in. */
  extraOrigins: string[];
  dataDir: string;
  /** A postgres:// URL, or the SQLite file path. */
  databaseUrl: string;
  /** PostgreSQL schema (tests give each run its own). */
  databaseSchema?: string;
  appName: string;
  /** Where the SPA calls the API ('' = same origin). */
  appHost: string;
  mksHost: string;
  enableUpload: boolean;
  /** The largest ISO upload accepted, declared or streamed (UPLOAD_MAX_BYTES). */
  uploadMaxBytes: number;
  /** An upload is refused when it would leave less free disk space than this. */
  uploadFreeMarginBytes: number;
  /** The xorriso command that wraps a non-ISO upload into an ISO image. */
  xorriso: string;
  oidc: {
    /** External authority; empty means the embedded provider at {publicUrl}/identity. */
    authority: string;
    clientId: string;
    audience: string;
    scope: string;
    autoLogin: boolean;
    useLocalStorage: boolean;
    /** JSON path of the identity provider's role list in the token (Keycloak layout by default). */
    rolesClaimPath: string;
    accessTokenTtlSeconds: number;
    /** Sign-ins in progress the embedded provider keeps at most; the oldest are dropped. */
    maxPendingSignIns: number;
  };
  /** Abuse limits per client address (0 turns one off); see server/http/rateLimit.ts. */
  limits: {
    /** Requests per minute to routes that need no sign-in (/identity, /hub, anonymous /api). */
    anonymousPerMinute: number;
    /** Refused API keys and tickets before requests carrying one answer 429. */
    credentialFailures: number;
    /** Failed sign-ins to one account from one address before each next try must wait. */
    signInFailuresPerAccount: number;
    /** Failed sign-ins from one address, to any account, before each next try must wait. */
    signInFailuresPerAddress: number;
  };
  mksCookieMinutes: number;
  defaultWorkspaceLimit: number;
  defaultGamespaceLimit: number;
  /** Known password for the seeded accounts (tests); generated when empty. */
  seedPassword: string;
  commit: string;
  spaDir: string;
  logLevel: string;
  /** Trust X-Forwarded-* headers (only behind a reverse proxy that sets them). */
  trustProxy: boolean;
  /** How long clients may take and how many connections they may hold (server/http/connections.ts). */
  http: {
    /** A request's headers must arrive within this, from the connection's first byte. */
    headersTimeoutMs: number;
    /** A request's body must arrive within this, upload routes aside. */
    bodyTimeoutMs: number;
    /** A body (an upload's too) that makes no progress for this long is dropped. */
    idleBodyTimeoutMs: number;
    /** Open connections per client address; 0 is no cap. Not applied with TRUST_PROXY. */
    maxConnectionsPerClient: number;
  };
  /** Redis shared by several server processes (cache, hub); empty keeps both in memory. */
  redisUrl: string;
  /** Prefix of every Redis key and channel, so several deployments can share one Redis. */
  redisPrefix: string;
  /** How often the hub pings each connection. */
  hubKeepAliveMs: number;
  /** How long the hub keeps a connection whose client sends nothing. */
  hubClientTimeoutMs: number;
  /** How long a game state is kept for GET /api/gamespace/{id}; 0 keeps none. */
  stateCacheMs: number;
  /** The hypervisor driver: 'sim' (simulated machines kept in the database). */
  hypervisor: 'sim';
  /**
   * How much faster than real time the sim driver's tasks run: 1 is realistic (a deploy takes a
   * few seconds), 10 is ten times faster, 0 completes every task at once (tests).
   */
  simSpeed: number;
  /** The janitor's background runs (wire reference §4.6): randomized delays, in milliseconds. */
  janitor: {
    /** JANITOR_ENABLED: false leaves expiry and machine cleanup to POST /api/admin/janitor. */
    enabled: boolean;
    startMs: readonly [number, number];
    intervalMs: readonly [number, number];
    /** The workspace report runs every this many runs. */
    cleanupEveryTicks: readonly [number, number];
  };
}

function bool(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return /^(1|true|yes|on)$/i.test(value);
}

function int(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number.parseInt(value, 10);
  if (!Number.isFinite(n)) throw new Error(`expected an integer, got '${value}'`);
  return n;
}

/** A timeout must be set: 0 would hold a slow client's connection forever. */
function positive(n: number, name: string): number {
  if (n <= 0) throw new Error(`${name}: expected a number of milliseconds above 0, got ${n}`);
  return n;
}

function bounded(n: number, [min, max]: readonly [number, number], name: string): number {
  if (n < min || n > max) throw new Error(`${name}: expected ${min} to ${max}, got ${n}`);
  return n;
}

/** "60-90" (or "60") as an inclusive range, scaled (seconds to milliseconds). */
function range(
  value: string | undefined,
  fallback: readonly [number, number],
  name: string,
  scale = 1,
): readonly [number, number] {
  if (value === undefined || value === '') return [fallback[0] * scale, fallback[1] * scale];
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(value);
  const min = Number(match?.[1]);
  const max = match?.[2] === undefined ? min : Number(match[2]);
  if (!match || max < min) throw new Error(`${name}: expected N or MIN-MAX, got '${value}'`);
  return [min * scale, max * scale];
}

function hypervisorOf(value: string | undefined): 'sim' {
  const name = (value || 'sim').trim().toLowerCase();
  if (name !== 'sim') throw new Error(`HYPERVISOR: unknown driver '${value}' (available: sim)`);
  return name;
}

function speed(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new Error(`SIM_SPEED: expected a number >= 0, got '${value}'`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env.PORT, 5080);
  const host = env.HOST || '0.0.0.0';
  const publicUrl = (env.TOPOPLAY_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  const dataDir = resolve(env.TOPOPLAY_DATA || './data');
  return {
    port,
    host,
    publicUrl,
    extraOrigins: (env.TOPOPLAY_EXTRA_ORIGINS || '')
      .split(',')
      .map((o) => o.trim().replace(/\/+$/, ''))
      .filter(Boolean),
    dataDir,
    databaseUrl: env.DATABASE_URL || resolve(dataDir, 'topoplay.db'),
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    appName: env.APP_NAME || 'Topoplay',
    appHost: env.APP_HOST || '',
    mksHost: env.MKS_HOST || '',
    enableUpload: bool(env.ENABLE_UPLOAD, true),
    uploadMaxBytes: int(env.UPLOAD_MAX_BYTES, 10 * 1024 ** 3),
    uploadFreeMarginBytes: int(env.UPLOAD_FREE_MARGIN_BYTES, 1024 ** 3),
    xorriso: env.XORRISO || 'xorriso',
    oidc: {
      authority: (env.OIDC_AUTHORITY || '').replace(/\/+$/, ''),
      clientId: env.OIDC_CLIENT_ID || 'topoplay-ui',
      audience: env.OIDC_AUDIENCE || 'topoplay-api',
      scope: env.OIDC_SCOPE || 'openid profile',
      autoLogin: bool(env.OIDC_AUTO_LOGIN, false),
      useLocalStorage: bool(env.OIDC_USE_LOCAL_STORAGE, false),
      rolesClaimPath: env.OIDC_ROLES_CLAIM_PATH ?? 'realm_access.roles',
      accessTokenTtlSeconds: int(env.IDENTITY_ACCESS_TOKEN_TTL, 3600),
      maxPendingSignIns: int(env.IDENTITY_PENDING_SIGNINS, 5_000),
    },
    // Limits count per client address, and a class or a team often shares one behind NAT: the
    // defaults leave room for a hundred people signing in at once from one address.
    limits: {
      anonymousPerMinute: int(env.RATE_LIMIT_ANONYMOUS, 3_000),
      credentialFailures: int(env.RATE_LIMIT_CREDENTIALS, 30),
      signInFailuresPerAccount: int(env.SIGNIN_FREE_FAILURES, 5),
      signInFailuresPerAddress: int(env.SIGNIN_ADDRESS_FAILURES, 100),
    },
    mksCookieMinutes: int(env.MKS_COOKIE_MINUTES, 60),
    defaultWorkspaceLimit: int(env.DEFAULT_WORKSPACE_LIMIT, 0),
    defaultGamespaceLimit: int(env.DEFAULT_GAMESPACE_LIMIT, 2),
    seedPassword: env.TOPOPLAY_SEED_PASSWORD || '',
    commit: env.COMMIT || 'dev',
    spaDir: resolve(env.TOPOPLAY_SPA || './dist'),
    logLevel: env.LOG_LEVEL || 'info',
    trustProxy: bool(env.TRUST_PROXY, false),
    http: {
      headersTimeoutMs: positive(int(env.HEADERS_TIMEOUT_MS, 20_000), 'HEADERS_TIMEOUT_MS'),
      bodyTimeoutMs: positive(int(env.BODY_TIMEOUT_MS, 60_000), 'BODY_TIMEOUT_MS'),
      idleBodyTimeoutMs: positive(int(env.BODY_IDLE_TIMEOUT_MS, 60_000), 'BODY_IDLE_TIMEOUT_MS'),
      maxConnectionsPerClient: bounded(
        int(env.MAX_CLIENT_CONNECTIONS, 512),
        [0, Number.MAX_SAFE_INTEGER],
        'MAX_CLIENT_CONNECTIONS',
      ),
    },
    redisUrl: env.REDIS_URL || '',
    redisPrefix: env.REDIS_PREFIX || 'topoplay:',
    hubKeepAliveMs: int(env.HUB_KEEP_ALIVE_MS, 15_000),
    hubClientTimeoutMs: int(env.HUB_CLIENT_TIMEOUT_MS, 30_000),
    stateCacheMs: bounded(int(env.STATE_CACHE_MS, 1_000), [0, 10_000], 'STATE_CACHE_MS'),
    hypervisor: hypervisorOf(env.HYPERVISOR),
    simSpeed: speed(env.SIM_SPEED),
    janitor: {
      enabled: bool(env.JANITOR_ENABLED, true),
      startMs: range(env.JANITOR_START_SECONDS, [30, 60], 'JANITOR_START_SECONDS', 1000),
      intervalMs: range(env.JANITOR_INTERVAL_SECONDS, [60, 90], 'JANITOR_INTERVAL_SECONDS', 1000),
      cleanupEveryTicks: range(env.JANITOR_CLEANUP_RUNS, [60, 90], 'JANITOR_CLEANUP_RUNS'),
    },
  };
}

/** The issuer the API trusts: the external authority, or the embedded provider. */
export function authority(config: Config): string {
  return config.oidc.authority || `${config.publicUrl}/identity`;
}

export function usesEmbeddedIdentity(config: Config): boolean {
  return !config.oidc.authority;
}

/**
 * Origins from which the SPA may sign in: the public URL, the same port on the other loopback
 * name (people type either localhost or 127.0.0.1), and any extra origins.
 */
export function allowedOrigins(config: Config): string[] {
  const origins = new Set<string>();
  const base = new URL(config.publicUrl);
  origins.add(base.origin);
  const loopback: Record<string, string> = { localhost: '127.0.0.1', '127.0.0.1': 'localhost' };
  const other = loopback[base.hostname];
  if (other) origins.add(`${base.protocol}//${other}${base.port ? `:${base.port}` : ''}`);
  for (const o of config.extraOrigins) origins.add(new URL(o).origin);
  return [...origins];
}

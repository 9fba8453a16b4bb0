import { resolve } from 'node:path';
import envSchema, { type EnvSchemaOpt } from 'env-schema';
import type { ConsoleLimits } from './console/limits';

// Every setting comes from the environment, parsed against one schema (docs/configuration.md
// lists the same variables, forms and defaults; server/config.test.ts checks
// that the two agree). A value that does not fit stops the start with a ConfigError naming it.

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
  /** JSON lines, or pino-pretty's lines for people; unset: pretty when stdout is a terminal. */
  logFormat?: 'json' | 'pretty';
  /** The bearer token of GET /metrics; empty leaves the metrics off (server/metrics.ts). */
  metricsToken: string;
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
    /** The slowest an upload may come, averaged over each bodyTimeoutMs; 0: any pace. */
    uploadMinBytesPerSecond: number;
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
  /** The most people one presence message names; per-member presence up to this many members. */
  hubPresenceLimit: number;
  /** Caps on open console sockets, and the handshake's deadline (server/console/limits.ts). */
  console: ConsoleLimits;
  /** Console recordings (server/console/recordings.ts). */
  recording: {
    /** RECORD_CONSOLES: recording is on for workspaces that have not chosen. */
    defaultOn: boolean;
    /** RECORDING_MAX_BYTES: a session's record stream stops there (uncompressed), truncated. */
    maxBytes: number;
    /** RECORDING_RETENTION_DAYS: the janitor removes recordings begun longer ago than this. */
    retentionMs: number;
    /** `{data}/recordings`: one folder per gamespace, one gzip file per recording. */
    dir: string;
  };
  /**
   * On SIGTERM or SIGINT, how long requests under way get to finish once the server has stopped
   * accepting; whatever is still open then is cut (an upload cut short is discarded).
   */
  shutdownGraceMs: number;
  /** How long a game state is kept for GET /api/gamespace/{id}; 0 keeps none. */
  stateCacheMs: number;
  /**
   * The hypervisor driver: 'sim' (simulated machines kept in the database), 'qemu' (real
   * machines on this Linux host, one QEMU process each) or 'proxmox' (a Proxmox VE cluster).
   */
  hypervisor: 'sim' | 'qemu' | 'proxmox';
  /** The qemu driver's folders and caps. */
  qemu: {
    /** Base images (QEMU_IMAGES_DIR, default `{data}/images`); templates' disk paths are in it. */
    imagesDir: string;
    /** Machine folders and the switch (QEMU_STATE_DIR, default `{data}/qemu`). */
    stateDir: string;
    /** QEMU_MAX_RUNNING: most machines running at once; null: no cap. */
    maxRunning: number | null;
    /** QEMU_MAX_MEMORY_MIB: most memory of running machines; null: 3/4 of the host's. */
    maxMemoryMiB: number | null;
    /** QEMU_WARM_IMAGES: player machines resume from warm images of their template. */
    warmImages: boolean;
  };
  /** The proxmox driver's cluster, credentials and where it puts things. */
  proxmox: {
    /** PROXMOX_URL: the API of one node (or a proxy in front of the cluster), e.g. https://pve1:8006. */
    url: string;
    /** PROXMOX_TOKEN_ID (`user@realm!name`) and PROXMOX_TOKEN_SECRET. */
    tokenId: string;
    tokenSecret: string;
    /** PROXMOX_CA: a PEM file of the CA that signed the cluster's certificate; null: the system's. */
    caFile: string | null;
    /** PROXMOX_FINGERPRINT: the SHA-256 fingerprint of the certificate to accept; null: none pinned. */
    fingerprint: string | null;
    /** PROXMOX_STORAGE: where linked clones and template copies go. */
    storage: string;
    /** PROXMOX_ISO_STORAGE: the storage whose `iso` content machines mount. */
    isoStorage: string;
    /** PROXMOX_SDN_ZONE: the SDN zone (VXLAN or VLAN) the gamespaces' vnets are made in. */
    zone: string;
    /** PROXMOX_VNET_TAGS: the VXLAN VNIs or VLAN ids the driver's vnets take. */
    vnetTags: readonly [number, number];
    /** PROXMOX_NODES: the nodes machines may run on; empty: every online node. */
    nodes: string[];
    /** PROXMOX_POOL: the resource pool our machines join; '' for none. */
    pool: string;
    /** PROXMOX_ROOT_PASSWORD: root@pam's, only to give guests their settings through fw_cfg. */
    rootPassword: string;
    /**
     * PROXMOX_SNIPPETS_STORAGE and PROXMOX_SNIPPETS_DIR: a storage with `snippets` content and
     * its folder as mounted on this server, for machines' own cloud-init user-data; null: none.
     */
    snippets: { storage: string; dir: string } | null;
  };
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
    /** JANITOR_ORPHAN_GRACE_MINUTES: orphaned machines are reported this long before removal. */
    orphanGraceMs: number;
  };
}

/** Settings that do not fit their variable: one line per variable, naming what it expects. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/** Node's timers hold at most this many milliseconds (24.8 days); a longer delay fires at once. */
const TIMER_MAX_MS = 2 ** 31 - 1;
const TIMER_MAX_SECONDS = Math.floor(TIMER_MAX_MS / 1000);
/** The upper bound of counts that have no natural one: past it a number is no longer exact. */
const ANY = Number.MAX_SAFE_INTEGER;

/**
 * A form a text setting takes beyond plain text, checked and converted by the schema keyword
 * `form`. `expects` completes "NAME must be ..."; `parse` gives undefined for text that does not
 * fit. A `secret` form's text may carry a password, so a message does not repeat it.
 */
interface Form<T> {
  expects: string;
  secret?: boolean;
  parse(text: string): T | undefined;
}

const BYTE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

function httpUrl(text: string): string | undefined {
  const url = text.trim();
  // The WHATWG parser reads `http:host` as http://host/; a setting spells the slashes out.
  return /^https?:\/\//i.test(url) && URL.canParse(url) ? url.replace(/\/+$/, '') : undefined;
}

/** "60-90" (or "60") as an inclusive range of whole numbers within [min, max]. */
function range(unit: string, min: number, max: number): Form<readonly [number, number]> {
  return {
    expects: `N or MIN-MAX ${unit}, whole numbers from ${min} to ${max} with MIN <= MAX`,
    parse(text) {
      const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(text);
      if (!match) return undefined;
      const low = Number(match[1]);
      const high = match[2] === undefined ? low : Number(match[2]);
      return min <= low && low <= high && high <= max ? [low, high] : undefined;
    },
  };
}

const FORMS = {
  boolean: {
    expects: 'true or false (or yes/no, on/off, 1/0)',
    parse(text: string): boolean | undefined {
      const word = text.trim().toLowerCase();
      if (['true', 'yes', 'on', '1'].includes(word)) return true;
      if (['false', 'no', 'off', '0'].includes(word)) return false;
      return undefined;
    },
  },
  bytes: {
    expects:
      'a number of bytes, optionally with a unit: KiB, MiB, GiB, TiB (powers of 1024) or KB, MB, GB, TB (powers of 1000), e.g. 10GiB',
    parse(text: string): number | undefined {
      const match = /^(\d+) ?([a-z]*)$/i.exec(text);
      const unit = BYTE_UNITS[(match?.[2] || 'b').toLowerCase()];
      const bytes = Number(match?.[1]) * (unit ?? Number.NaN);
      return Number.isSafeInteger(bytes) ? bytes : undefined;
    },
  },
  httpUrl: { expects: 'an http:// or https:// URL', parse: httpUrl },
  httpOrigins: {
    expects: 'comma-separated http:// or https:// origins',
    parse(text: string): string[] | undefined {
      const origins = text.split(',').filter((o) => o.trim() !== '');
      const urls = origins.map(httpUrl).filter((o) => o !== undefined);
      return urls.length === origins.length ? urls : undefined;
    },
  },
  databaseUrl: {
    expects: 'a postgres:// (or postgresql://) URL, or an SQLite file path',
    secret: true,
    parse(text: string): string | undefined {
      // Anything else with a scheme (mysql://, sqlite://) would otherwise become a file name.
      if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text;
      return /^postgres(ql)?:\/\//i.test(text) && URL.canParse(text) ? text : undefined;
    },
  },
  redisUrl: {
    expects: 'a redis:// or rediss:// URL',
    secret: true,
    parse: (text: string): string | undefined =>
      /^rediss?:\/\//i.test(text) && URL.canParse(text) ? text : undefined,
  },
  schemaName: {
    // It goes into search_path and an unquoted identifier, so only the plain form is accepted.
    expects: 'a PostgreSQL schema name: up to 63 letters, digits and _, not starting with a digit',
    parse: (text: string): string | undefined =>
      /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(text) ? text : undefined,
  },
  claimPath: {
    expects: 'a dotted claim path such as realm_access.roles, or none to read no roles',
    parse(text: string): string | undefined {
      const path = text.trim();
      if (path === 'none') return '';
      return /^[^\s.]+(\.[^\s.]+)*$/.test(path) ? path : undefined;
    },
  },
  startSeconds: range('seconds', 0, TIMER_MAX_SECONDS),
  intervalSeconds: range('seconds', 1, TIMER_MAX_SECONDS),
  runs: range('runs', 1, 1_000_000),
  names: {
    expects: 'comma-separated names of letters, digits, dots, dashes and underscores',
    parse(text: string): string[] | undefined {
      const names = text
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean);
      return names.every((n) => /^[A-Za-z0-9._-]+$/.test(n)) ? names : undefined;
    },
  },
  pveTokenId: {
    expects: 'a Proxmox API token id, user@realm!name',
    parse: (text: string): string | undefined =>
      /^[^\s@!]+@[A-Za-z0-9._-]+![A-Za-z][A-Za-z0-9._-]*$/.test(text.trim())
        ? text.trim()
        : undefined,
  },
  fingerprint: {
    expects: 'a SHA-256 certificate fingerprint: 32 hexadecimal bytes, colons optional',
    parse(text: string): string | undefined {
      const hex = text.replace(/:/g, '').trim().toUpperCase();
      return /^[0-9A-F]{64}$/.test(hex) ? hex.match(/../g)!.join(':') : undefined;
    },
  },
  vnetTags: range('tags', 1, 16_777_215),
  secret: {
    expects: 'text',
    secret: true,
    parse: (text: string): string | undefined => text,
  },
  token: {
    // It goes into an Authorization header, and a short one is guessed.
    expects: 'at least 16 characters, without spaces',
    secret: true,
    parse: (text: string): string | undefined =>
      /^[\x21-\x7e]{16,}$/.test(text) ? text : undefined,
  },
} satisfies Record<string, Form<unknown>>;

type FormName = keyof typeof FORMS;
type EnvSchemaAjvOptions = Extract<NonNullable<EnvSchemaOpt['ajv']>, { customOptions: unknown }>;

interface VariableSchema {
  type: 'string' | 'integer' | 'number';
  form?: FormName;
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  default?: string | number;
}

/**
 * Every variable the server reads, as the JSON schema env-schema checks. A default goes through
 * the same parsing as a value from the environment, so it is written the way docs/configuration.md shows it.
 */
export const VARIABLES = {
  PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 5080 },
  HOST: { type: 'string', default: '0.0.0.0' },
  TOPOPLAY_URL: { type: 'string', form: 'httpUrl' },
  TOPOPLAY_EXTRA_ORIGINS: { type: 'string', form: 'httpOrigins' },
  TOPOPLAY_DATA: { type: 'string', default: './data' },
  TOPOPLAY_SPA: { type: 'string', default: './dist' },
  DATABASE_URL: { type: 'string', form: 'databaseUrl' },
  DATABASE_SCHEMA: { type: 'string', form: 'schemaName' },
  TOPOPLAY_SEED_PASSWORD: { type: 'string' },
  OIDC_AUTHORITY: { type: 'string', form: 'httpUrl' },
  OIDC_CLIENT_ID: { type: 'string', default: 'topoplay-ui' },
  OIDC_AUDIENCE: { type: 'string', default: 'topoplay-api' },
  OIDC_SCOPE: { type: 'string', default: 'openid profile' },
  OIDC_ROLES_CLAIM_PATH: { type: 'string', form: 'claimPath', default: 'realm_access.roles' },
  OIDC_AUTO_LOGIN: { type: 'string', form: 'boolean', default: 'false' },
  OIDC_USE_LOCAL_STORAGE: { type: 'string', form: 'boolean', default: 'false' },
  IDENTITY_ACCESS_TOKEN_TTL: { type: 'integer', minimum: 1, maximum: ANY, default: 3600 },
  IDENTITY_PENDING_SIGNINS: { type: 'integer', minimum: 1, maximum: ANY, default: 5000 },
  MKS_COOKIE_MINUTES: { type: 'integer', minimum: 1, maximum: ANY, default: 60 },
  DEFAULT_WORKSPACE_LIMIT: { type: 'integer', minimum: 0, maximum: ANY, default: 0 },
  DEFAULT_GAMESPACE_LIMIT: { type: 'integer', minimum: 0, maximum: ANY, default: 2 },
  APP_NAME: { type: 'string', default: 'Topoplay' },
  APP_HOST: { type: 'string' },
  MKS_HOST: { type: 'string' },
  ENABLE_UPLOAD: { type: 'string', form: 'boolean', default: 'true' },
  UPLOAD_MAX_BYTES: { type: 'string', form: 'bytes', default: '10GiB' },
  UPLOAD_FREE_MARGIN_BYTES: { type: 'string', form: 'bytes', default: '1GiB' },
  XORRISO: { type: 'string', default: 'xorriso' },
  COMMIT: { type: 'string', default: 'dev' },
  LOG_LEVEL: {
    type: 'string',
    enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
  },
  LOG_FORMAT: { type: 'string', enum: ['json', 'pretty'] },
  METRICS_TOKEN: { type: 'string', form: 'token' },
  TRUST_PROXY: { type: 'string', form: 'boolean', default: 'false' },
  // Limits count per client address, and a class or a team often shares one behind NAT: the
  // defaults leave room for a hundred people signing in at once from one address.
  RATE_LIMIT_ANONYMOUS: { type: 'integer', minimum: 0, maximum: ANY, default: 3000 },
  RATE_LIMIT_CREDENTIALS: { type: 'integer', minimum: 0, maximum: ANY, default: 30 },
  SIGNIN_FREE_FAILURES: { type: 'integer', minimum: 0, maximum: ANY, default: 5 },
  SIGNIN_ADDRESS_FAILURES: { type: 'integer', minimum: 0, maximum: ANY, default: 100 },
  // A timeout must be set: 0 would hold a slow client's connection forever.
  HEADERS_TIMEOUT_MS: { type: 'integer', minimum: 1, maximum: TIMER_MAX_MS, default: 20000 },
  BODY_TIMEOUT_MS: { type: 'integer', minimum: 1, maximum: TIMER_MAX_MS, default: 60000 },
  BODY_IDLE_TIMEOUT_MS: { type: 'integer', minimum: 1, maximum: TIMER_MAX_MS, default: 60000 },
  // 64 kbit/s: an ISO of 1 GiB would take 36 hours at it, yet a client holding connections
  // open must spend that much on each.
  UPLOAD_MIN_BYTES_PER_SECOND: { type: 'string', form: 'bytes', default: '8KiB' },
  MAX_CLIENT_CONNECTIONS: { type: 'integer', minimum: 0, maximum: ANY, default: 512 },
  REDIS_URL: { type: 'string', form: 'redisUrl' },
  REDIS_PREFIX: { type: 'string', default: 'topoplay:' },
  HUB_KEEP_ALIVE_MS: { type: 'integer', minimum: 1, maximum: TIMER_MAX_MS, default: 15000 },
  HUB_CLIENT_TIMEOUT_MS: { type: 'integer', minimum: 1, maximum: TIMER_MAX_MS, default: 30000 },
  // At least 1: a newcomer is always told of someone present, if anyone is.
  HUB_PRESENCE_LIMIT: { type: 'integer', minimum: 1, maximum: ANY, default: 100 },
  // Console caps are at least 1: a cap that a setting switches off is no cap.
  CONSOLE_MAX_PER_USER: { type: 'integer', minimum: 1, maximum: ANY, default: 8 },
  CONSOLE_MAX_PER_MACHINE: { type: 'integer', minimum: 1, maximum: ANY, default: 24 },
  CONSOLE_MAX_PER_ADDRESS: { type: 'integer', minimum: 1, maximum: ANY, default: 256 },
  CONSOLE_MAX_PER_SERVER: { type: 'integer', minimum: 1, maximum: ANY, default: 1000 },
  CONSOLE_HANDSHAKE_TIMEOUT_MS: {
    type: 'integer',
    minimum: 1,
    maximum: TIMER_MAX_MS,
    default: 10000,
  },
  RECORD_CONSOLES: { type: 'string', form: 'boolean', default: 'false' },
  RECORDING_MAX_BYTES: { type: 'string', form: 'bytes', default: '64MiB' },
  RECORDING_RETENTION_DAYS: { type: 'integer', minimum: 1, maximum: 36500, default: 30 },
  // Kubernetes sends SIGKILL 30 s after SIGTERM, `docker stop` 10 s after (compose's
  // stop_grace_period): a longer grace needs those raised too.
  SHUTDOWN_GRACE_MS: { type: 'integer', minimum: 0, maximum: TIMER_MAX_MS, default: 10000 },
  STATE_CACHE_MS: { type: 'integer', minimum: 0, maximum: 10000, default: 1000 },
  HYPERVISOR: { type: 'string', enum: ['sim', 'qemu', 'proxmox'], default: 'sim' },
  QEMU_IMAGES_DIR: { type: 'string' },
  QEMU_STATE_DIR: { type: 'string' },
  QEMU_MAX_RUNNING: { type: 'integer', minimum: 0, maximum: ANY },
  QEMU_MAX_MEMORY_MIB: { type: 'integer', minimum: 0, maximum: ANY },
  QEMU_WARM_IMAGES: { type: 'string', form: 'boolean', default: 'true' },
  PROXMOX_URL: { type: 'string', form: 'httpUrl' },
  PROXMOX_TOKEN_ID: { type: 'string', form: 'pveTokenId' },
  PROXMOX_TOKEN_SECRET: { type: 'string', form: 'secret' },
  PROXMOX_CA: { type: 'string' },
  PROXMOX_FINGERPRINT: { type: 'string', form: 'fingerprint' },
  PROXMOX_STORAGE: { type: 'string', default: 'local-lvm' },
  PROXMOX_ISO_STORAGE: { type: 'string', default: 'local' },
  PROXMOX_SDN_ZONE: { type: 'string', default: 'topoplay' },
  // VLAN ids stop at 4094, so the default fits a VLAN zone as well as a VXLAN one.
  PROXMOX_VNET_TAGS: { type: 'string', form: 'vnetTags', default: '2000-3999' },
  PROXMOX_NODES: { type: 'string', form: 'names' },
  PROXMOX_POOL: { type: 'string' },
  PROXMOX_ROOT_PASSWORD: { type: 'string', form: 'secret' },
  PROXMOX_SNIPPETS_STORAGE: { type: 'string' },
  PROXMOX_SNIPPETS_DIR: { type: 'string' },
  SIM_SPEED: { type: 'number', minimum: 0, default: 1 },
  JANITOR_ENABLED: { type: 'string', form: 'boolean', default: 'true' },
  JANITOR_START_SECONDS: { type: 'string', form: 'startSeconds', default: '30-60' },
  JANITOR_INTERVAL_SECONDS: { type: 'string', form: 'intervalSeconds', default: '60-90' },
  JANITOR_CLEANUP_RUNS: { type: 'string', form: 'runs', default: '60-90' },
  JANITOR_ORPHAN_GRACE_MINUTES: { type: 'integer', minimum: 0, maximum: ANY, default: 30 },
} as const satisfies Record<string, VariableSchema>;

type Variables = typeof VARIABLES;

/** The value a variable's schema gives: undefined when it has no default and is not set. */
type Parsed<S> =
  | (S extends { form: infer F extends FormName }
      ? NonNullable<ReturnType<(typeof FORMS)[F]['parse']>>
      : S extends { enum: readonly (infer E)[] }
        ? E
        : S extends { type: 'integer' | 'number' }
          ? number
          : string)
  | (S extends { default: unknown } ? never : undefined);

type Env = { -readonly [K in keyof Variables]: Parsed<Variables[K]> };

function expects(schema: VariableSchema): string {
  if (schema.form) return FORMS[schema.form].expects;
  if (schema.enum) return `one of: ${schema.enum.join(', ')}`;
  const kind = schema.type === 'integer' ? 'a whole number' : 'a number';
  return schema.maximum === undefined || schema.maximum === ANY
    ? `${kind}, ${schema.minimum ?? 0} or more`
    : `${kind} from ${schema.minimum ?? 0} to ${schema.maximum}`;
}

/**
 * Ajv's coercion takes whatever Number() reads ("0x10", "1e3", " 8 "); a number setting is written
 * in plain decimal digits.
 */
const NUMBER_TEXT = { integer: /^\d+$/, number: /^\d+(\.\d+)?$/ } as const;

function problem(name: keyof Variables, text: string): string {
  const schema: VariableSchema = VARIABLES[name];
  const form: Form<unknown> | undefined = schema.form && FORMS[schema.form];
  const shown = form?.secret
    ? 'not repeated here: it may hold a password'
    : `got ${JSON.stringify(text)}`;
  return `${name} must be ${expects(schema)} (${shown})`;
}

const SCHEMA = { type: 'object', properties: VARIABLES };

/** env-schema's own Ajv (version 8; the project's top-level ajv is another major version). */
type Ajv = Parameters<EnvSchemaAjvOptions['customOptions']>[0];
let ajv: Ajv | undefined;

/** Adds the keyword `form`, which checks a text setting and replaces it with its value. */
function withForms(fresh: Ajv): Ajv {
  fresh.addKeyword({
    keyword: 'form',
    type: 'string',
    schemaType: 'string',
    modifying: true,
    errors: false,
    compile: (name: FormName) => (text: string, cxt) => {
      const value = FORMS[name].parse(text);
      if (value === undefined || !cxt) return false;
      (cxt.parentData as Record<string, unknown>)[cxt.parentDataProperty] = value;
      return true;
    },
  });
  return fresh;
}

/** Checks and converts every variable; empty counts as not set (scripts clear one that way). */
function readEnv(env: NodeJS.ProcessEnv): Env {
  const names = Object.keys(VARIABLES) as Array<keyof Variables>;
  const given: Record<string, string> = {};
  const bad = new Set<string>();
  for (const name of names) {
    const text = env[name];
    if (text === undefined || text === '') continue;
    const { type }: VariableSchema = VARIABLES[name];
    if (type !== 'string' && !NUMBER_TEXT[type].test(text)) bad.add(name);
    else given[name] = text;
  }
  let parsed: Env | undefined;
  try {
    parsed = envSchema<Env>({
      schema: SCHEMA,
      data: given,
      env: false,
      // One Ajv for all calls, keeping the compiled schema: a new one takes most of a call's time.
      ajv: ajv ?? { customOptions: (fresh) => (ajv = withForms(fresh)) },
    });
  } catch (error) {
    // Ajv names the variable in each error's path (/PORT); anything else is a bug, not a setting.
    const errors = (error as { errors?: Array<{ instancePath: string }> }).errors ?? [];
    const named = errors
      .map((e) => e.instancePath.split('/')[1] ?? '')
      .filter((n) => n in VARIABLES);
    if (named.length === 0) throw error;
    for (const name of named) bad.add(name);
  }
  if (parsed && bad.size === 0) return parsed;
  throw new ConfigError(names.filter((n) => bad.has(n)).map((n) => problem(n, env[n] ?? '')));
}

/** Settings that only make sense together: the proxmox driver needs its cluster and token. */
function checkTogether(v: Env): void {
  if (v.HYPERVISOR !== 'proxmox') return;
  const missing = (['PROXMOX_URL', 'PROXMOX_TOKEN_ID', 'PROXMOX_TOKEN_SECRET'] as const).filter(
    (name) => v[name] === undefined,
  );
  if (missing.length > 0) {
    throw new ConfigError(missing.map((name) => `${name} must be set when HYPERVISOR is proxmox`));
  }
  if ((v.PROXMOX_SNIPPETS_STORAGE === undefined) !== (v.PROXMOX_SNIPPETS_DIR === undefined)) {
    throw new ConfigError([
      'PROXMOX_SNIPPETS_STORAGE and PROXMOX_SNIPPETS_DIR are set together: the storage, and ' +
        'where its folder is mounted on this server',
    ]);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const v = readEnv(env);
  checkTogether(v);
  const dataDir = resolve(v.TOPOPLAY_DATA);
  const seconds = ([min, max]: readonly [number, number]) => [min * 1000, max * 1000] as const;
  return {
    port: v.PORT,
    host: v.HOST,
    publicUrl: v.TOPOPLAY_URL ?? `http://localhost:${v.PORT}`,
    extraOrigins: v.TOPOPLAY_EXTRA_ORIGINS ?? [],
    dataDir,
    databaseUrl: v.DATABASE_URL ?? resolve(dataDir, 'topoplay.db'),
    databaseSchema: v.DATABASE_SCHEMA,
    appName: v.APP_NAME,
    appHost: v.APP_HOST ?? '',
    mksHost: v.MKS_HOST ?? '',
    enableUpload: v.ENABLE_UPLOAD,
    uploadMaxBytes: v.UPLOAD_MAX_BYTES,
    uploadFreeMarginBytes: v.UPLOAD_FREE_MARGIN_BYTES,
    xorriso: v.XORRISO,
    oidc: {
      authority: v.OIDC_AUTHORITY ?? '',
      clientId: v.OIDC_CLIENT_ID,
      audience: v.OIDC_AUDIENCE,
      scope: v.OIDC_SCOPE,
      autoLogin: v.OIDC_AUTO_LOGIN,
      useLocalStorage: v.OIDC_USE_LOCAL_STORAGE,
      rolesClaimPath: v.OIDC_ROLES_CLAIM_PATH,
      accessTokenTtlSeconds: v.IDENTITY_ACCESS_TOKEN_TTL,
      maxPendingSignIns: v.IDENTITY_PENDING_SIGNINS,
    },
    limits: {
      anonymousPerMinute: v.RATE_LIMIT_ANONYMOUS,
      credentialFailures: v.RATE_LIMIT_CREDENTIALS,
      signInFailuresPerAccount: v.SIGNIN_FREE_FAILURES,
      signInFailuresPerAddress: v.SIGNIN_ADDRESS_FAILURES,
    },
    mksCookieMinutes: v.MKS_COOKIE_MINUTES,
    defaultWorkspaceLimit: v.DEFAULT_WORKSPACE_LIMIT,
    defaultGamespaceLimit: v.DEFAULT_GAMESPACE_LIMIT,
    seedPassword: v.TOPOPLAY_SEED_PASSWORD ?? '',
    commit: v.COMMIT,
    spaDir: resolve(v.TOPOPLAY_SPA),
    logLevel: v.LOG_LEVEL,
    logFormat: v.LOG_FORMAT,
    metricsToken: v.METRICS_TOKEN ?? '',
    trustProxy: v.TRUST_PROXY,
    http: {
      headersTimeoutMs: v.HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: v.BODY_TIMEOUT_MS,
      idleBodyTimeoutMs: v.BODY_IDLE_TIMEOUT_MS,
      uploadMinBytesPerSecond: v.UPLOAD_MIN_BYTES_PER_SECOND,
      maxConnectionsPerClient: v.MAX_CLIENT_CONNECTIONS,
    },
    redisUrl: v.REDIS_URL ?? '',
    redisPrefix: v.REDIS_PREFIX,
    hubKeepAliveMs: v.HUB_KEEP_ALIVE_MS,
    hubClientTimeoutMs: v.HUB_CLIENT_TIMEOUT_MS,
    hubPresenceLimit: v.HUB_PRESENCE_LIMIT,
    console: {
      perUser: v.CONSOLE_MAX_PER_USER,
      perMachine: v.CONSOLE_MAX_PER_MACHINE,
      perAddress: v.CONSOLE_MAX_PER_ADDRESS,
      perServer: v.CONSOLE_MAX_PER_SERVER,
      handshakeTimeoutMs: v.CONSOLE_HANDSHAKE_TIMEOUT_MS,
    },
    recording: {
      defaultOn: v.RECORD_CONSOLES,
      maxBytes: v.RECORDING_MAX_BYTES,
      retentionMs: v.RECORDING_RETENTION_DAYS * 86_400_000,
      dir: resolve(dataDir, 'recordings'),
    },
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    stateCacheMs: v.STATE_CACHE_MS,
    hypervisor: v.HYPERVISOR,
    qemu: {
      imagesDir: v.QEMU_IMAGES_DIR ? resolve(v.QEMU_IMAGES_DIR) : resolve(dataDir, 'images'),
      stateDir: v.QEMU_STATE_DIR ? resolve(v.QEMU_STATE_DIR) : resolve(dataDir, 'qemu'),
      maxRunning: v.QEMU_MAX_RUNNING ?? null,
      maxMemoryMiB: v.QEMU_MAX_MEMORY_MIB ?? null,
      warmImages: v.QEMU_WARM_IMAGES,
    },
    proxmox: {
      url: v.PROXMOX_URL ?? '',
      tokenId: v.PROXMOX_TOKEN_ID ?? '',
      tokenSecret: v.PROXMOX_TOKEN_SECRET ?? '',
      caFile: v.PROXMOX_CA ? resolve(v.PROXMOX_CA) : null,
      fingerprint: v.PROXMOX_FINGERPRINT ?? null,
      storage: v.PROXMOX_STORAGE,
      isoStorage: v.PROXMOX_ISO_STORAGE,
      zone: v.PROXMOX_SDN_ZONE,
      vnetTags: v.PROXMOX_VNET_TAGS,
      nodes: v.PROXMOX_NODES ?? [],
      pool: v.PROXMOX_POOL ?? '',
      rootPassword: v.PROXMOX_ROOT_PASSWORD ?? '',
      snippets:
        v.PROXMOX_SNIPPETS_STORAGE && v.PROXMOX_SNIPPETS_DIR
          ? { storage: v.PROXMOX_SNIPPETS_STORAGE, dir: resolve(v.PROXMOX_SNIPPETS_DIR) }
          : null,
    },
    simSpeed: v.SIM_SPEED,
    janitor: {
      enabled: v.JANITOR_ENABLED,
      startMs: seconds(v.JANITOR_START_SECONDS),
      intervalMs: seconds(v.JANITOR_INTERVAL_SECONDS),
      cleanupEveryTicks: v.JANITOR_CLEANUP_RUNS,
      orphanGraceMs: v.JANITOR_ORPHAN_GRACE_MINUTES * 60_000,
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

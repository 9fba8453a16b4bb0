import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, VARIABLES } from './config';

const ROOT = resolve(import.meta.dirname, '..');

/** Variables of docs/configuration.md that `npm start` (scripts/start.mjs) reads, not the server. */
const NPM_START_ONLY = ['TOPOPLAY_SKIP_BUILD'];

/** The tables of docs/configuration.md: variable name to its default cell. */
function configurationTable(): Map<string, string> {
  const doc = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `([A-Z0-9_]+)` +\| (.+?) +\|/gm)];
  return new Map(rows.map((row) => [row[1] ?? '', row[2] ?? '']));
}

/** The problems loadConfig reports for an environment, or [] when it takes it. */
function problems(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('the tables of docs/configuration.md', () => {
  const table = configurationTable();

  it('lists every variable the server reads, and no other', () => {
    const documented = [...table.keys()].filter((name) => !NPM_START_ONLY.includes(name));
    expect(documented.sort()).toEqual(Object.keys(VARIABLES).sort());
  });

  it('gives the defaults loadConfig applies to an empty environment', () => {
    const defaults = loadConfig({});
    // A default cell is a value in backticks (which may name another variable's default, as
    // `http://localhost:$PORT`), or says there is none: "–", "– (why)", "generated".
    const literal = (name: string): string | undefined => {
      const cell = table.get(name) ?? '';
      if (/^–( \(.*\))?$|^generated$/.test(cell)) return undefined;
      const value = /`([^`]+)`/.exec(cell)?.[1];
      if (value === undefined) throw new Error(`${name}: cannot read the default "${cell}"`);
      return value.replace(/\$([A-Z_]+)/g, (_, other: string) => literal(other) ?? '');
    };
    let compared = 0;
    for (const name of Object.keys(VARIABLES)) {
      const value = literal(name);
      if (value === undefined) continue;
      const given = loadConfig({ [name]: value });
      // The SQLite default is "$TOPOPLAY_DATA/topoplay.db", which the server resolves.
      if (name === 'DATABASE_URL') expect(resolve(given.databaseUrl)).toBe(defaults.databaseUrl);
      else expect(given, `${name}=${value}`).toEqual(defaults);
      compared += 1;
    }
    expect(compared).toBeGreaterThan(40);
  });
});

describe('loadConfig', () => {
  it('refuses a whole number with anything after it, or outside its range', () => {
    for (const port of ['80abc', '0x50', '1e3', '8.5', '-1', '0', '65536', ' 80'])
      expect(problems({ PORT: port })).toEqual([
        `PORT must be a whole number from 1 to 65535 (got ${JSON.stringify(port)})`,
      ]);
    expect(problems({ STATE_CACHE_MS: '10001' })).toEqual([
      'STATE_CACHE_MS must be a whole number from 0 to 10000 (got "10001")',
    ]);
    expect(problems({ RATE_LIMIT_ANONYMOUS: 'none' })).toEqual([
      'RATE_LIMIT_ANONYMOUS must be a whole number, 0 or more (got "none")',
    ]);
    expect(loadConfig({ PORT: '8080', RATE_LIMIT_ANONYMOUS: '0' })).toMatchObject({
      port: 8080,
      limits: { anonymousPerMinute: 0 },
    });
  });

  it('refuses a timeout of 0 or longer than a timer can hold', () => {
    for (const ms of ['0', String(2 ** 31)])
      expect(problems({ HUB_KEEP_ALIVE_MS: ms })).toEqual([
        `HUB_KEEP_ALIVE_MS must be a whole number from 1 to 2147483647 (got "${ms}")`,
      ]);
  });

  it('reads sizes in bytes, with binary or decimal units', () => {
    const bytes = (text: string) => loadConfig({ UPLOAD_MAX_BYTES: text }).uploadMaxBytes;
    expect(bytes('10GiB')).toBe(10 * 2 ** 30);
    expect(bytes('512 MiB')).toBe(512 * 2 ** 20);
    expect(bytes('5GB')).toBe(5e9);
    expect(bytes('1kb')).toBe(1000);
    expect(bytes('1048576')).toBe(2 ** 20);
    expect(loadConfig({ UPLOAD_FREE_MARGIN_BYTES: '2GiB' }).uploadFreeMarginBytes).toBe(2 ** 31);
    for (const text of ['10G', '1.5GiB', '10 GiB!', 'GiB', '99999PiB', '9999999TiB'])
      expect(problems({ UPLOAD_MAX_BYTES: text })).toEqual([
        `UPLOAD_MAX_BYTES must be a number of bytes, optionally with a unit: KiB, MiB, GiB, TiB (powers of 1024) or KB, MB, GB, TB (powers of 1000), e.g. 10GiB (got ${JSON.stringify(text)})`,
      ]);
  });

  it('reads switches as true/false, yes/no, on/off or 1/0, and refuses anything else', () => {
    for (const text of ['true', 'TRUE', 'yes', 'on', '1'])
      expect(loadConfig({ TRUST_PROXY: text }).trustProxy, text).toBe(true);
    for (const text of ['false', 'No', 'off', '0'])
      expect(loadConfig({ ENABLE_UPLOAD: text }).enableUpload, text).toBe(false);
    expect(problems({ JANITOR_ENABLED: 'maybe' })).toEqual([
      'JANITOR_ENABLED must be true or false (or yes/no, on/off, 1/0) (got "maybe")',
    ]);
  });

  it('refuses addresses that are not URLs of the expected kind', () => {
    expect(
      problems({ TOPOPLAY_URL: 'localhost:5080', OIDC_AUTHORITY: 'ftp://id.example' }),
    ).toEqual([
      'TOPOPLAY_URL must be an http:// or https:// URL (got "localhost:5080")',
      'OIDC_AUTHORITY must be an http:// or https:// URL (got "ftp://id.example")',
    ]);
    expect(problems({ TOPOPLAY_EXTRA_ORIGINS: 'http://localhost:5173,5174' })).toEqual([
      'TOPOPLAY_EXTRA_ORIGINS must be comma-separated http:// or https:// origins (got "http://localhost:5173,5174")',
    ]);
    const config = loadConfig({
      TOPOPLAY_URL: 'https://labs.example.com/',
      TOPOPLAY_EXTRA_ORIGINS: 'http://localhost:5173/, https://other.example.com',
      OIDC_AUTHORITY: 'https://id.example.com/realms/labs/',
    });
    expect(config.publicUrl).toBe('https://labs.example.com');
    expect(config.extraOrigins).toEqual(['http://localhost:5173', 'https://other.example.com']);
    expect(config.oidc.authority).toBe('https://id.example.com/realms/labs');
  });

  it('takes an SQLite path or a PostgreSQL URL, and a Redis URL, without echoing a password', () => {
    expect(
      problems({ DATABASE_URL: 'mysql://app:s3cret@db/labs', REDIS_URL: 'http://:s3cret@cache' }),
    ).toEqual([
      'DATABASE_URL must be a postgres:// (or postgresql://) URL, or an SQLite file path (not repeated here: it may hold a password)',
      'REDIS_URL must be a redis:// or rediss:// URL (not repeated here: it may hold a password)',
    ]);
    expect(problems({ DATABASE_SCHEMA: 'labs; drop' })).toHaveLength(1);
    const config = loadConfig({
      DATABASE_URL: 'postgresql://app:s3cret@db:5432/labs',
      DATABASE_SCHEMA: 'labs_2',
      REDIS_URL: 'rediss://cache.example.com:6380',
    });
    expect(config).toMatchObject({
      databaseUrl: 'postgresql://app:s3cret@db:5432/labs',
      databaseSchema: 'labs_2',
      redisUrl: 'rediss://cache.example.com:6380',
    });
    expect(loadConfig({ DATABASE_URL: '/var/lib/topoplay/labs.db' }).databaseUrl).toBe(
      '/var/lib/topoplay/labs.db',
    );
  });

  it('takes an enumerated setting only from its list', () => {
    expect(problems({ HYPERVISOR: 'vsphere', LOG_LEVEL: 'verbose' })).toEqual([
      'LOG_LEVEL must be one of: fatal, error, warn, info, debug, trace, silent (got "verbose")',
      'HYPERVISOR must be one of: sim, qemu, proxmox (got "vsphere")',
    ]);
    expect(loadConfig({ LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
  });

  it("reads the janitor's delays as N or MIN-MAX seconds", () => {
    const { janitor } = loadConfig({
      JANITOR_START_SECONDS: '0',
      JANITOR_INTERVAL_SECONDS: '10 - 20',
      JANITOR_CLEANUP_RUNS: '5',
    });
    expect(janitor).toMatchObject({
      startMs: [0, 0],
      intervalMs: [10_000, 20_000],
      cleanupEveryTicks: [5, 5],
    });
    expect(problems({ JANITOR_START_SECONDS: '90-60', JANITOR_INTERVAL_SECONDS: '0' })).toEqual([
      'JANITOR_START_SECONDS must be N or MIN-MAX seconds, whole numbers from 0 to 2147483 with MIN <= MAX (got "90-60")',
      'JANITOR_INTERVAL_SECONDS must be N or MIN-MAX seconds, whole numbers from 1 to 2147483 with MIN <= MAX (got "0")',
    ]);
  });

  it('reads the roles claim path, with none reading no roles', () => {
    expect(loadConfig({ OIDC_ROLES_CLAIM_PATH: 'resource_access.labs.roles' }).oidc).toMatchObject({
      rolesClaimPath: 'resource_access.labs.roles',
    });
    expect(loadConfig({ OIDC_ROLES_CLAIM_PATH: 'none' }).oidc.rolesClaimPath).toBe('');
    expect(problems({ OIDC_ROLES_CLAIM_PATH: 'realm_access..roles' })).toHaveLength(1);
  });

  it('takes the proxmox snippets storage only with the folder it is mounted at here', () => {
    const proxmox = {
      HYPERVISOR: 'proxmox',
      PROXMOX_URL: 'https://pve1.example:8006',
      PROXMOX_TOKEN_ID: 'topoplay@pve!driver',
      PROXMOX_TOKEN_SECRET: 's3cret',
    };
    expect(loadConfig(proxmox).proxmox.snippets).toBeNull();
    expect(
      loadConfig({
        ...proxmox,
        PROXMOX_SNIPPETS_STORAGE: 'snippets',
        PROXMOX_SNIPPETS_DIR: '/mnt/pve/snippets',
      }).proxmox.snippets,
    ).toEqual({ storage: 'snippets', dir: '/mnt/pve/snippets' });
    expect(problems({ ...proxmox, PROXMOX_SNIPPETS_STORAGE: 'snippets' })).toEqual([
      'PROXMOX_SNIPPETS_STORAGE and PROXMOX_SNIPPETS_DIR are set together: the storage, and ' +
        'where its folder is mounted on this server',
    ]);
  });

  it('counts an empty value as not set', () => {
    expect(loadConfig({ DATABASE_URL: '', REDIS_URL: '', PORT: '', SIM_SPEED: '' })).toEqual(
      loadConfig({}),
    );
  });

  it('names every bad value at once, in the order of docs/configuration.md', () => {
    expect(
      problems({ SIM_SPEED: 'fast', PORT: '80abc', UPLOAD_MAX_BYTES: '10 gigs' }).map(
        (p) => p.split(' ')[0],
      ),
    ).toEqual(['PORT', 'UPLOAD_MAX_BYTES', 'SIM_SPEED']);
  });
});

describe('starting the server with a bad setting', () => {
  it('prints one line naming it, without a stack trace, and exits with 1', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'topoplay-config-'));
    try {
      const child = spawn('npx', ['tsx', 'server/main.ts'], {
        cwd: ROOT,
        env: { ...process.env, PORT: '80abc', TOPOPLAY_DATA: dataDir },
        stdio: ['ignore', 'ignore', 'pipe'],
        // Its own process group, so that npx, tsx and the server can all be stopped together.
        detached: true,
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((done) => child.once('exit', done));
      // A server that took the value would listen instead of exiting: this bounds the test.
      const bound = setTimeout(() => {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      }, 30_000);
      const code = await exited.finally(() => clearTimeout(bound));
      expect(stderr.split('\n').filter(Boolean)).toEqual([
        'Topoplay: PORT must be a whole number from 1 to 65535 (got "80abc")',
      ]);
      expect(code).toBe(1);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 40_000);
});

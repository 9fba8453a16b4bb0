import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, SEED_PASSWORD } from '../harness';
import { signIn } from '../oidc';
import { nodeEnv, ROOT, startServer, viteBuild, type Started } from './release';

// A production install as the container image makes one (issue 14, release build): package.json,
// package-lock.json and the two builds (dist/, dist-server/) in a folder of their own,
// `npm ci --omit=dev` there, then `node dist-server/main.js` with NODE_ENV=production. No tsx, no
// TypeScript, no client package: the server must run from what is left. Slow (npm ci), so it is a
// file of its own; packages come from the npm registry (or npm's cache) and nothing else.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Packages only the SPA, the build or the tests use: a production install has none of them.
 * (xstate is not among them: the server's deploys run on a state machine, server/hypervisor.)
 */
const NOT_INSTALLED = [
  'react',
  'primereact',
  'monaco-editor',
  '@microsoft/signalr',
  'rxjs',
  'tsx',
  'typescript',
  'vite',
  'vitest',
];

/**
 * Node's C headers, for npm_config_nodedir: better-sqlite3's install step runs node-gyp (which
 * compiles nothing: the package ships prebuilt binaries), and node-gyp without headers at hand
 * downloads them from nodejs.org. scripts/node24.sh sets the variable; an official Node
 * distribution has them beside its binary.
 */
function nodeHeaders(): string {
  const candidates = [
    process.env.npm_config_nodedir,
    resolve(dirname(realpathSync(process.execPath)), '..'),
  ];
  const found = candidates.find((dir) => dir && existsSync(join(dir, 'include', 'node', 'node.h')));
  if (!found)
    throw new Error('No Node.js headers: source scripts/node24.sh, which sets npm_config_nodedir');
  return found;
}

/**
 * The page's own script: the last of its module scripts, after the bundler's small runtime
 * helpers that it imports.
 */
const appScript = (html: string) =>
  [...html.matchAll(/<script type="module" crossorigin src="([^"]+)"/g)].at(-1)?.[1];

describe('a production install (npm ci --omit=dev)', () => {
  let work: string;
  let app: string;
  let server: Started | undefined;
  let url: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'topoplay-production-'));
    app = join(work, 'app');
    mkdirSync(app);
    for (const file of ['package.json', 'package-lock.json']) {
      copyFileSync(join(ROOT, file), join(app, file));
    }
    viteBuild(['--outDir', join(app, 'dist'), '--emptyOutDir']);
    viteBuild([
      '-c',
      'vite.server.config.ts',
      '--outDir',
      join(app, 'dist-server'),
      '--emptyOutDir',
    ]);
    const install = spawnSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], {
      cwd: app,
      env: nodeEnv({ npm_config_nodedir: nodeHeaders() }),
      encoding: 'utf8',
    });
    if (install.status !== 0) throw new Error(`npm ci:\n${install.stdout}${install.stderr}`);

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = await startServer(process.execPath, ['dist-server/main.js'], {
      cwd: app,
      env: nodeEnv({
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        TOPOPLAY_URL: url,
        // The defaults for the data folder (./data) and the SPA (./dist), in the install.
        TOPOPLAY_DATA: '',
        TOPOPLAY_SPA: '',
        TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
        DATABASE_URL: '',
        DATABASE_SCHEMA: '',
        REDIS_URL: '',
        JANITOR_ENABLED: 'false',
        RATE_LIMIT_ANONYMOUS: '0',
        RATE_LIMIT_CREDENTIALS: '0',
        LOG_LEVEL: 'info',
      }),
    });
  }, 240_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('installs no client, build or test package', () => {
    expect(existsSync(join(app, 'node_modules', 'fastify'))).toBe(true);
    expect(NOT_INSTALLED.filter((name) => existsSync(join(app, 'node_modules', name)))).toEqual([]);
  });

  it('answers the health probes, the SPA, the OpenAPI document and its page', async () => {
    const live = await fetch(`${url}/api/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${url}/api/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok' });

    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const script = appScript(html);
    expect(script).toMatch(/^\/assets\/.+\.js$/);
    expect((await fetch(`${url}${script}`)).status).toBe(200);

    const openapi = await fetch(`${url}/api/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as Json).paths).toHaveProperty(['/api/workspace']);
    const docs = await fetch(`${url}/api`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });

  it('sends the SPA compressed as the browser accepts, from copies made at build time', async () => {
    const html = await (await fetch(`${url}/`)).text();
    const script = appScript(html) ?? '';
    /** The raw answer (fetch would decompress it): its encoding, Vary and bytes. */
    const raw = (path: string, acceptEncoding?: string) =>
      new Promise<{ encoding: string | undefined; vary: string | undefined; body: Buffer }>(
        (resolve, reject) => {
          get(
            `${url}${path}`,
            { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (chunk: Buffer) => chunks.push(chunk));
              res.on('end', () =>
                resolve({
                  encoding: res.headers['content-encoding'],
                  vary: res.headers.vary,
                  body: Buffer.concat(chunks),
                }),
              );
            },
          ).on('error', reject);
        },
      );
    const plain = await raw(script);
    expect(plain.encoding).toBeUndefined();
    const br = await raw(script, 'gzip, deflate, br, zstd');
    expect(br.encoding).toBe('br');
    expect(br.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    // About a quarter of the file: what the bundle budget counts is what a browser receives.
    expect(br.body.length).toBeLessThan(plain.body.length * 0.35);
    const gz = await raw(script, 'gzip');
    expect(gz.encoding).toBe('gzip');
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
  });

  it('signs in through the embedded identity provider and keeps data in SQLite', async () => {
    const discovery = await fetch(`${url}/identity/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(((await discovery.json()) as Json).issuer).toBe(`${url}/identity`);

    const { accessToken } = await signIn(url, 'creator', SEED_PASSWORD);
    const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const created = await fetch(`${url}/api/workspace`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Production lab' }),
    });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as Json;
    const read = await fetch(`${url}/api/workspace/${id}`, { headers });
    expect(((await read.json()) as Json).name).toBe('Production lab');
    expect(existsSync(join(app, 'data', 'topoplay.db'))).toBe(true);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    server?.child.kill('SIGTERM');
    expect(await server?.exited).toBe(0);
  });
});

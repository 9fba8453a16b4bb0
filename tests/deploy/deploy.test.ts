import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig, VARIABLES } from '../../server/config';
import { CHALLENGE_BODY_LIMIT } from '../../server/core/challenges';
import { MAX_IMAGE_BYTES } from '../../server/core/images';
import { MAX_ARCHIVE_BYTES } from '../../server/core/workspaceArchive';
import { MAX_GUEST_FILE_BYTES } from '../../src/domain/guestFiles';
import { ANONYMOUS_BODY_LIMIT, DEFAULT_BODY_LIMIT } from '../../server/http/body';
import { DOCUMENT_BODY_LIMIT } from '../../server/http/document/routes';
import { FORM_HEAD_BYTES } from '../../server/http/form';
import { freePort, startTestServer, type TestServer } from '../server/harness';
import {
  durationSeconds,
  envPairs,
  interpolate,
  interpolated,
  nginxBytes,
  nginxSeconds,
  parseDockerfile,
  parseEnvFile,
  parseNginx,
  parseUnit,
  splitOptions,
  type NginxBlock,
} from './parsers';

// The container image, the compose stack, the nginx proxy and the systemd unit (docs/deploy.md)
// against the code they deploy. Docker, nginx and systemd do not run here, so this checks what
// can drift without them: the settings named are ones the server reads and takes, the health
// check asks the real health route, the image runs what `npm run build` writes, every WebSocket
// route passes the proxy as a WebSocket.

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Read by Node.js and the packages rather than by server/config.ts. */
const RUNTIME_VARIABLES = ['NODE_ENV'];
const serverReads = (name: string) => name in VARIABLES || RUNTIME_VARIABLES.includes(name);
const defaultOf = (name: keyof typeof VARIABLES) =>
  (VARIABLES[name] as { default?: string | number }).default;

const dockerfile = parseDockerfile(read('Dockerfile'));
const finalStage = dockerfile.stages.at(-1)!;
const buildStage = dockerfile.stages.find((s) => s.name === 'build')!;
const instructions = (keyword: string) =>
  finalStage.instructions.filter((i) => i.keyword === keyword);
const workdir = (stage: typeof finalStage) =>
  stage.instructions.findLast((i) => i.keyword === 'WORKDIR')?.args ?? '/';
/** The final stage's ARGs with their defaults, which its ENV values may name. */
const stageArgs = new Map(instructions('ARG').flatMap((i) => envPairs(i.args)));
const imageEnv = new Map(
  instructions('ENV')
    .flatMap((i) => envPairs(i.args))
    .map(([k, v]) => [k, v.replace(/\$\{(\w+)\}/g, (_, arg: string) => stageArgs.get(arg) ?? '')]),
);
/** The exec form of CMD or of HEALTHCHECK's CMD, as its JSON array. */
const execForm = (text: string) => JSON.parse(text.replace(/^.*?CMD\s+/s, '')) as string[];

interface ComposeService {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  volumes?: string[];
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  networks?: string[];
}
const compose = parseYaml(read('compose.yaml')) as {
  services: Record<string, ComposeService>;
  networks: Record<string, { internal?: boolean } | null>;
};
const [serviceName, topoplay] = Object.entries(compose.services).find(([, s]) => s.build)!;
const composeEnvExample = parseEnvFile(read('deploy/compose.env.example'));
/** The stack's settings as the server receives them, with .env as the example leaves it. */
function composeSettings(given: Record<string, string> = {}): Record<string, string> {
  const env = { ...Object.fromEntries(composeEnvExample), POSTGRES_PASSWORD: 'example', ...given };
  return Object.fromEntries(
    Object.entries(topoplay.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), env)]),
  );
}

const nginx = parseNginx(read('deploy/nginx.conf'));
const http = nginx.blocks.find((b) => b.name === 'http')!;
const server = http.blocks.find((b) => b.name === 'server')!;
const locations = server.blocks.filter((b) => b.name === 'location');
const directive = (block: NginxBlock, name: string) =>
  block.directives.find((d) => d.name === name)?.params;

/** The location nginx picks for a path: an exact match, else the longest prefix (no regexes). */
/** The location nginx picks: exact, else the first regex that matches, else the longest prefix. */
function locationFor(path: string): NginxBlock {
  const exact = locations.find((l) => l.params[0] === '=' && l.params[1] === path);
  if (exact) return exact;
  const regex = locations.find((l) => l.params[0] === '~' && new RegExp(l.params[1]!).test(path));
  if (regex) return regex;
  const prefixes = locations.filter((l) => l.params.length === 1 && path.startsWith(l.params[0]!));
  const longest = prefixes.sort((a, b) => b.params[0]!.length - a.params[0]!.length)[0];
  if (!longest) throw new Error(`no location for ${path}`);
  return longest;
}

/**
 * A directive as it applies in a location: its own, else the server's, else http's. For
 * proxy_set_header the whole list is inherited only when the location sets none of its own.
 */
function effective(location: NginxBlock, name: string): string[][] {
  for (const block of [location, server, http]) {
    const found = block.directives.filter((d) => d.name === name).map((d) => d.params);
    if (found.length) return found;
  }
  return [];
}
const headersIn = (location: NginxBlock) =>
  new Map(effective(location, 'proxy_set_header').map(([k = '', v = '']) => [k.toLowerCase(), v]));
const upstreamOf = (location: NginxBlock) => {
  const target = directive(location, 'proxy_pass')?.[0] ?? '';
  const name = /^http:\/\/([^/:]+)/.exec(target)?.[1];
  return http.blocks.find((b) => b.name === 'upstream' && b.params[0] === name);
};

/** The commands `npm run <script>` runs, following `npm run` into other scripts. */
function npmCommands(script: string, scripts: Record<string, string>): string[] {
  return (scripts[script] ?? '').split('&&').flatMap((part) => {
    const command = part.trim();
    const nested = /^npm run ([\w:-]+)$/.exec(command);
    return nested ? npmCommands(nested[1] ?? '', scripts) : [command];
  });
}

interface ViteBuild {
  outDir: string;
  ssr?: unknown;
  rolldownOptions?: { output?: { entryFileNames?: string } };
}
/** What `npm run build` writes: each vite build's output folder and, for the server, its entry. */
async function buildOutputs(): Promise<Array<{ outDir: string; entry?: string }>> {
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
  const builds = npmCommands('build', pkg.scripts).filter((c) => /^vite build\b/.test(c));
  return Promise.all(
    builds.map(async (command) => {
      const file = /(?:-c|--config)[ =](\S+)/.exec(command)?.[1] ?? 'vite.config.ts';
      const config = (await import(join(ROOT, file))) as { default: { build: ViteBuild } };
      const { outDir, ssr, rolldownOptions } = config.default.build;
      const entry = ssr ? rolldownOptions?.output?.entryFileNames : undefined;
      return { outDir, ...(entry ? { entry } : {}) };
    }),
  );
}

/** A real server: its routes, and something for the health check to ask. */
let live: TestServer;
beforeAll(async () => {
  live = await startTestServer();
});
afterAll(async () => live?.close());

describe('the container image', () => {
  it('builds with every package, then runs the built server as an unprivileged user', async () => {
    expect(buildStage.instructions).toContainEqual({ keyword: 'RUN', args: 'npm run build' });
    expect(buildStage.instructions.some((i) => /^npm ci\b(?!.*--omit)/.test(i.args))).toBe(true);
    expect(instructions('RUN').some((i) => /npm ci --omit=dev\b/.test(i.args))).toBe(true);

    const outputs = await buildOutputs();
    const built = new Map(
      instructions('COPY')
        .map((i) => splitOptions(i.args))
        .filter((c) => c.options.get('from') === 'build')
        .map(({ words }) => [posix.relative(workdir(buildStage), words[0]!), words[1]!]),
    );
    // Exactly the build's outputs are copied, each to the folder of the same name.
    expect([...built.keys()].sort()).toEqual(outputs.map((o) => o.outDir).sort());
    for (const [from, to] of built)
      expect(posix.resolve(workdir(finalStage), to)).toBe(`/app/${from}`);

    const server = outputs.find((o) => o.entry);
    expect(server, 'npm run build has a server build with an entry file').toBeDefined();
    const cmd = execForm(instructions('CMD').at(-1)!.args);
    expect(cmd).toEqual(['node', `${server!.outDir}/${server!.entry}`]);
    // The server's default SPA folder, from the working directory, is the copied SPA.
    const spa = outputs.find((o) => !o.entry)!;
    expect(posix.resolve(workdir(finalStage), String(defaultOf('TOPOPLAY_SPA')))).toBe(
      posix.resolve(workdir(finalStage), built.get(spa.outDir)!),
    );

    const user = instructions('USER').at(-1)?.args ?? '';
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
  });

  it('copies files that exist and that the build context keeps', () => {
    const context = execFileSync(
      'git',
      ['ls-files', '--cached', '--others', '--exclude-standard'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    )
      .split('\n')
      .filter((f) => f && existsSync(join(ROOT, f)));
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const glob = (pattern: string) =>
      new RegExp(
        `^${pattern
          .replace(/[.+^$()|[\]\\]/g, '\\$&')
          .replace(/\*\*\//g, '(?:.*/)?')
          .replace(/\*/g, '[^/]*')}(?:/.*)?$`,
      );
    const excluded = (path: string) => ignored.some((p) => glob(p).test(path));
    // The sources all reach the build; nothing the repository holds is left out.
    expect(context.filter(excluded)).toEqual([]);
    // What is installed or built here, and local settings, stay out of the image.
    for (const path of [
      'node_modules/x',
      '.git/HEAD',
      'dist/index.html',
      'data/topoplay.db',
      '.env',
    ])
      expect(excluded(path), path).toBe(true);

    const sources = dockerfile.stages
      .flatMap((s) => s.instructions)
      .filter((i) => i.keyword === 'COPY')
      .map((i) => splitOptions(i.args))
      .filter((c) => !c.options.has('from'))
      .flatMap((c) => c.words.slice(0, -1));
    expect(sources).toContain('package-lock.json');
    for (const source of sources) {
      expect(existsSync(join(ROOT, source)), source).toBe(true);
      expect(excluded(source), source).toBe(false);
    }
  });

  it('needs no install script of a production package (the final stage skips them)', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
    };
    expect(instructions('RUN').some((i) => /npm ci .*--ignore-scripts/.test(i.args))).toBe(true);
    const scripted = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript && !p.dev)
      .map(([name]) => name);
    expect(scripted).toEqual([]);
  });

  it('builds on a Node image without Python or a compiler: allowScripts names every install script and denies node-gyp', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
    };
    const { allowScripts = {} } = JSON.parse(read('package.json')) as {
      allowScripts?: Record<string, boolean>;
    };
    const packageName = (path: string) => path.replace(/^.*node_modules\//, '');
    // npm runs `node-gyp rebuild` for a package with a binding.gyp and no install script of its
    // own, though the lockfile does not say so; node-gyp needs Python, make and a compiler.
    const gyp = Object.keys(lock.packages).filter((path) =>
      existsSync(join(ROOT, path, 'binding.gyp')),
    );
    const scripted = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path);
    expect(gyp.length + scripted.length).toBeGreaterThan(0);
    // Every one is decided, so that no install warns; npm 11 lists undecided ones at every install.
    for (const path of [...gyp, ...scripted])
      expect(allowScripts[packageName(path)], packageName(path)).toBeTypeOf('boolean');
    for (const path of gyp) {
      expect(allowScripts[packageName(path)], packageName(path)).toBe(false);
      // What it would have built ships in the package: the binary for the image's system.
      expect(existsSync(join(ROOT, path, 'prebuilds', 'linux-x64.node')), path).toBe(true);
    }
  });

  it('uses a Node.js that package.json supports', () => {
    const major = dockerfile.args.get('NODE_VERSION');
    for (const stage of dockerfile.stages) expect(stage.from).toMatch(/^node:\$\{NODE_VERSION\}-/);
    const { engines } = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(engines.node.split('||').some((r) => r.trim().startsWith(`^${major}.`))).toBe(true);
  });

  it('sets only settings the server reads, with values it takes', () => {
    for (const name of imageEnv.keys()) expect(serverReads(name), name).toBe(true);
    expect(() => loadConfig(Object.fromEntries(imageEnv))).not.toThrow();
    // The data folder is the one the image prepares for its user and declares a volume.
    const data = imageEnv.get('TOPOPLAY_DATA');
    expect(instructions('VOLUME').map((i) => JSON.parse(i.args) as string[])).toContainEqual([
      data,
    ]);
    expect(
      instructions('RUN').some((i) =>
        i.args.includes(`chown ${instructions('USER').at(-1)?.args} ${data}`),
      ),
    ).toBe(true);
  });
});

describe('the image health check', () => {
  const healthcheck = () => {
    const line = instructions('HEALTHCHECK').at(-1)!.args;
    const [program, ...args] = execForm(line);
    return { program, args, line };
  };
  const run = (port: number) =>
    new Promise<number | null>((done, fail) => {
      const child = spawn(process.execPath, healthcheck().args, {
        env: { PATH: process.env.PATH, PORT: String(port) },
        stdio: 'ignore',
      });
      child.once('error', fail);
      child.once('exit', done);
    });

  it('asks the readiness route, and passes while the server is ready', async () => {
    const { program, line } = healthcheck();
    expect(program).toBe('node');
    expect(line).toContain("'/api/health/ready'");
    expect(live.app.routes).toContainEqual(
      expect.objectContaining({ method: 'GET', url: '/api/health/ready' }),
    );
    expect(await run(Number(new URL(live.url).port))).toBe(0);
  });

  it('fails when nothing answers on the port', async () => {
    expect(await run(await freePort())).not.toBe(0);
  });
});

describe('the compose stack', () => {
  it('runs two replicas of the image with PostgreSQL, Redis and the proxy', () => {
    expect(topoplay.deploy?.replicas).toBe(2);
    const settings = loadConfig(composeSettings());
    expect(settings.databaseUrl).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
    expect(settings.redisUrl).toBe('redis://redis:6379');
    expect(settings.trustProxy).toBe(true);
    for (const dependency of ['postgres', 'redis']) {
      expect(compose.services[dependency]?.healthcheck).toBeDefined();
      expect(topoplay.depends_on?.[dependency]).toEqual({ condition: 'service_healthy' });
    }
    // Every image is pinned to a version.
    for (const [name, service] of Object.entries(compose.services))
      expect(service.image ?? '', name).toMatch(/:(?!latest$)[\w.-]+$|^\$\{/);
    // The databases are reachable from the stack only.
    const internal = Object.entries(compose.networks)
      .filter(([, n]) => n?.internal)
      .map(([n]) => n);
    for (const dependency of ['postgres', 'redis'])
      expect(compose.services[dependency]?.networks?.every((n) => internal.includes(n))).toBe(true);
  });

  it('names only settings the server reads, and .env fills them into values it takes', () => {
    for (const name of Object.keys(topoplay.environment ?? {}))
      expect(serverReads(name), name).toBe(true);
    // Every variable compose.yaml interpolates is in the example .env, and nothing else is but
    // Compose's own: the project's name, which compose.yaml leaves out for Compose 1.29.
    const used = new Set(interpolated(read('compose.yaml')));
    const own = [...composeEnvExample.keys()].filter((k) => k.startsWith('COMPOSE_'));
    expect(own).toEqual(['COMPOSE_PROJECT_NAME']);
    expect(read('compose.yaml')).not.toMatch(/^name:/m);
    expect([...composeEnvExample.keys()].filter((k) => !own.includes(k)).sort()).toEqual(
      [...used].sort(),
    );
    // The example as it stands, and with the pass-through settings given.
    expect(() => loadConfig(composeSettings())).not.toThrow();
    expect(loadConfig(composeSettings({ APP_NAME: 'Labs', LOG_LEVEL: 'warn' }))).toMatchObject({
      appName: 'Labs',
      logLevel: 'warn',
    });
    // The password comes from .env, never from the file itself.
    expect(() => composeSettings({ POSTGRES_PASSWORD: '' })).toThrow(/POSTGRES_PASSWORD/);
    expect(topoplay.environment?.DATABASE_URL).toContain('${POSTGRES_PASSWORD');
  });

  it('gives both replicas the data folder on one volume', () => {
    const data = composeSettings().TOPOPLAY_DATA ?? imageEnv.get('TOPOPLAY_DATA');
    const mount = topoplay.volumes?.map((v) => v.split(':')).find(([, target]) => target === data);
    expect(mount?.[0]).toMatch(/^[\w-]+$/);
  });

  it('gives a stopping replica longer than its grace period before killing it', () => {
    const graceMs = Number(composeSettings().SHUTDOWN_GRACE_MS || defaultOf('SHUTDOWN_GRACE_MS'));
    expect(durationSeconds(topoplay.stop_grace_period ?? '10s') * 1000).toBeGreaterThan(graceMs);
  });

  it('has a stand-in recipe for every base image, for engines that reach no registry', () => {
    const bases = [
      ...dockerfile.stages.map((stage) => stage.from),
      ...Object.values(compose.services).flatMap((service) =>
        service.build ? [] : [service.image],
      ),
    ].map((image) => image?.split(':')[0] ?? '');
    expect(new Set(bases)).toEqual(new Set(['node', 'nginx', 'postgres', 'redis']));
    for (const base of bases)
      expect(existsSync(join(ROOT, 'deploy/standins', `${base}.Dockerfile`)), base).toBe(true);
  });

  it('mounts the nginx configuration, which sends to the replicas on their port', () => {
    const proxy = Object.values(compose.services).find((s) =>
      s.volumes?.some((v) => v.startsWith('./deploy/nginx.conf:')),
    );
    expect(proxy?.volumes).toContain('./deploy/nginx.conf:/etc/nginx/nginx.conf:ro');
    expect(proxy?.depends_on?.[serviceName]).toEqual({ condition: 'service_healthy' });
    const port = composeSettings().PORT || String(defaultOf('PORT'));
    const upstreams = http.blocks.filter((b) => b.name === 'upstream');
    expect(upstreams.length).toBeGreaterThan(0);
    for (const upstream of upstreams) {
      // `resolve`: replicas come and go with new addresses; nginx follows them.
      expect(upstream.directives.filter((d) => d.name === 'server')).toEqual([
        { name: 'server', params: [`${serviceName}:${port}`, 'resolve'] },
      ]);
    }
  });
});

describe('the nginx proxy', () => {
  const routes = () => live.app.routes;

  /** The paths of the server's routes whose declaration matches `pattern` (the path its group 1). */
  function declaredRoutes(pattern: RegExp): string[] {
    const files = execFileSync(
      'git',
      ['ls-files', '--cached', '--others', '--exclude-standard', 'server'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    )
      .split('\n')
      .filter((f) => f.endsWith('.ts') && existsSync(join(ROOT, f)));
    return files.flatMap((f) => [...read(f).matchAll(pattern)].map((m) => m[1] ?? ''));
  }
  const webSocketRoutes = () =>
    declaredRoutes(/\.get(?:<[^(]*>)?\(\s*'([^']+)',\s*\{\s*websocket: true/g);
  /** The upload routes (`config: { upload: true }`, server/http/body.ts). */
  const uploadRoutes = () =>
    declaredRoutes(/\.post(?:<[^(]*>)?\(\s*'([^']+)',\s*\{\s*config: \{[^}]*upload: true/g);
  const example = (route: string) => route.replace(/:(\w+)/g, 'example-$1');
  const bodyLimitIn = (location: NginxBlock) =>
    // nginx's own default is 1m.
    nginxBytes(effective(location, 'client_max_body_size')[0]?.[0] ?? '1m');

  it('passes every WebSocket route through as a WebSocket, for as long as it stays open', () => {
    const paths = webSocketRoutes();
    expect(paths).toEqual(expect.arrayContaining(['/hub', '/api/console/vnc/:id']));
    for (const path of paths) {
      expect(routes()).toContainEqual(expect.objectContaining({ method: 'GET', url: path }));
      const location = locationFor(example(path));
      const headers = headersIn(location);
      expect(effective(location, 'proxy_http_version'), path).toEqual([['1.1']]);
      expect(headers.get('upgrade'), path).toBe('$http_upgrade');
      const connection = headers.get('connection') ?? '';
      const map = http.blocks.find((b) => b.name === 'map' && b.params[1] === connection);
      expect(connection === 'upgrade' || directive(map!, 'default')?.[0] === 'upgrade', path).toBe(
        true,
      );
      const timeout = nginxSeconds(effective(location, 'proxy_read_timeout')[0]?.[0] ?? '60s');
      expect(timeout, path).toBeGreaterThanOrEqual(3600);
    }
  });

  it("sends all viewers of one machine's console to the same replica", () => {
    const consoleUpstream = upstreamOf(locationFor(example('/api/console/vnc/:id')));
    // Keyed on the path, which names the machine (the query holds a one-time ticket). Not
    // `consistent`, which keys on the server name all resolved replicas share.
    expect(directive(consoleUpstream!, 'hash')).toEqual(['$uri']);
  });

  it('tells the server who the client is, overwriting what the client claims', () => {
    for (const location of locations.filter((l) => directive(l, 'proxy_pass'))) {
      const headers = headersIn(location);
      expect(headers.get('x-forwarded-for')).toBe('$remote_addr');
      expect(headers.get('x-forwarded-proto')).toBe('$scheme');
      expect(headers.get('host')).toBe('$http_host');
    }
  });

  it('streams each upload to the server, bounded by what the server accepts there', () => {
    // The file each route takes at most, and the most a form adds around it: 20 parts (the
    // upload routes' limit), each with a head of FORM_HEAD_BYTES and a field of 8 KiB at most.
    const accepted: Record<string, number> = {
      '/api/file/upload': loadConfig(composeSettings()).uploadMaxBytes,
      '/api/image/:id': MAX_IMAGE_BYTES,
      '/api/admin/upload': MAX_ARCHIVE_BYTES,
      '/api/vm/:id/files': MAX_GUEST_FILE_BYTES,
    };
    const formRoom = 20 * (FORM_HEAD_BYTES + 8 * 1024) + FORM_HEAD_BYTES;
    expect(uploadRoutes().sort()).toEqual(Object.keys(accepted).sort());
    for (const [path, bytes] of Object.entries(accepted)) {
      expect(routes()).toContainEqual(expect.objectContaining({ method: 'POST', url: path }));
      const location = locationFor(example(path));
      expect(effective(location, 'proxy_request_buffering'), path).toEqual([['off']]);
      expect(bodyLimitIn(location), path).toBeGreaterThanOrEqual(bytes + formRoom);
      expect(bodyLimitIn(location), path).toBeLessThanOrEqual(bytes + 2 * 1024 * 1024);
    }
    // The server may still wrap an ISO with xorriso (up to 30 minutes) before it answers.
    const iso = locationFor('/api/file/upload');
    const timeout = nginxSeconds(effective(iso, 'proxy_read_timeout')[0]?.[0] ?? '60s');
    expect(timeout).toBeGreaterThanOrEqual(30 * 60);
  });

  it('reads every other body whole first, bounded by the largest a route takes', () => {
    const largest = Math.max(
      ANONYMOUS_BODY_LIMIT,
      DEFAULT_BODY_LIMIT,
      CHALLENGE_BODY_LIMIT,
      DOCUMENT_BODY_LIMIT,
    );
    const uploads = new Set(uploadRoutes().map((path) => locationFor(example(path))));
    const others = locations.filter((l) => directive(l, 'proxy_pass') && !uploads.has(l));
    expect(others).toContain(locationFor('/api/workspace'));
    for (const location of others) {
      const name = location.params.join(' ');
      expect(bodyLimitIn(location), name).toBeGreaterThanOrEqual(largest);
      expect(bodyLimitIn(location), name).toBeLessThanOrEqual(2 * largest);
      expect(effective(location, 'proxy_request_buffering')[0] ?? ['on'], name).toEqual(['on']);
    }
  });

  it('waits for headers and bodies no longer than the server does', () => {
    const seconds = (location: NginxBlock, name: string) =>
      nginxSeconds(effective(location, name)[0]?.[0] ?? '60s');
    const settings = loadConfig(composeSettings());
    for (const location of locations.filter((l) => directive(l, 'proxy_pass'))) {
      const name = location.params.join(' ');
      expect(seconds(location, 'client_header_timeout') * 1000, name).toBeLessThanOrEqual(
        settings.http.headersTimeoutMs,
      );
      expect(seconds(location, 'client_body_timeout') * 1000, name).toBeLessThanOrEqual(
        settings.http.idleBodyTimeoutMs,
      );
    }
  });

  it("keeps each replica's metrics away from the public address", () => {
    expect(directive(locationFor('/metrics'), 'return')).toEqual(['404']);
  });
});

describe('the systemd unit', () => {
  const unit = parseUnit(read('deploy/topoplay.service'));
  const service = unit.get('Service')!;
  const one = (key: string) => service.get(key)?.at(-1) ?? '';

  it('runs the built server as its own user with settings from an environment file', async () => {
    const server = (await buildOutputs()).find((o) => o.entry)!;
    const [node = '', script = ''] = one('ExecStart').split(/\s+/);
    expect(node).toMatch(/^\/.*\/node$/);
    expect(posix.resolve(one('WorkingDirectory'), script)).toBe(
      posix.join(one('WorkingDirectory'), server.outDir, server.entry!),
    );
    expect(one('User')).not.toMatch(/^(root|0|)$/);
    expect(one('EnvironmentFile')).toMatch(/^-?\//);
  });

  it('sets only settings the server reads, and keeps its data in its state directory', () => {
    const env = new Map(
      (service.get('Environment') ?? []).map((e) => e.split('=', 2) as [string, string]),
    );
    for (const name of env.keys()) expect(serverReads(name), name).toBe(true);
    expect(env.get('TOPOPLAY_DATA')).toBe(`/var/lib/${one('StateDirectory')}`);
    const example = parseEnvFile(read('deploy/topoplay.env.example'));
    for (const name of example.keys()) expect(serverReads(name), name).toBe(true);
    expect(() => loadConfig(Object.fromEntries([...env, ...example]))).not.toThrow();
  });

  it('is hardened, and leaves the JIT compiler its writable code', () => {
    for (const [key, value] of Object.entries({
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      CapabilityBoundingSet: '',
    }))
      expect(one(key), key).toBe(value);
    expect(one('MemoryDenyWriteExecute')).not.toBe('yes');
    const graceMs = Number(defaultOf('SHUTDOWN_GRACE_MS'));
    expect(durationSeconds(`${one('TimeoutStopSec')}s`) * 1000).toBeGreaterThan(graceMs);
  });
});

describe('docs/deploy.md', () => {
  it('names files that exist', () => {
    const doc = read('docs/deploy.md');
    const named = [...doc.matchAll(/`((?:deploy\/|compose\.yaml|Dockerfile)[\w./-]*)`/g)].map(
      (m) => m[1] ?? '',
    );
    expect(named.length).toBeGreaterThan(3);
    for (const path of new Set(named)) expect(existsSync(join(ROOT, path)), path).toBe(true);
  });
});

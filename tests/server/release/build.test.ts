import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_LINES, unsupportedNode } from '../../../server/nodeVersion.mjs';
import { ROOT, viteBuild } from './release';

// The compiled server (vite.server.config.ts), built into a temporary folder: what it imports, and
// what a start on a Node.js too old for it does (issue 14, runtime).

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};

const OLD_NODE = '20.20.2';
const REFUSAL = `Topoplay needs Node.js 24 LTS (24.15.0 or later) or 22 LTS (22.22.2 or later); this is Node ${OLD_NODE}: run \`source scripts/node24.sh\`, then try again.\n`;

/** The module specifiers a built file imports: statically, dynamically and through require. */
function imports(code: string): { static: string[]; dynamic: string[] } {
  const found = (pattern: RegExp) => [...code.matchAll(pattern)].map((m) => m[1] ?? '');
  return {
    static: [
      ...found(/^\s*(?:import|export)\b[^;'"]*?\bfrom\s*["']([^"']+)["']/gm),
      ...found(/^\s*import\s*["']([^"']+)["']/gm),
    ],
    dynamic: [
      ...found(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
      ...found(/\brequire\(["']([^"']+)["']\)/g),
    ],
  };
}

/** The package a bare specifier names: `kysely/migration` is kysely, `@fastify/static` itself. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('the compiled server', () => {
  let outDir: string;
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'topoplay-build-'));
    outDir = join(work, 'dist-server');
    viteBuild(['-c', 'vite.server.config.ts', '--outDir', outDir, '--emptyOutDir']);
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('is plain JavaScript that imports only Node built-ins, its own files and production dependencies', () => {
    const files = readdirSync(outDir);
    expect(files).toContain('main.js');
    const packages = new Set<string>();
    for (const file of files) {
      expect(file).toMatch(/\.js$/);
      const code = readFileSync(join(outDir, file), 'utf8');
      const { static: fixed, dynamic } = imports(code);
      for (const specifier of [...fixed, ...dynamic]) {
        if (specifier.startsWith('./')) expect(existsSync(join(outDir, specifier))).toBe(true);
        else if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
        else packages.add(packageOf(specifier));
      }
    }
    const production = Object.keys(pkg.dependencies);
    expect([...packages].filter((name) => !production.includes(name))).toEqual([]);
    // The server's own core, to show that the scan above reads the imports at all.
    expect(packages).toContain('fastify');
    expect(packages).toContain('better-sqlite3');
  });

  it('has an entry that loads the rest only once the Node version is known to be good', () => {
    const main = imports(readFileSync(join(outDir, 'main.js'), 'utf8'));
    expect(main.static).toEqual([]);
    expect(main.dynamic).toEqual(['./serve.js']);
  });

  describe('on a Node.js older than the supported ones', () => {
    let hooks: string;

    beforeAll(() => {
      // Node 20 as far as the check can tell, and a record of every module asked for, printed
      // on exit: a check that ran after the server's modules were loaded would show them here.
      hooks = join(work, 'node20.mjs');
      writeFileSync(
        hooks,
        [
          "import { registerHooks } from 'node:module';",
          `Object.defineProperty(process.versions, 'node', { value: '${OLD_NODE}' });`,
          'const loaded = [];',
          'registerHooks({ resolve: (specifier, context, next) => {',
          '  loaded.push(specifier);',
          '  return next(specifier, context);',
          '} });',
          "process.on('exit', () => process.stdout.write(JSON.stringify(loaded)));",
        ].join('\n'),
      );
    });

    const start = (script: string) => {
      const dataDir = join(work, 'data');
      const run = spawnSync(process.execPath, ['--import', hooks, script], {
        cwd: ROOT,
        env: { ...process.env, TOPOPLAY_DATA: dataDir, PORT: '1' },
        encoding: 'utf8',
      });
      return {
        status: run.status,
        stderr: run.stderr,
        loaded: JSON.parse(run.stdout) as string[],
        dataDirMade: existsSync(dataDir),
      };
    };

    it('node dist-server/main.js says which versions are supported and exits 1, having loaded nothing else', () => {
      const main = join(outDir, 'main.js');
      const run = start(main);
      expect(run).toMatchObject({ status: 1, stderr: REFUSAL, dataDirMade: false });
      expect(run.loaded.filter((s) => !s.endsWith('main.js') && !s.startsWith('node:'))).toEqual(
        [],
      );
    });

    it('npm start (scripts/start.mjs) does the same, before it builds anything', () => {
      const run = start('scripts/start.mjs');
      expect(run).toMatchObject({ status: 1, stderr: REFUSAL, dataDirMade: false });
      expect(
        run.loaded.filter(
          (s) =>
            !s.endsWith('start.mjs') && !s.endsWith('nodeVersion.mjs') && !s.startsWith('node:'),
        ),
      ).toEqual([]);
    });

    it('npm install stops before it installs anything (.npmrc: engine-strict)', () => {
      // The project's files alone, and the npm that runs here, on a Node that says it is 20.
      const project = mkdtempSync(join(work, 'install-'));
      for (const file of ['package.json', 'package-lock.json', '.npmrc'])
        writeFileSync(join(project, file), readFileSync(join(ROOT, file)));
      const version = join(work, 'version20.mjs');
      writeFileSync(
        version,
        `Object.defineProperty(process, 'version', { value: 'v${OLD_NODE}' });`,
      );
      const npm = realpathSync(
        spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim(),
      );
      // npm's own default log level, whatever the npm that runs the tests was told
      // (`npm run --silent` passes npm_config_loglevel=silent on to its scripts).
      const env = { ...process.env, npm_config_loglevel: 'notice' };
      const run = spawnSync(
        process.execPath,
        ['--import', version, npm, 'install', '--offline', '--no-audit', '--no-fund'],
        { cwd: project, encoding: 'utf8', env },
      );
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain('EBADENGINE');
      // npm prints engines whole on one line: the way out is in it.
      const required = run.stderr.split('\n').find((line) => line.includes('Required: '));
      expect(required).toContain(`Required: ${JSON.stringify(pkg.engines)}`);
      expect(required).toContain('source scripts/node24.sh');
      expect(existsSync(join(project, 'node_modules'))).toBe(false);
    });
  });
});

describe('the supported Node.js versions', () => {
  it('are the ones package.json states in engines', () => {
    const ranges = [...SUPPORTED_LINES].reverse().map((release) => `^${release.join('.')}`);
    expect(pkg.engines.node).toBe(ranges.join(' || '));
  });

  it('are 22 LTS from 22.22.2 and 24 LTS from 24.15.0; newer majors are let through', () => {
    const refused = ['18.20.8', OLD_NODE, '22.22.1', '23.11.1', '24.14.1', 'v20.19.0'];
    const taken = ['22.22.2', '22.30.0', '24.15.0', '24.21.0', '26.0.0'];
    for (const version of refused) expect(unsupportedNode(version), version).toMatch(/^Topoplay/);
    for (const version of taken) expect(unsupportedNode(version), version).toBeNull();
  });
});

import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import globals from 'globals';

/** Rules that keep a layer on the Clock it is handed: no Date.now(), no new Date() of its own. */
function clockOnly(why) {
  return {
    'no-restricted-properties': [
      'error',
      { object: 'Date', property: 'now', message: `${why} (server/clock.ts): clock.now().` },
    ],
    'no-restricted-syntax': [
      'error',
      {
        selector: "NewExpression[callee.name='Date'][arguments.length=0]",
        message: `${why} (server/clock.ts): new Date(clock.now()).`,
      },
    ],
  };
}

export default tseslint.config(
  {
    ignores: [
      'dist',
      'dist-server',
      'node_modules',
      'data',
      'test-results',
      'playwright-report',
      'docs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // Layering: views render snapshots and send events; they never reach the api or
    // streams directly. Machines never import React or api calls.
    files: ['src/views/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['**/api/*', '**/streams/*', 'rxjs', 'rxjs/*'] },
      ],
    },
  },
  {
    // A hypervisor driver owns its vocabulary (server/hypervisor/types.ts) and persists through
    // ports of its own: it never reaches the domain, the store or the HTTP layer.
    files: ['server/hypervisor/**/*.{ts,mjs}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/core', '**/core/**', '**/store', '**/store/**', '**/http', '**/http/**'],
              message:
                'server/hypervisor imports nothing from server/core, server/store or server/http.',
            },
          ],
        },
      ],
    },
  },
  {
    // The server's layers: core, the domain, depends on the store and the drivers and on nothing
    // that serves it (auth, identity, http, hub); the HTTP layer reaches the store only through
    // core. Paths are resolved, so `import type` counts for the layers. No module imports itself
    // back through others: scripts/importCycles.ts, run by `npm run lint` after ESLint, refuses
    // every circle through the SPA, the server, the agent and the scripts, type imports included,
    // so it sees every circle import-x/no-cycle would; that rule, which parsed the whole import
    // graph again, is not run.
    files: ['server/**/*.{ts,mts,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      // Which files the plugin may parse (TypeScript's too), and how it resolves import paths.
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: 'server/tsconfig.json' }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './server/core',
              from: ['./server/auth', './server/identity', './server/http', './server/hub'],
              message:
                'server/core imports nothing from server/auth, server/identity, server/http or server/hub: they import core.',
            },
            {
              target: './server/http',
              from: './server/store',
              message: 'server/http reaches the store through the core services.',
            },
          ],
        },
      ],
    },
  },
  {
    // Core reads and writes through the repositories it is handed (server/plugins/repositories.ts
    // builds them once): it runs no query of its own, so it imports neither Kysely nor the
    // store's connection. errors.ts alone re-exports what the store's error codes mean; tests
    // open a store of their own.
    files: ['server/core/**/*.ts'],
    ignores: ['server/core/errors.ts', 'server/core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['kysely', 'kysely/*', '**/store/db'],
              message:
                'server/core runs no query: it takes repositories (server/store/repositories) in its options.',
            },
          ],
        },
      ],
    },
  },
  {
    // Core reads the time only from the Clock it is handed (server/clock.ts), the one buildApp
    // makes, so that tests can move it on; formatting a given time with new Date(t) is fine.
    files: ['server/core/**/*.ts'],
    rules: clockOnly('server/core reads the time from the injected Clock'),
  },
  {
    // The qemu and proxmox drivers read the time from the Clock they are handed, as the sim does
    // and core does (above). Excepted, each saying why: waits on processes of the host (QEMU's
    // exit, the switch's start and stop), the tiny image's build time, and the PVE client, which is
    // built apart from the driver. switchd.mjs is a process of its own.
    files: ['server/hypervisor/**/*.ts'],
    ignores: [
      'server/hypervisor/qemu/processes.ts',
      'server/hypervisor/qemu/guestAgent.ts',
      'server/hypervisor/qemu/switch.ts',
      'server/hypervisor/qemu/tinyImage.ts',
      'server/hypervisor/proxmox/connection.ts',
      'server/hypervisor/proxmox/tasks.ts',
    ],
    rules: clockOnly('server/hypervisor reads the time from the Clock the driver is handed'),
  },
  {
    files: ['src/machines/**/*.ts'],
    rules: {
      // Machines may use the api's *types* (DTOs), never its calls.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['react', 'react-dom', 'primereact', 'primereact/*', 'monaco-editor'] },
            { group: ['**/api/*'], allowTypeImports: true },
          ],
        },
      ],
    },
  },
);

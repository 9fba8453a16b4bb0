import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

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
    // Layering (STYLE.md): views render snapshots and send events; they never reach the api or
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
    // ports of its own: it never reaches the domain, the store or the HTTP layer (STYLE.md).
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

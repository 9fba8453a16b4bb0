import { fileURLToPath } from 'node:url';
import purgeCSSPlugin from '@fullhuman/postcss-purgecss';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { precompressPlugin } from './scripts/precompress.mjs';
import { prerenderPlugin } from './scripts/prerender.mjs';

// The API server (npm run server) listens on PORT (default 5080); the dev server proxies to it
// so that the SPA and the API share one origin, as they do in production.
const api = `http://127.0.0.1:${process.env.PORT ?? '5080'}`;

/**
 * The PrimeReact theme's rules for the classes our code names, and no others. The app uses none
 * of PrimeReact's components, only the theme's look for buttons, inputs and cards, and the whole
 * theme (224 KB) made most of the stylesheet that every first paint waits for. The dev server
 * reads the class names when it first serves the theme: restart it after naming a new one.
 */
function themeRulesInUse() {
  const purge = purgeCSSPlugin({
    content: [fileURLToPath(new URL('./src/**/*.{ts,tsx}', import.meta.url))],
    // Class names put together in code: `p-button-${severity}` (sessionActions, VmController).
    safelist: { standard: [/^p-button-(danger|secondary)$/] },
  });
  if (!('OnceExit' in purge) || purge.OnceExit === undefined) {
    throw new Error('@fullhuman/postcss-purgecss: no OnceExit hook');
  }
  const purgeRules = purge.OnceExit;
  const themeOnly: typeof purge = {
    postcssPlugin: 'topoplay-theme-rules-in-use',
    OnceExit(root, helpers) {
      const file = root.source?.input.file ?? '';
      if (/primereact[\\/]resources[\\/]themes[\\/]/.test(file)) return purgeRules(root, helpers);
    },
  };
  return themeOnly;
}

export default defineConfig({
  // The home page rendered into home.html; brotli and gzip copies of the build, which the server
  // sends as browsers accept them.
  plugins: [react(), prerenderPlugin(), precompressPlugin()],
  css: { postcss: { plugins: [themeRulesInUse()] } },
  server: {
    port: 5173,
    proxy: {
      '/api': api,
      '/assets/settings.json': api,
      '/identity': api,
      '/docs': api,
      '/hub': { target: api, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    sourcemap: false,
    // Monaco's chunk (about 2,900 kB, loaded only when the guide editor opens) is the largest by
    // design; a chunk above this is news. What the first page loads is held to the much smaller
    // bundle budget instead (scripts/bench-bundle.mjs, part of npm test).
    chunkSizeWarningLimit: 3_200,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // Every module the first page imports statically in one chunk (beside the bundler's
          // small runtime, which the lazy chunks share): the browser fetches it at once with the
          // page, instead of twenty small chunks queued six at a time on the HTTP/1.1
          // connections it opens. Lazily loaded routes keep their own chunks.
          groups: [{ name: 'index', tags: ['$initial'] }],
        },
      },
    },
  },
});

import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { precompressPlugin } from './scripts/precompress.mjs';
import { prerenderPlugin } from './scripts/prerender.mjs';

// The API server (npm run server) listens on PORT (default 5080); the dev server proxies to it
// so that the SPA and the API share one origin, as they do in production.
const api = `http://127.0.0.1:${process.env.PORT ?? '5080'}`;

export default defineConfig({
  // The home page rendered into home.html; brotli and gzip copies of the build, which the server
  // sends as browsers accept them.
  plugins: [react(), prerenderPlugin(), precompressPlugin()],
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
    chunkSizeWarningLimit: 1200,
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

import { defineConfig } from 'vite';

// The compiled server (npm run build:server): server/main.ts and everything it imports from this
// repository (server/, src/domain/, the migrations) bundled into plain JavaScript in dist-server/,
// so that a production start needs neither tsx nor TypeScript. Packages stay imports of
// node_modules (Vite externalizes them in an SSR build): `npm ci --omit=dev` installs them, and
// the native one (better-sqlite3) is never bundled. dist-server/ is kept out of dist/, which is
// served to browsers.
export default defineConfig({
  // The SPA's public/ folder belongs in dist/, not here.
  publicDir: false,
  build: {
    ssr: 'server/main.ts',
    outDir: 'dist-server',
    emptyOutDir: true,
    target: 'node22',
    // Stack traces in the logs point at readable code.
    minify: false,
    rolldownOptions: {
      output: {
        // main.js checks the Node version before it loads the rest (server/main.ts), so the rest
        // must be a separate file that an older Node never parses.
        entryFileNames: 'main.js',
        chunkFileNames: '[name].js',
      },
    },
  },
});

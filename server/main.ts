import { unsupportedNode } from './nodeVersion.mjs';

// The server's entry (dist-server/main.js once built). The Node version is checked before the
// server's modules are loaded: they are a separate file, which an older Node never parses.
const refusal = unsupportedNode(process.versions.node);
if (refusal) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
await import('./serve');

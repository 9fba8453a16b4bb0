import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';

// A built single-page app served the way topomojo-ui's nginx image serves it (try_files $uri
// /index.html; gzip for HTML, CSS and JavaScript of 1000 bytes or more), for bench:wire to load
// a reference UI beside ours. Each compressed copy is made on its first request and kept, as our
// server keeps its precompressed files, so that no measured load after the first pays for it;
// at zlib's default level, smaller than nginx's default (1) would send.

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.ico': 'image/x-icon',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css']);
const GZIP_MIN_LENGTH = 1000;

export interface StaticSite {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `root` on a free loopback port. `standIns` answers paths the folder lacks (a settings
 * file the deployment would provide) before the index.html fallback does.
 */
export async function serveGzipped(
  root: string,
  standIns: Record<string, string> = {},
): Promise<StaticSite> {
  const gzipped = new Map<string, Buffer>();
  const server = createServer((request, reply) => {
    void (async () => {
      const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
      let file = join(root, path);
      let body: Buffer;
      try {
        if (!file.startsWith(root) || !(await stat(file)).isFile()) throw new Error('not a file');
        body = await readFile(file);
      } catch {
        const standIn = standIns[path];
        if (standIn !== undefined) {
          file = path;
          body = Buffer.from(standIn);
        } else {
          file = join(root, 'index.html');
          body = await readFile(file);
        }
      }
      const type = extname(file);
      const headers: Record<string, string> = {
        'content-type': TYPES[type] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
      };
      const accepted = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
      if (COMPRESSIBLE.has(type) && body.length >= GZIP_MIN_LENGTH && accepted) {
        let packed = gzipped.get(file);
        if (!packed) gzipped.set(file, (packed = gzipSync(body)));
        body = packed;
        headers['content-encoding'] = 'gzip';
        headers.vary = 'Accept-Encoding';
      }
      headers['content-length'] = String(body.length);
      reply.writeHead(200, headers).end(request.method === 'HEAD' ? undefined : body);
    })().catch((error: unknown) => reply.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Brotli and gzip copies of a build's text files, made once at build time, so that the server
 * sends each file compressed (server/plugins/spa.ts serves `x.js.br` or `x.js.gz` for `x.js`
 * as the browser's Accept-Encoding allows) without compressing anything per request.
 *
 * Used by vite.config.ts after the SPA's build; `node scripts/precompress.mjs dist` does it by
 * hand.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Files worth compressing: text. Fonts in woff/woff2 and images are compressed already. */
const TEXT = /\.(js|mjs|css|html|svg|json|txt|ttf|eot|map)$/;
/** Below this a file fits in a packet or two either way. */
const MIN_BYTES = 1024;
/**
 * Brotli's best quality is slow on the few megabytes of the editor; above this size a quality a
 * little lower keeps the build fast (about 5% larger files).
 */
const BEST_QUALITY_MAX_BYTES = 512 * 1024;

async function filesOf(dir) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesOf(path)));
    else if (TEXT.test(entry.name)) found.push(path);
  }
  return found;
}

/** Writes `.br` and `.gz` beside every text file of `dir` that they make smaller. */
export async function precompress(dir) {
  const files = await filesOf(dir);
  await Promise.all(
    files.map(async (file) => {
      if ((await stat(file)).size < MIN_BYTES) return;
      const data = await readFile(file);
      const [br, gz] = await Promise.all([
        brotli(data, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: data.length > BEST_QUALITY_MAX_BYTES ? 9 : 11,
            [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
          },
        }),
        gzipped(data, { level: 9 }),
      ]);
      if (br.length < data.length) await writeFile(`${file}.br`, br);
      if (gz.length < data.length) await writeFile(`${file}.gz`, gz);
    }),
  );
}

/** The Vite plugin: compresses the SPA's output once the build has written it. */
export function precompressPlugin() {
  let outDir = 'dist';
  return {
    name: 'topoplay-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    // Also called when the build failed, before anything was written: nothing to compress then,
    // and an error here would hide the build's own.
    async closeBundle() {
      if (!existsSync(outDir)) return;
      await precompress(outDir);
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await precompress(process.argv[2] ?? 'dist');
}

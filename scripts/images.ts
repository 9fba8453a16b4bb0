/**
 * npm run images: builds the stock images of the qemu driver into `${TOPOPLAY_DATA}/images`
 * (`data/images` by default), the folder the driver reads base images from: the tiny busybox
 * image, then the Debian images `debian-12.qcow2`, `router.qcow2` and `debian-desktop.qcow2`
 * (with a manifest beside each). Images already there are kept, so running it again is quick; `-- --rebuild` builds the
 * Debian images again even so. `-- --tiny` builds only the tiny image.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { buildDebianImages } from '../server/hypervisor/qemu/debianImage';
import { buildTinyImage } from '../server/hypervisor/qemu/tinyImage';

const imagesDir = path.resolve(process.env.TOPOPLAY_DATA || 'data', 'images');
const args = process.argv.slice(2);
const log = (line: string) => console.log(line);
const sizeOf = async (file: string) => `${((await stat(file)).size / 1024 / 1024).toFixed(1)} MiB`;

try {
  const started = Date.now();
  const files = await buildTinyImage(imagesDir, log);
  console.log(`tiny image ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const file of Object.values(files)) console.log(`${file} (${await sizeOf(file)})`);
  if (!args.includes('--tiny')) {
    const results = await buildDebianImages(imagesDir, {
      rebuild: args.includes('--rebuild'),
      log,
    });
    for (const { disk, decision } of results) {
      console.log(`${disk} (${await sizeOf(disk)}, ${decision})`);
    }
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}

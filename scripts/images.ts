/**
 * npm run images: builds the stock images of the qemu driver into `${TOPOPLAY_DATA}/images`
 * (`data/images` by default), the folder the driver reads base images from. Images already there
 * are kept, so running it again is quick.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { buildTinyImage } from '../server/hypervisor/qemu/tinyImage';

const imagesDir = path.resolve(process.env.TOPOPLAY_DATA || 'data', 'images');

try {
  const files = await buildTinyImage(imagesDir, (line) => console.log(line));
  for (const file of Object.values(files)) {
    const { size } = await stat(file);
    console.log(`${file} (${(size / 1024 / 1024).toFixed(1)} MiB)`);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}

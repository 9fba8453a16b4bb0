import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { STOCK_DEBIAN_RECIPES } from '../../server/hypervisor/qemu/debianDesktop';
import { inputsOf, manifestPathOf, readManifest } from '../../server/hypervisor/qemu/imageManifest';
import { LABS_DATA, LABS_IMAGES, missingImages } from './images';

// Before the checks: the stock images in the cache. `npm run images` keeps images built from the
// current recipes and builds what is missing (about 7 minutes for the two Debian servers, 9 more
// for the desktop). An image built from an older recipe is kept by it with a warning; the checks
// refuse it, since what they read (the screen in text mode, `nomodeset`) may depend on the
// recipe: `TOPOPLAY_DATA=<cache> npm run images -- --rebuild` replaces it.
export default async function setup() {
  const result = spawnSync('npx', ['tsx', 'scripts/images.ts'], {
    stdio: 'inherit',
    env: { ...process.env, TOPOPLAY_DATA: LABS_DATA },
  });
  if (result.status !== 0) throw new Error(`npm run images into ${LABS_IMAGES} failed`);
  if (missingImages().length) {
    throw new Error(`still missing in ${LABS_IMAGES}: ${missingImages().join(', ')}`);
  }
  for (const recipe of STOCK_DEBIAN_RECIPES) {
    const manifest = await readManifest(manifestPathOf(join(LABS_IMAGES, recipe.image)));
    if (manifest?.inputs !== inputsOf(recipe)) {
      throw new Error(
        `${recipe.image} in ${LABS_IMAGES} was built from another recipe: ` +
          `TOPOPLAY_DATA=${LABS_DATA} npm run images -- --rebuild`,
      );
    }
  }
}

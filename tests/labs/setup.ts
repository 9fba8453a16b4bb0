import { spawnSync } from 'node:child_process';
import { LABS_DATA, LABS_IMAGES, missingImages } from './images';

// Before the checks: the stock images in the cache. `npm run images` keeps images built from the
// current recipes and builds what is missing (about 7 minutes for both Debian images); an image
// built from an older recipe is kept with a warning, and `npm run images -- --rebuild` with
// TOPOPLAY_DATA set to the cache replaces it.
export default function setup() {
  const missing = missingImages();
  const result = spawnSync('npx', ['tsx', 'scripts/images.ts'], {
    stdio: 'inherit',
    env: { ...process.env, TOPOPLAY_DATA: LABS_DATA },
  });
  if (result.status !== 0) throw new Error(`npm run images into ${LABS_IMAGES} failed`);
  if (missing.length && missingImages().length) {
    throw new Error(`still missing in ${LABS_IMAGES}: ${missingImages().join(', ')}`);
  }
}

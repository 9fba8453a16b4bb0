import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DESKTOP_TEMPLATE } from '../../server/core/stockTemplates';

// The stock images the lab checks boot: built once per machine by `npm run images` into
// `$TOPOPLAY_LABS_CACHE/images` (~/.cache/topoplay/images by default) and kept there.

/** TOPOPLAY_DATA for `npm run images`: its images land in `images/` under it. */
export const LABS_DATA = resolve(
  process.env.TOPOPLAY_LABS_CACHE || join(homedir(), '.cache', 'topoplay'),
);
export const LABS_IMAGES = join(LABS_DATA, 'images');

/** The images a lab check needs, with the boot files beside them. */
export const LAB_IMAGES = ['debian-12', 'router', 'debian-desktop'].flatMap((name) =>
  ['qcow2', 'vmlinuz', 'initrd', 'cmdline'].map((ext) => `${name}.${ext}`),
);

export const missingImages = () => LAB_IMAGES.filter((f) => !existsSync(join(LABS_IMAGES, f)));

/** A desktop machine of debian-desktop.qcow2: the stock linux-desktop template's. */
export const DESKTOP_DETAIL = DESKTOP_TEMPLATE.detail;

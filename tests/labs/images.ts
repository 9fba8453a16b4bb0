import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

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

/** A desktop machine of debian-desktop.qcow2, as an administrator makes a stock template of it. */
export const DESKTOP_DETAIL = {
  Cpu: '1x2',
  Ram: 2,
  Guest: 'debian12_64Guest',
  Adapters: 1,
  Eth: [{ Net: 'lan', Type: 'virtio' }],
  Disks: [{ Path: 'debian-desktop.qcow2', Source: '', Controller: 'virtio', Size: 4 }],
};

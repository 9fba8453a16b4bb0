import { isDriverError, type MachineSpec, type TemplateAvailability } from '../types';
import { exists } from './disks';
import { uefiMissing } from './firmware';
import { inside, type QemuLayout } from './layout';
import { diskPathsOf, startsEmpty } from './plans';

// Whether the qemu host can run a template: every disk is in the images folder, or can be copied
// there from a base image that is. A stock image (a file at the top of the images folder, as
// `debian-12.qcow2`) missing is what `npm run images` builds; a workspace's own disk missing
// with nothing to copy it from is gone for good. An empty disk (plans.ts startsEmpty) is made
// when needed; a UEFI template needs the host's OVMF firmware.

/** Why a disk cannot be had: the file it is, or is copied from, is not in the images folder. */
function missing(image: string): string {
  return image.includes('/')
    ? `The disk ${image} is not in the images folder.`
    : `The image ${image} is not in the images folder: run npm run images.`;
}

export async function qemuAvailability(
  layout: QemuLayout,
  spec: MachineSpec,
): Promise<TemplateAvailability> {
  if (spec.disks.length === 0) return { available: false, reason: 'It has no disk.' };
  let disks: ReturnType<typeof diskPathsOf>;
  try {
    disks = diskPathsOf(layout, spec);
  } catch (error) {
    // A path outside the images folder: the template can never run here.
    if (isDriverError(error)) return { available: false, reason: `The ${error.message}.` };
    throw error;
  }
  for (const disk of disks) {
    if (!disk.full && !(disk.sizeGiB > 0)) {
      return { available: false, reason: 'Its disk names no image and has no size.' };
    }
    if (!disk.full || startsEmpty(disk) || (await exists(disk.full))) continue;
    if (!disk.source) return { available: false, reason: missing(disk.path) };
    let source: string;
    try {
      source = inside(layout.images, disk.source, 'disk');
    } catch (error) {
      if (isDriverError(error)) return { available: false, reason: `The ${error.message}.` };
      throw error;
    }
    if (!(await exists(source))) return { available: false, reason: missing(disk.source) };
  }
  if (spec.firmware === 'uefi') {
    const reason = await uefiMissing();
    if (reason) return { available: false, reason };
  }
  return { available: true };
}

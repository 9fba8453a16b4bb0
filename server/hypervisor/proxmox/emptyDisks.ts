import type { MachineSpec } from '../types';
import { imageOfDisk, importVolumeOf } from './importedImages';

// Machines with empty disks, for installing a system from an ISO: a template that names no VM
// template to clone (its detail has no Template) and whose disks all have a size gets a new VM
// (qm create) with a new, empty disk of each size on the driver's storage, its CD-ROM drive
// after its disk in the boot order, so an empty disk boots the ISO and an installed one itself.
// UEFI firmware: OVMF with an EFI vars disk of its own, on clones as on new VMs.

/**
 * Whether the spec's base image is its template's own and starts empty: it is named by the
 * template's id (what unlinking a template of empty disks gives), has nothing to be copied from,
 * and every disk has a size. Initializing the template makes it (a new VM with empty disks, made
 * a template); machines are linked clones of it, and Save makes one of them the new base image.
 */
export const ownEmptyBase = (spec: MachineSpec): boolean =>
  !!spec.baseImage &&
  spec.baseImage === spec.templateId &&
  !spec.baseImageSource &&
  spec.disks.length > 0 &&
  spec.disks.every((d) => d.sizeGiB > 0);

/**
 * Whether the spec's machines are new VMs with empty disks rather than linked clones. A disk that
 * names an imported image is no empty disk (importedImages.ts).
 */
export const startsEmpty = (spec: MachineSpec): boolean =>
  !spec.baseImage &&
  spec.disks.length > 0 &&
  spec.disks.every((d) => d.sizeGiB > 0 && imageOfDisk(d) === null);

/** The firmware settings a UEFI spec needs on a VM whose config is `config`. */
export function firmwareConfig(
  spec: MachineSpec,
  storage: string,
  config: Record<string, unknown> = {},
): Record<string, string> {
  if (spec.firmware !== 'uefi') return {};
  return {
    bios: 'ovmf',
    ...(config.efidisk0 ? {} : { efidisk0: `${storage}:1,efitype=4m` }),
  };
}

/**
 * qm create's config of a new VM with the spec's empty disks (scsi0, scsi1, ...); with an image
 * storage, a disk that names an imported image is imported from it (importedImages.ts).
 */
export function emptyVmConfig(
  spec: MachineSpec,
  storage: string,
  imageStorage?: string,
): Record<string, string | number> {
  const disks = Object.fromEntries(
    spec.disks.map((d, i) => {
      const image = imageStorage ? imageOfDisk(d) : null;
      return [
        `scsi${i}`,
        image
          ? `${storage}:0,import-from=${importVolumeOf(imageStorage!, image)}`
          : `${storage}:${Math.ceil(d.sizeGiB)}`,
      ];
    }),
  );
  return {
    memory: spec.memoryMiB,
    sockets: spec.cpu.sockets,
    cores: spec.cpu.coresPerSocket,
    scsihw: 'virtio-scsi-pci',
    ostype: 'l26',
    ...disks,
    // The CD-ROM drive exists even without an ISO, so that one can be inserted later.
    ide2: 'none,media=cdrom',
    boot: `order=${[...Object.keys(disks), 'ide2'].join(';')}`,
    ...firmwareConfig(spec, storage),
  };
}

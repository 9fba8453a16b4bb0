import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tinySpec } from '../../../tests/server/hypervisor/qemuMachines';
import { EMPTY_TAG, type DiskSpec } from '../types';
import { qemuAvailability } from './availability';
import { OVMF_CODE, OVMF_VARS, uefiMissing } from './firmware';
import { layoutOf, type QemuLayout } from './layout';

// Whether the qemu host can run a template: what its disks are, or are copied from, is in the
// images folder; when not, a sentence saying which file is missing and, for a stock image, that
// `npm run images` makes it.

let root = '';
let layout: QemuLayout;

const disk = (path: string, source: string | null = null, index = 0): DiskSpec => ({
  index,
  path,
  source,
  controller: 'virtio',
  sizeGiB: 4,
});
const specWith = (...disks: DiskSpec[]) => tinySpec('linux-server', 'lab', { disks });
const image = (path: string) => {
  mkdirSync(join(layout.images, path, '..'), { recursive: true });
  writeFileSync(join(layout.images, path), '');
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tq-avail-'));
  layout = layoutOf({
    images: join(root, 'images'),
    isos: join(root, 'isos'),
    state: join(root, 's'),
  });
  mkdirSync(layout.images, { recursive: true });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('qemu template availability', () => {
  it('is unavailable while a stock image is missing, saying which and how to make it', async () => {
    const spec = specWith(disk('debian-12.qcow2'));
    expect(await qemuAvailability(layout, spec)).toEqual({
      available: false,
      reason: 'The image debian-12.qcow2 is not in the images folder: run npm run images.',
    });
    image('debian-12.qcow2');
    expect(await qemuAvailability(layout, spec)).toEqual({ available: true });
  });

  it('needs every disk: the second missing is named', async () => {
    image('debian-12.qcow2');
    const spec = specWith(disk('debian-12.qcow2'), disk('router.qcow2', null, 1));
    expect(await qemuAvailability(layout, spec)).toMatchObject({
      available: false,
      reason: expect.stringContaining('router.qcow2'),
    });
  });

  it('takes a disk in the vSphere form by its file', async () => {
    image('lab/web_0.vmdk');
    expect(await qemuAvailability(layout, specWith(disk('[ds] lab/web_0.vmdk')))).toEqual({
      available: true,
    });
  });

  it('is available when a missing disk can be copied from an image that is there', async () => {
    const spec = specWith(disk('lab/web_0.qcow2', 'debian-12.qcow2'));
    expect(await qemuAvailability(layout, spec)).toEqual({
      available: false,
      reason: 'The image debian-12.qcow2 is not in the images folder: run npm run images.',
    });
    image('debian-12.qcow2');
    expect(await qemuAvailability(layout, spec)).toEqual({ available: true });
  });

  it('is available once a workspace’s copy is there, whatever became of its source', async () => {
    image('lab/web_0.qcow2');
    expect(
      await qemuAvailability(layout, specWith(disk('lab/web_0.qcow2', 'debian-12.qcow2'))),
    ).toEqual({ available: true });
  });

  it('says a workspace’s own disk without a size is gone, and makes one with a size empty', async () => {
    expect(
      await qemuAvailability(layout, specWith({ ...disk('lab/web_0.qcow2'), sizeGiB: 0 })),
    ).toEqual({
      available: false,
      reason: 'The disk lab/web_0.qcow2 is not in the images folder.',
    });
    // A size and nothing to copy: initializing the template makes it empty (an ISO install).
    expect(await qemuAvailability(layout, specWith(disk('lab/web_0.qcow2')))).toEqual({
      available: true,
    });
  });

  it('gives a disk without a path an empty disk of its size, and refuses one without a size', async () => {
    expect(await qemuAvailability(layout, specWith(disk('')))).toEqual({ available: true });
    expect(await qemuAvailability(layout, specWith({ ...disk('[ds] '), sizeGiB: 0 }))).toEqual({
      available: false,
      reason: 'Its disk names no image and has no size.',
    });
  });

  it('never takes a missing stock disk for an empty one', async () => {
    expect(
      await qemuAvailability(layout, specWith(disk(`[ds] ${EMPTY_TAG}/windows.vmdk`))),
    ).toEqual({
      available: false,
      reason: `The disk ${EMPTY_TAG}/windows.vmdk is not in the images folder.`,
    });
  });

  it('says a host without OVMF cannot boot UEFI, and names the package', async () => {
    const ovmf = join(root, 'ovmf');
    expect(await uefiMissing(ovmf)).toMatch(/install the ovmf package/);
    mkdirSync(ovmf);
    writeFileSync(join(ovmf, OVMF_CODE), '');
    writeFileSync(join(ovmf, OVMF_VARS), '');
    expect(await uefiMissing(ovmf)).toBeNull();
  });

  it('is unavailable for a template without disks or with a disk outside the folder', async () => {
    expect(await qemuAvailability(layout, specWith())).toEqual({
      available: false,
      reason: 'It has no disk.',
    });
    expect(await qemuAvailability(layout, specWith(disk('../etc/passwd')))).toMatchObject({
      available: false,
      reason: expect.stringContaining('not a path inside its folder'),
    });
  });
});

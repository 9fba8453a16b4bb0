import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tinySpec } from '../../../tests/server/hypervisor/qemuMachines';
import { createManualClock } from '../../../tests/server/manualClock';
import { createDiskCopies } from './diskCopies';
import { layoutOf, type QemuLayout } from './layout';

// A template's disks copied on the qemu host: a copy under way shows when it began by the clock
// the driver is handed, not the system's.

let root = '';
let layout: QemuLayout;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tq-copies-'));
  layout = layoutOf({
    images: join(root, 'images'),
    isos: join(root, 'isos'),
    state: join(root, 's'),
  });
  mkdirSync(layout.images, { recursive: true });
  execFileSync('qemu-img', [
    'create',
    '-q',
    '-f',
    'qcow2',
    join(layout.images, 'base.qcow2'),
    '16M',
  ]);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('disk copies', () => {
  it("start at the time of the driver's clock, and are present once done", async () => {
    const clock = createManualClock();
    // The driver's time runs a day ahead of the system's.
    clock.advance(24 * 60 * 60_000);
    const disks = createDiskCopies({ layout, clock });
    const spec = tinySpec('web', 'lab', {
      disks: [
        { index: 0, path: 'lab/web.qcow2', source: 'base.qcow2', controller: null, sizeGiB: 1 },
      ],
    });

    await disks.create(spec);
    expect(disks.copyStarted(spec)).toBe(clock.now());

    await vi.waitFor(async () => expect(await disks.progress(spec)).toEqual([100]), {
      timeout: 10_000,
      interval: 20,
    });
    expect(disks.copyStarted(spec)).toBeNull();
  });
});

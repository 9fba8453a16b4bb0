import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tinySpec } from '../../../tests/server/hypervisor/qemuMachines';
import { DriverError } from '../types';
import { createCapacity, type Capacity } from './capacity';
import { layoutOf, type QemuLayout } from './layout';
import { recordOf } from './plans';
import { createWarmImages } from './warm';

// The qemu host's caps: what is admitted counts against them until it runs or is released, a
// warm image build only starts with room for another machine of its size left, and a build the
// caps have no room for is asked again at the next deploy rather than taken for failed.

describe('qemu capacity', () => {
  const capacityOf = (running: number[], maxRunning: number | null, maxMemoryMiB: number | null) =>
    createCapacity({ maxRunning, maxMemoryMiB, running: async () => running });

  it('counts room admitted and not running yet until it is released', async () => {
    const capacity = capacityOf([512], 4, null);
    const batch = await capacity.admit([256, 256]);
    expect(capacity.reserved()).toEqual({ count: 2, memoryMiB: 512 });
    // One running and two admitted: one more fits, not two.
    await expect(capacity.admit([128, 128])).rejects.toThrow(/3 of at most 4 machines/);
    capacity.consume(batch, 256);
    expect(capacity.reserved()).toEqual({ count: 1, memoryMiB: 256 });
    capacity.release(batch);
    expect(capacity.reserved()).toEqual({ count: 0, memoryMiB: 0 });
  });

  it('admits a machine beside spare room only when the spare room fits too', async () => {
    const byCount = capacityOf([128, 128], 4, null);
    // Room for two: one admitted, one left.
    const build = await byCount.admitLeaving([128], [128]);
    // Room for one: none admitted, or the last machine a launch needs would go.
    await expect(byCount.admitLeaving([128], [128])).rejects.toSatisfy(
      (e: unknown) => e instanceof DriverError && e.code === 'capacity',
    );
    // A launch may still take that last room.
    await expect(byCount.admit([128])).resolves.toEqual({ count: 1, memoryMiB: 128 });
    byCount.release(build);

    const byMemory = capacityOf([1024], null, 2048);
    await expect(byMemory.admitLeaving([768], [768])).rejects.toThrow(
      /1024 of 2048 MiB .* with room for 1 more left/,
    );
    await expect(byMemory.admitLeaving([512], [512])).resolves.toEqual({
      count: 1,
      memoryMiB: 512,
    });
  });
});

describe('warm image builds under the caps', () => {
  let root = '';
  let layout: QemuLayout;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'tq-cap-'));
    layout = layoutOf({
      images: join(root, 'images'),
      isos: join(root, 'isos'),
      state: join(root, 's'),
    });
    await mkdir(layout.images, { recursive: true });
    writeFileSync(join(layout.images, 'base.qcow2'), 'a disk');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('asks the caps for room beside a machine of its size, and asks again at the next deploy', async () => {
    const asked: Array<[number[], number[]]> = [];
    const full: Pick<Capacity, 'admitLeaving' | 'release'> = {
      admitLeaving: async (memories, spare) => {
        asked.push([memories, spare]);
        throw new DriverError('capacity', '4 of at most 4 machines are running');
      },
      release: () => undefined,
    };
    const warm = createWarmImages({
      layout,
      acceleration: 'tcg',
      qemu: '9.2.0',
      now: () => 0,
      capacity: full,
    });
    const spec = tinySpec('web', 'tag', {
      disks: [{ index: 0, path: 'base.qcow2', source: null, controller: null, sizeGiB: 1 }],
    });
    const disks = [{ ...spec.disks[0]!, full: join(layout.images, 'base.qcow2') }];
    const record = recordOf('00000000-0000-4000-8000-000000000001', spec, false, disks, [], 0);

    await warm.request(record);
    await warm.settled();
    expect(asked).toEqual([[[128], [128]]]);
    expect(await warm.readyFor(record)).toBeNull();
    // No room is no failure: the next deploy's request asks again at once.
    await warm.request(record);
    await warm.settled();
    expect(asked).toHaveLength(2);
    await warm.close();
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sidecarOf } from './disks';
import type { MachineRecord } from './records';
import { warmKeyOf } from './warm';

// Which machines a warm image can be saved for, by their image alone.

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tq-warm-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const recordOn = (base: string) =>
  ({
    id: 'm1',
    name: 'desk#t1',
    tag: 't1',
    created: 0,
    spec: { memoryMiB: 1024, cpu: { sockets: 1, coresPerSocket: 1 }, nics: [] },
    privileged: false,
    nics: [],
    disks: [{ index: 0, base, path: 'x.qcow2', controller: 'virtio', sizeGiB: 4 }],
    iso: null,
    bootDelaySeconds: 0,
    guestSettings: [],
  }) as unknown as MachineRecord;

describe('warmKeyOf', () => {
  it('saves no warm image of an image with the vdagent, which QEMU cannot save', async () => {
    const context = { acceleration: 'tcg' as const, qemu: 'QEMU 7.2' };
    const disk = join(dir, 'debian-desktop.qcow2');
    writeFileSync(disk, 'x');
    expect(await warmKeyOf(recordOn(disk), context)).toMatch(/^[0-9a-f]{24}$/);
    writeFileSync(sidecarOf(disk, 'devices'), 'vdagent\n');
    expect(await warmKeyOf(recordOn(disk), context)).toBeNull();
  });
});

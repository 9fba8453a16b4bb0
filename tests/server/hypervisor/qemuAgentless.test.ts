import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQemuDriver, type QemuDriver } from '../../../server/hypervisor/qemu/qemuDriver';
import type { MachineSpec } from '../../../server/hypervisor/types';
import { qemuFolders, tinySpec, type QemuFolders } from './qemuMachines';

// A machine whose image has no guest agent (here a blank disk: nothing boots, nothing answers):
// the first wait for it to be usable runs its whole course, and teaches the driver that the image
// has none. From then on its machines are usable at once, and a template of it with guest
// settings cannot be pooled (a claim could not give its running machine the settings).

const AGENT_WAIT_MS = 3_000;

let folders: QemuFolders;
let driver: QemuDriver;

beforeAll(async () => {
  folders = await qemuFolders();
  execFileSync('qemu-img', [
    'create',
    '-q',
    '-f',
    'qcow2',
    join(folders.imagesDir, 'blank.qcow2'),
    '64M',
  ]);
  driver = await createQemuDriver({
    ...folders,
    watchMs: 200,
    warmImages: false,
    agentWaitMs: AGENT_WAIT_MS,
  });
}, 600_000);

afterAll(async () => {
  await driver?.deleteAll('#').catch(() => undefined);
  await driver?.removeOrphans().catch(() => 0);
  await driver?.close().catch(() => undefined);
  try {
    process.kill(Number(readFileSync(join(folders.stateDir, 'switch', 'switch.pid'), 'utf8')));
  } catch {
    // No switch was left.
  }
  rmSync(folders.root, { recursive: true, force: true });
}, 120_000);

const bareSpec = (tag: string, fields: Partial<MachineSpec> = {}) =>
  tinySpec('bare', tag, {
    autoStart: true,
    disks: [{ index: 0, path: 'blank.qcow2', source: null, controller: null, sizeGiB: 1 }],
    guestSettings: [{ key: 'guestinfo.flag', value: 'flag-1' }],
    ...fields,
  });

describe('qemu driver: images without the guest agent', () => {
  it('learns that an image has no agent, and no longer pools or waits for its machines', async () => {
    const tag = randomUUID();
    const spec = bareSpec(tag);
    // Nothing is known of the image yet.
    expect(await driver.poolable!(spec)).toEqual({ available: true });
    const [machine] = await driver.deployBatch(
      { isolationTag: tag, hostAffinity: false, privileged: false, specs: [spec] },
      true,
    );
    expect(machine!.state).toBe('running');

    const first = performance.now();
    await driver.untilUsable!(tag);
    expect(performance.now() - first).toBeGreaterThanOrEqual(AGENT_WAIT_MS - 100);

    const refused = await driver.poolable!(spec);
    expect(refused.available).toBe(false);
    expect(refused.available ? '' : refused.reason).toMatch(
      /template bare has no guest agent .* guest settings/,
    );
    // Without guest settings a claim asks nothing of the agent: such a template can be pooled.
    expect(await driver.poolable!(bareSpec(tag, { guestSettings: [] }))).toEqual({
      available: true,
    });
    // Known now: its machines are usable once they run.
    const again = performance.now();
    await driver.untilUsable!(tag);
    expect(performance.now() - again).toBeLessThan(AGENT_WAIT_MS / 2);
  }, 120_000);
});

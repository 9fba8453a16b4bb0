import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COPY_MAX_BYTES } from '../../../server/hypervisor/guestClipboard';
import { createQemuDriver, type QemuDriver } from '../../../server/hypervisor/qemu/qemuDriver';
import { qemuFolders, tinySpec, type QemuFolders } from './qemuMachines';
import { openSerial, type SerialShell } from './serialShell';

// Copy out of a real tiny machine: what a player hands to `topoplay-copy` inside the guest is
// what the driver reads out through the guest agent, byte for byte.

const BOOT_MS = 90_000;

let folders: QemuFolders;
let driver: QemuDriver;
let serial: SerialShell;
let id: string;

beforeAll(async () => {
  folders = await qemuFolders();
  driver = await createQemuDriver({ ...folders, watchMs: 200, warmImages: false });
  const tag = randomUUID();
  const [machine] = await driver.deployBatch(
    {
      isolationTag: tag,
      hostAffinity: false,
      privileged: false,
      specs: [tinySpec('clip', tag, { autoStart: true })],
    },
    true,
  );
  id = machine!.id;
  serial = await openSerial(driver.serialSocket(id), BOOT_MS);
  await serial.until(/:~# /, BOOT_MS);
}, 600_000);

afterAll(async () => {
  serial?.close();
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

describe('copy out of a real tiny machine', () => {
  it('says the machine copies out through its agent once it answers', async () => {
    await vi.waitFor(
      async () => expect(await driver.guestClipboard!(id)).toEqual({ copy: true, via: 'agent' }),
      {
        timeout: BOOT_MS,
        interval: 500,
      },
    );
  }, 120_000);

  it('reads nothing before anything was copied', async () => {
    expect(await driver.readGuestClipboard!(id)).toBe('');
  });

  it('reads exactly what was piped into topoplay-copy', async () => {
    const text = 'héllo wörld ✓ 𝄞\n\ttabs, "quotes", \'single\', $HOME `ticks` \\ back\nlast';
    const encoded = Buffer.from(text).toString('base64');
    const copied = await serial.run(`printf %s '${encoded}' | base64 -d | topoplay-copy`);
    expect(copied.status).toBe(0);
    expect(copied.output).toContain(
      `topoplay-copy: ${Buffer.byteLength(text)} bytes ready. Press Copy in the console.`,
    );
    expect(await driver.readGuestClipboard!(id)).toBe(text);
  }, 60_000);

  it('copies a file given by name, and cuts a long one at the limit', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `${i + 1}\n`).join('');
    const copied = await serial.run('seq 1 20000 > /tmp/long.txt && topoplay-copy /tmp/long.txt');
    expect(copied.status).toBe(0);
    expect(copied.output).toContain(`the first ${COPY_MAX_BYTES} are copied`);
    const started = performance.now();
    const read = await driver.readGuestClipboard!(id);
    const seconds = (performance.now() - started) / 1000;
    expect(read).toBe(lines.slice(0, COPY_MAX_BYTES));
    console.log(`read ${COPY_MAX_BYTES} bytes out of the guest in ${seconds.toFixed(2)} s`);
  }, 60_000);

  it('says a stopped machine cannot copy, and refuses to read it', async () => {
    await driver.stop(id);
    expect(await driver.guestClipboard!(id)).toEqual({ copy: false });
    await expect(driver.readGuestClipboard!(id)).rejects.toMatchObject({ code: 'invalid-state' });
  }, 60_000);
});

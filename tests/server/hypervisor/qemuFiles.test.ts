import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQemuDriver, type QemuDriver } from '../../../server/hypervisor/qemu/qemuDriver';
import { PUT_WINDOW_LINES } from '../../../server/hypervisor/qemu/filePut';
import { PUT_LINE_CHARS } from '../../../server/hypervisor/qemu/guestAgent';
import { qemuFolders, tinySpec, type QemuFolders } from './qemuMachines';
import { openSerial, type SerialShell } from './serialShell';

// Files put into a real tiny machine through its guest agent arrive whole: the SHA-256 the test
// reads on the machine's serial shell is the one of the bytes sent.

const BOOT_MS = 90_000;

let folders: QemuFolders;
let driver: QemuDriver;
let serial: SerialShell;
let machineId: string;

beforeAll(async () => {
  folders = await qemuFolders();
  driver = await createQemuDriver({ ...folders, watchMs: 200, warmImages: false });
  const tag = randomUUID();
  const [machine] = await driver.deployBatch(
    {
      isolationTag: tag,
      hostAffinity: false,
      privileged: false,
      specs: [tinySpec('files', tag, { autoStart: true })],
    },
    true,
  );
  machineId = machine!.id;
  serial = await openSerial(driver.serialSocket(machineId), BOOT_MS);
  await serial.until(/:~# /, BOOT_MS);
  await driver.untilUsable!(tag);
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

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The file's SHA-256 and size, as the machine's own shell has them. */
async function inGuest(path: string): Promise<{ sha256: string; size: number }> {
  const { output, status } = await serial.run(
    `echo "<$(sha256sum ${path} | cut -d' ' -f1) $(wc -c < ${path})>"`,
  );
  expect(status).toBe(0);
  const [, sum = '', size = ''] = /<([0-9a-f]{64}) (\d+)>/.exec(output) ?? [];
  return { sha256: sum, size: Number(size) };
}

describe('files put into a real qemu machine through its agent', () => {
  it('a file of several windows lands in /root/uploads with the SHA-256 sent', async () => {
    // Two windows and a piece: the acknowledged lengths add up across calls.
    const bytes = randomBytes(((PUT_WINDOW_LINES * PUT_LINE_CHARS * 3) / 4) * 2 + 1234);
    const started = performance.now();
    const put = await driver.putFile!(machineId, 'tool-1.bin', bytes);
    const seconds = (performance.now() - started) / 1000;
    console.log(`qemu agent put: ${bytes.length} bytes in ${seconds.toFixed(1)} s`);
    expect(put).toEqual({ path: '/root/uploads/tool-1.bin', sha256: sha256(bytes) });
    expect(await inGuest('/root/uploads/tool-1.bin')).toEqual({
      sha256: sha256(bytes),
      size: bytes.length,
    });
    // Nothing of the transfer is left beside it.
    expect((await serial.run('ls -A /root/uploads')).output).not.toMatch(/\.part/);
  }, 120_000);

  it('a file put again under its name replaces it, and an empty file arrives empty', async () => {
    const first = Buffer.from('first version\n');
    const second = Buffer.from('second\n');
    await driver.putFile!(machineId, 'notes.txt', first);
    await driver.putFile!(machineId, 'notes.txt', second);
    expect(await inGuest('/root/uploads/notes.txt')).toEqual({ sha256: sha256(second), size: 7 });
    const empty = await driver.putFile!(machineId, 'empty', new Uint8Array());
    expect(empty.sha256).toBe(sha256(new Uint8Array()));
    expect((await inGuest('/root/uploads/empty')).size).toBe(0);
  }, 60_000);

  it('a stopped machine takes no file', async () => {
    await driver.stop(machineId);
    await expect(driver.putFile!(machineId, 'late.txt', Buffer.from('x'))).rejects.toMatchObject({
      code: 'invalid-state',
    });
  }, 60_000);
});

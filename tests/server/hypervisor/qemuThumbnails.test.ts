import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { realClock } from '../../../server/clock';
import { createThumbnails } from '../../../server/console/thumbnails';
import { createQemuDriver, type QemuDriver } from '../../../server/hypervisor/qemu/qemuDriver';
import { qmp } from '../../../server/hypervisor/qemu/qmp';
import { decodePng, expectedThumbnail } from '../thumbnails/pngDecode';
import { qemuFolders, tinySpec, type QemuFolders } from './qemuMachines';
import { openSerial, type SerialShell } from './serialShell';

// The wall's thumbnail of a real machine: the capture speaks RFB to QEMU's own VNC server (not
// the sim's), and what it shows is the machine's screen, compared with QEMU's own screendump of
// the framebuffer. The Linux console's cursor blinks, so a few pixels may differ between the two
// reads; anything more is a wrong picture.

const BOOT_MS = 90_000;

let folders: QemuFolders;
let driver: QemuDriver;
let serial: SerialShell;
let machineId = '';

/** QEMU's screendump of the machine's framebuffer (PPM, P6), as 0xRRGGBB pixels. */
async function screen(): Promise<{ width: number; height: number; pixels: Uint32Array }> {
  const file = join(folders.root, `screen-${randomUUID()}.ppm`);
  await qmp(driver.qmpSocket(machineId), 'screendump', { filename: file });
  const ppm = readFileSync(file);
  rmSync(file);
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 32).toString('latin1'))!;
  const [width, height] = [Number(header[1]), Number(header[2])];
  const rgb = ppm.subarray(header[0].length);
  const pixels = new Uint32Array(width * height);
  for (let i = 0; i < pixels.length; i++) {
    pixels[i] = (rgb[i * 3]! << 16) | (rgb[i * 3 + 1]! << 8) | rgb[i * 3 + 2]!;
  }
  return { width, height, pixels };
}

/** The share of pixels in which two RGB pictures of one size differ. */
function differing(a: Uint8Array, b: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < a.length; i += 3) {
    if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) count++;
  }
  return count / (a.length / 3);
}

beforeAll(async () => {
  folders = await qemuFolders();
  driver = await createQemuDriver({ ...folders, watchMs: 200, warmImages: false });
  const tag = randomUUID();
  const [machine] = await driver.deployBatch(
    {
      isolationTag: tag,
      hostAffinity: false,
      privileged: false,
      specs: [tinySpec('wall', tag, { autoStart: true })],
    },
    true,
  );
  machineId = machine!.id;
  serial = await openSerial(driver.serialSocket(machineId), BOOT_MS);
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

describe('a thumbnail of a qemu machine', () => {
  it("is the machine's screen, and follows it", async () => {
    const thumbnails = createThumbnails({ driver, clock: realClock, intervalMs: 500 });
    try {
      /** The thumbnail now and the screen now agree but for a blinking cursor. */
      const agreeing = async (notEtag?: string) => {
        let seen: { etag: string; rgb: Uint8Array; width: number } = {
          etag: '',
          rgb: new Uint8Array(),
          width: 0,
        };
        await vi.waitFor(
          async () => {
            const answer = await thumbnails.thumbnail(machineId);
            if (!('picture' in answer)) throw new Error('no picture yet');
            const { png, etag } = answer.picture;
            if (etag === notEtag) throw new Error('the same picture');
            const picture = decodePng(png);
            const now = await screen();
            const expected = expectedThumbnail(
              now.pixels,
              now.width,
              now.height,
              picture.width,
              picture.height,
            );
            expect(differing(picture.rgb, expected)).toBeLessThan(0.005);
            seen = { etag, rgb: picture.rgb, width: picture.width };
          },
          { timeout: 30_000, interval: 500 },
        );
        return seen;
      };

      const first = await agreeing();
      expect(first.width).toBeLessThanOrEqual(320);
      // Text on the screen: not a picture of one colour.
      expect(new Set(first.rgb).size).toBeGreaterThan(1);

      // The screen cleared and written on from inside the machine: a new picture, still it.
      await serial.run(`printf '\\033[2J\\033[H%s\\n' 'THE WALL SEES THIS' > /dev/tty1`);
      const second = await agreeing(first.etag);
      expect(differing(first.rgb, second.rgb)).toBeGreaterThan(0.005);
    } finally {
      thumbnails.close();
    }
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../../server/core/ids';
import type { HypervisorDriver } from '../../../server/hypervisor';
import {
  COPY_COMMAND,
  COPY_FILE,
  COPY_MAX_BYTES,
  COPY_SCRIPT,
} from '../../../server/hypervisor/guestClipboard';
import { PveHttpError } from '../../pvesim/errors';
import { startPveSimulator, type PveSimulator } from '../../pvesim/simulator';
import { clusterSpec, nic } from './contract';
import { proxmoxDriverOn } from './proxmoxOnSim';

// Copy out of a machine on a Proxmox cluster, against the PVE API simulator (each request checked
// against PVE's schema): what the guest's `topoplay-copy` left in its file is what the driver
// reads out through PVE's guest agent, byte for byte, and a machine says it can copy only when
// its image has the command.

const STOCK = 'topoplay-tiny';
const FILE_READ = 'GET /nodes/{node}/qemu/{vmid}/agent/file-read';

const spec = (name: string, tag: string) =>
  clusterSpec(name, tag, STOCK, { nics: [nic('lan')], baseImage: STOCK });

let sim: PveSimulator;
let driver: HypervisorDriver;
/** A machine whose image has topoplay-copy, and one whose image has not. */
let clip: string;
let bare: string;
/** The guest agents stop answering file reads. */
let silent = false;

beforeAll(async () => {
  sim = await startPveSimulator({
    cloneMs: 60,
    taskMs: 30,
    sdnReloadMs: 120,
    lockWaitMs: 80,
    agentDelayMs: 100,
    overrides: {
      [FILE_READ]: (call, own) => {
        if (silent) throw new PveHttpError(500, 'QEMU guest agent is not running');
        return own!(call);
      },
    },
  });
  driver = proxmoxDriverOn(sim);
  const tag = newId();
  clip = (await driver.deploy(spec('clip', tag), false)).id;
  bare = (await driver.deploy(spec('bare', tag), false)).id;
  for (const id of [clip, bare]) {
    await vi.waitFor(async () => expect((await driver.load(id))?.state).toBe('running'), {
      timeout: 10_000,
      interval: 20,
    });
  }
  await driver.untilUsable!(tag);
  sim.writeGuestFile(Number(clip), COPY_COMMAND, COPY_SCRIPT);
}, 60_000);

afterAll(async () => {
  await driver?.close();
  await sim?.close();
});

describe('copy out of a proxmox machine through its guest agent', () => {
  it('says a machine whose image has topoplay-copy can copy, one without cannot', async () => {
    expect(await driver.guestClipboard!(clip)).toEqual({ copy: true });
    expect(await driver.guestClipboard!(bare)).toEqual({ copy: false });
  });

  it('reads nothing before anything was copied', async () => {
    expect(await driver.readGuestClipboard!(clip)).toBe('');
  });

  it('reads the copied UTF-8 text byte for byte', async () => {
    const text = `He said "hi" and 'bye'\tthen\ttabs\nline two: ünïcödé, 日本語, 🙂\r\n\n`;
    sim.writeGuestFile(Number(clip), COPY_FILE, text);
    const read = await driver.readGuestClipboard!(clip);
    expect(read).toBe(text);
    expect(Buffer.from(read).equals(Buffer.from(text))).toBe(true);
  });

  it('cuts a longer text at the limit, without half a character', async () => {
    sim.writeGuestFile(Number(clip), COPY_FILE, 'x'.repeat(COPY_MAX_BYTES + 500));
    expect(await driver.readGuestClipboard!(clip)).toBe('x'.repeat(COPY_MAX_BYTES));
    // The euro sign's three bytes straddle the limit: it is left out.
    sim.writeGuestFile(Number(clip), COPY_FILE, `${'a'.repeat(COPY_MAX_BYTES - 1)}€ and more`);
    expect(await driver.readGuestClipboard!(clip)).toBe('a'.repeat(COPY_MAX_BYTES - 1));
  });

  it('refuses as unavailable when the guest agent does not answer', async () => {
    silent = true;
    try {
      await expect(driver.readGuestClipboard!(clip)).rejects.toMatchObject({
        code: 'unavailable',
      });
    } finally {
      silent = false;
    }
  });

  it('a stopped machine cannot copy, and its read is refused', async () => {
    await driver.stop(clip);
    expect(await driver.guestClipboard!(clip)).toEqual({ copy: false });
    await expect(driver.readGuestClipboard!(clip)).rejects.toMatchObject({
      code: 'invalid-state',
    });
  });
});

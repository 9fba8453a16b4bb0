import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../../server/core/ids';
import type { HypervisorDriver, MachineSpec } from '../../../server/hypervisor';
import { PVE_PIECE_BYTES } from '../../../server/hypervisor/proxmox/filePut';
import { startPveSimulator, type PveSimulator } from '../../pvesim/simulator';
import { clusterSpec, nic } from './contract';
import { proxmoxDriverOn } from './proxmoxOnSim';

// Files put into a running machine on a Proxmox cluster, against the PVE API simulator (each
// request checked against PVE's schema): through the guest agent's file-write, in pieces when the
// file is larger than one call takes, read back to check what arrived.

const STOCK = 'topoplay-tiny';
const SIM_TIMINGS = {
  cloneMs: 60,
  fullCloneMs: 300,
  taskMs: 30,
  sdnReloadMs: 120,
  lockWaitMs: 80,
  agentDelayMs: 100,
};

const spec = (name: string, tag: string, fields: Partial<MachineSpec> = {}) =>
  clusterSpec(name, tag, STOCK, {
    nics: [{ ...nic('lan'), adapter: 'e1000' }],
    baseImage: STOCK,
    ...fields,
  });

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let sim: PveSimulator;
let driver: HypervisorDriver;
let vmId: string;

beforeAll(async () => {
  sim = await startPveSimulator(SIM_TIMINGS);
  driver = proxmoxDriverOn(sim);
  const tag = newId();
  vmId = (await driver.deploy(spec('web', tag), false)).id;
  await vi.waitFor(async () => expect((await driver.load(vmId))?.state).toBe('running'), {
    timeout: 10_000,
    interval: 20,
  });
  await driver.untilUsable!(tag);
}, 60_000);

afterAll(async () => {
  await driver?.close();
  await sim?.close();
});

describe('files into a proxmox machine through its guest agent', () => {
  it('says it puts files through the agent', () => {
    expect(driver.capabilities.files).toBe('agent');
  });

  it('a small file is written in one call into /root/uploads and read back', async () => {
    const text = 'echo hello from the console\n';
    const put = await driver.putFile!(vmId, 'hello.sh', Buffer.from(text));
    expect(put).toEqual({ path: '/root/uploads/hello.sh', sha256: sha256(text) });
    expect(sim.agentFiles(Number(vmId))['/root/uploads/hello.sh']).toBe(text);
    // The folder is made first.
    expect(sim.agentExecs(Number(vmId)).map((e) => e.command)).toContainEqual([
      '/bin/sh',
      '-c',
      'mkdir -p /root/uploads',
    ]);
  });

  it('a larger file goes in pieces of one call each, joined in the guest', async () => {
    const text = 'x'.repeat(PVE_PIECE_BYTES * 2 + 10);
    // The simulated guest runs no command, so the join leaves no file to read back: refused as
    // not arrived, after the pieces were written and their join asked for.
    await expect(driver.putFile!(vmId, 'big.txt', Buffer.from(text))).rejects.toBeTruthy();
    const files = sim.agentFiles(Number(vmId));
    expect(
      ['0000', '0001', '0002'].map((n) => files[`/root/uploads/.big.txt.part${n}`]?.length),
    ).toEqual([PVE_PIECE_BYTES, PVE_PIECE_BYTES, 10]);
    const commands = sim.agentExecs(Number(vmId)).map((e) => e.command.join(' '));
    expect(commands).toContainEqual(
      "/bin/sh -c cat '/root/uploads/.big.txt.part0000' '/root/uploads/.big.txt.part0001' " +
        "'/root/uploads/.big.txt.part0002' > '/root/uploads/big.txt' && rm -f " +
        "'/root/uploads/.big.txt.part0000' '/root/uploads/.big.txt.part0001' " +
        "'/root/uploads/.big.txt.part0002'",
    );
  });

  it('a stopped machine takes no file', async () => {
    await driver.stop(vmId);
    await expect(driver.putFile!(vmId, 'late.txt', Buffer.from('x'))).rejects.toMatchObject({
      code: 'invalid-state',
    });
  });
});

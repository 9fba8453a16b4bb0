import { afterEach, describe, expect, it } from 'vitest';
import { startPveSimulator, type PveSimulator } from './simulator';
import { call, data, replyOf, tokenHeaders, waitTask, type Reply } from './testApi';

// Disk images to import on the PVE API simulator, as the proxmox driver uses them: an upload
// with content `import` lands in the node's import folder, and a new VM's disk is imported from
// it (`scsi0: local-lvm:0,import-from=local:import/x.qcow2`) when its create task runs. Each
// test fails without the behaviour it names.

const running: PveSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.close()));
});

async function start(isos: string[] = []): Promise<PveSimulator> {
  const sim = await startPveSimulator({ taskMs: 20, isos });
  running.push(sim);
  return sim;
}

async function upload(sim: PveSimulator, node: string, content: string, name: string) {
  const form = new FormData();
  form.append('content', content);
  form.append('filename', new Blob([Buffer.alloc(3000, 7)]), name);
  const url = `${sim.url}/api2/json/nodes/${node}/storage/local/upload`;
  return replyOf(await fetch(url, { method: 'POST', headers: tokenHeaders(sim), body: form }));
}

const imports = async (sim: PveSimulator, node: string) =>
  (
    await data<{ volid: string; content: string; format: string; size: number }[]>(
      sim,
      'GET',
      `/nodes/${node}/storage/local/content`,
      { content: 'import' },
    )
  ).map(({ volid, content, format, size }) => ({ volid, content, format, size }));

const create = (sim: PveSimulator, vmid: number, scsi0: string): Promise<Reply> =>
  call(sim, 'POST', '/nodes/pve1/qemu', { vmid, name: `vm${vmid}`, memory: 512, scsi0 });

describe('PVE API simulator: disk images to import', () => {
  it('stores an import upload in the node’s import folder, listed as import content only', async () => {
    const sim = await start();
    const answer = await upload(sim, 'pve1', 'import', 'web.qcow2');
    expect(answer.status).toBe(200);
    expect((await waitTask(sim, answer.body.data as string)).exitstatus).toBe('OK');
    expect(await imports(sim, 'pve1')).toEqual([
      { volid: 'local:import/web.qcow2', content: 'import', format: 'qcow2', size: 3000 },
    ]);
    // Not an ISO, and on that node only (`local` is each node's own).
    const isos = await data<{ volid: string }[]>(sim, 'GET', '/nodes/pve1/storage/local/content', {
      content: 'iso',
    });
    expect(isos.map((c) => c.volid)).not.toContain('local:import/web.qcow2');
    expect(await imports(sim, 'pve2')).toEqual([]);
  });

  it('refuses an import upload whose name PVE would not take', async () => {
    const sim = await start();
    const answer = await upload(sim, 'pve1', 'import', 'web.vdi');
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual({ filename: 'invalid filename or wrong extension' });
    // The schema knows the content types an upload takes.
    expect((await upload(sim, 'pve1', 'images', 'web.qcow2')).status).toBe(400);
  });

  it('creates a VM whose disk is imported from an image, of the image’s size', async () => {
    const sim = await start(['local:import/web.qcow2']);
    const answer = await create(sim, 700, 'local-lvm:0,import-from=local:import/web.qcow2');
    expect(answer.status).toBe(200);
    expect((await waitTask(sim, answer.body.data as string)).exitstatus).toBe('OK');
    const vm = sim.vms().find((v) => v.vmid === 700);
    expect(vm?.config.scsi0).toBe(`local-lvm:vm-700-disk-0,size=${4 * 1024 * 1024}`);
  });

  it('fails the create task, and leaves no VM, when the image is not on the node', async () => {
    const sim = await start();
    const answer = await create(sim, 701, 'local-lvm:0,import-from=local:import/gone.qcow2');
    expect(answer.status).toBe(200);
    const status = await waitTask(sim, answer.body.data as string);
    expect(status.exitstatus).toBe(
      'unable to create VM 701 - could not get file size of local:import/gone.qcow2',
    );
    expect(sim.vms().find((v) => v.vmid === 701)).toBeUndefined();
  });

  it('refuses to import an ISO image as a disk', async () => {
    const sim = await start(['local:iso/tools.iso']);
    const answer = await create(sim, 702, 'local-lvm:0,import-from=local:iso/tools.iso');
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual({
      scsi0: "local:iso/tools.iso has wrong type 'iso' - needs to be 'images' or 'import'",
    });
    expect(sim.vms().find((v) => v.vmid === 702)).toBeUndefined();
  });
});

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detailForImage } from '../../src/api/diskImages';
import { startPveSimulator, type PveSimulator } from '../pvesim/simulator';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { signIn } from './oidc';

// Imported disk images with HYPERVISOR=proxmox, through the real server and the PVE API
// simulator (issue 31): an image an administrator uploads in chunks to the images folder, made a
// template as the Disk Images panel does, is uploaded to the cluster's storage (content
// `import`, on every node, since `local` is each node's own) when the template is initialized,
// and a machine of it is a new VM whose disk PVE imports from that volume. A template naming an
// image that is nowhere is unavailable, and its deploy is refused naming the image.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const NODES = ['pve1', 'pve2', 'pve3'];
const VOLUME = 'local:import/web.qcow2';

describe('disk images on a Proxmox cluster (PVE API simulator)', () => {
  let sim: PveSimulator;
  let server: TestServer;
  let inputs: string;
  let token = '';
  /** The parameters of every VM create the simulator was asked for. */
  const creates: Array<Record<string, unknown>> = [];

  async function call(method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    let payload: string | Uint8Array | undefined;
    if (Buffer.isBuffer(body)) {
      headers['content-type'] = 'application/octet-stream';
      payload = new Uint8Array(body);
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(`${server.url}/api${path}`, { method, headers, body: payload });
    const text = await res.text();
    let json: Json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    return { status: res.status, body: json };
  }

  /** The template list's entry of a template, as an administrator reads it. */
  const listed = async (id: string): Promise<Json> =>
    ((await call('GET', '/templates')).body as Json[]).find((t) => t.id === id);

  /** The node's `import` content on storage `local`. */
  const importsOn = (node: string) =>
    sim.isoFiles(node).filter((file) => file.volid.startsWith('local:import/'));

  beforeAll(async () => {
    inputs = mkdtempSync(join(tmpdir(), 'topoplay-pve-diskimage-'));
    const raw = join(inputs, 'disk.raw');
    execFileSync('qemu-img', ['create', '-q', '-f', 'raw', raw, '16M']);
    // Data that does not compress away, so that the qcow2 is a few MiB.
    execFileSync('dd', ['if=/dev/urandom', `of=${raw}`, 'bs=1M', 'count=3', 'conv=notrunc'], {
      stdio: 'ignore',
    });
    execFileSync('qemu-img', ['convert', '-f', 'raw', '-O', 'qcow2', raw, join(inputs, 'w.qcow2')]);
    sim = await startPveSimulator({
      taskMs: 20,
      overrides: {
        'POST /nodes/{node}/qemu': (request, own) => {
          creates.push({ ...request.params });
          return own!(request);
        },
      },
    });
    server = await startTestServer({
      env: {
        HYPERVISOR: 'proxmox',
        PROXMOX_URL: sim.url,
        PROXMOX_TOKEN_ID: sim.tokenId,
        PROXMOX_TOKEN_SECRET: sim.tokenSecret,
      },
    });
    token = (await signIn(server.url, 'admin', SEED_PASSWORD)).accessToken;
  });
  afterAll(async () => {
    await server?.close();
    await sim?.close();
    if (inputs) rmSync(inputs, { recursive: true, force: true });
  });

  it('uploads an imported image to every node on Initialize and deploys VMs importing it', async () => {
    // The Disk Images panel's upload: chunks of 1 MiB, then complete.
    const qcow2 = readFileSync(join(inputs, 'w.qcow2'));
    expect(qcow2.length).toBeGreaterThan(2 * 1024 * 1024);
    const start = await call('POST', '/admin/diskimage', { name: 'web.qcow2', size: qcow2.length });
    expect(start.status).toBe(200);
    const uploadId = start.body.id as string;
    let offset = 0;
    while (offset < qcow2.length) {
      const sent = await call(
        'PUT',
        `/admin/diskimage/${uploadId}/chunk?offset=${offset}`,
        qcow2.subarray(offset, offset + 1024 * 1024),
      );
      expect(sent.status).toBe(200);
      offset = sent.body.received as number;
    }
    const image = await call('POST', `/admin/diskimage/${uploadId}/complete`);
    expect(image.status).toBe(200);
    expect(image.body).toMatchObject({ name: 'web.qcow2', virtualSize: 16 * 1024 * 1024 });
    const stored = readFileSync(join(server.dataDir, 'images', 'web.qcow2'));

    // The panel's "New template" from the image.
    const created = await call('POST', '/template-detail', {
      name: 'web',
      networks: 'lan',
      detail: detailForImage(image.body),
    });
    expect(created.status).toBe(200);
    const templateId = created.body.id as string;
    // Not on the cluster yet, but in the images folder: available, to be uploaded.
    expect(importsOn('pve1')).toEqual([]);
    expect((await listed(templateId)).unavailable).toBeUndefined();

    // Initialize: the upload starts; its progress reaches 100 once every node has the image.
    const init = await call('PUT', `/vm-template/${templateId}`);
    expect(init.status).toBe(200);
    expect(init.body).toBeGreaterThanOrEqual(0);
    await expect
      .poll(async () => (await call('PUT', `/vm-template/${templateId}`)).body, {
        timeout: 30_000,
        interval: 50,
      })
      .toBe(100);
    const sha256 = createHash('sha256').update(stored).digest('hex');
    expect(NODES.map(importsOn)).toEqual(
      NODES.map(() => [{ volid: VOLUME, size: stored.length, sha256 }]),
    );

    // Deploy: a new VM whose disk PVE imports from the volume (no clone of a VM template).
    const deployed = await call('POST', `/vm-template/${templateId}`);
    expect(deployed.status).toBe(200);
    // The VM is built after the deploy answers: the create is asked for, then its task ends.
    await expect.poll(() => creates.length, { timeout: 30_000, interval: 20 }).toBe(1);
    // Its one disk (besides the empty CD-ROM drive) is imported from the volume.
    const drives = Object.entries(creates[0]!).filter(([key]) =>
      /^(scsi|virtio|sata|ide)\d+$/.test(key),
    );
    expect(drives).toEqual([
      ['scsi0', 'local-lvm:0,import-from=local:import/web.qcow2'],
      ['ide2', 'none,media=cdrom'],
    ]);
    const drive = 'scsi0';
    const vmid = Number(creates[0]!.vmid);
    // PVE drops `import-from` once the disk is imported: a volume of the VM of the image's size.
    await expect
      .poll(() => sim.vms().find((v) => v.vmid === vmid)?.config[drive], {
        timeout: 30_000,
        interval: 20,
      })
      .toBe(`local-lvm:vm-${vmid}-disk-0,size=${stored.length}`);
    expect(sim.vms().find((v) => v.vmid === vmid)?.name).toMatch(/^web/);
  });

  it('marks a template whose image is nowhere unavailable, and refuses its deploy naming it', async () => {
    const created = await call('POST', '/template-detail', {
      name: 'gone',
      networks: 'lan',
      detail: detailForImage({ name: 'gone.qcow2', virtualSize: 16 * 1024 * 1024 }),
    });
    expect(created.status).toBe(200);
    const templateId = created.body.id as string;
    const why = (await listed(templateId)).unavailable as string;
    expect(why).toBe(
      'The disk image gone.qcow2 is not on the Proxmox storage local (content import) nor in ' +
        "this server's images folder: an administrator imports it in the Disk Images panel " +
        '(Admin · Templates).',
    );
    const before = creates.length;
    const deployed = await call('POST', `/vm-template/${templateId}`);
    expect(deployed.status).toBe(400);
    expect(deployed.body.message).toContain(why);
    const init = await call('PUT', `/vm-template/${templateId}`);
    expect(init.status).toBe(400);
    expect(init.body.message).toContain('gone.qcow2');
    expect(creates).toHaveLength(before);
    // Nothing was asked of the cluster for it.
    for (const node of NODES) {
      expect(importsOn(node).map((file) => file.volid)).not.toContain('local:import/gone.qcow2');
    }
  });
});

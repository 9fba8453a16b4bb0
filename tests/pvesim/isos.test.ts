import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { SEEDED_ISO_BYTES } from './isos';
import { startPveSimulator, type PveSimulator, type PveSimulatorOptions } from './simulator';
import { call, data, replyOf, taskLog, tokenHeaders, waitTask, type Reply } from './testApi';

// ISO images on the PVE API simulator through its HTTP API, as the proxmox driver stores them:
// multipart uploads that land on one node when their task ends, deletes, and the storage status
// that tells a driver whether 'local' is shared. Each test fails without the behaviour it names.

const SEEDED = 'local:iso/00000000-0000-0000-0000-000000000000__tools.iso';

const running: PveSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.close()));
});

async function start(options: PveSimulatorOptions = {}): Promise<PveSimulator> {
  const sim = await startPveSimulator({ taskMs: 20, ...options });
  running.push(sim);
  return sim;
}

/** POSTs a multipart form as a browser or the driver would: the fields, then the file. */
async function upload(
  sim: PveSimulator,
  node: string,
  fields: Record<string, string>,
  file: { name: string; bytes: Buffer; field?: string },
  storage = 'local',
): Promise<Reply> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append(file.field ?? 'filename', new Blob([file.bytes]), file.name);
  const url = `${sim.url}/api2/json/nodes/${node}/storage/${storage}/upload`;
  return replyOf(await fetch(url, { method: 'POST', headers: tokenHeaders(sim), body: form }));
}

const listed = async (sim: PveSimulator, node: string) =>
  (
    await data<{ volid: string; size: number }[]>(
      sim,
      'GET',
      `/nodes/${node}/storage/local/content`,
    )
  )
    .map((item) => [item.volid, item.size])
    .filter(([volid]) => volid !== SEEDED);

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** An ISO-sized-enough payload whose hash differs from the seeded image's. */
const payload = (size: number) => Buffer.from(Array.from({ length: size }, (_, i) => i % 251));

describe('PVE API simulator: ISO uploads', () => {
  it('stores an upload on its target node only, once the task that the API node runs has ended', async () => {
    const sim = await start({ taskMs: 400 });
    const bytes = payload(100_000);
    const answer = await upload(sim, 'pve2', { content: 'iso' }, { name: 'tools.iso', bytes });
    expect(answer.status).toBe(200);
    const upid = answer.body.data as string;
    // The worker runs on the node that took the request, which copies the file to the target.
    expect(upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:imgcopy::/);
    expect(await listed(sim, 'pve2')).toEqual([]);

    expect((await waitTask(sim, upid)).exitstatus).toBe('OK');
    expect(await listed(sim, 'pve2')).toEqual([['local:iso/tools.iso', bytes.length]]);
    expect(await listed(sim, 'pve1')).toEqual([]);
    expect(await listed(sim, 'pve3')).toEqual([]);
    expect(sim.isoFiles('pve2')).toContainEqual({
      volid: 'local:iso/tools.iso',
      size: bytes.length,
      sha256: sha256(bytes),
    });
    expect(sim.isoFiles('pve1').map((f) => f.volid)).toEqual([SEEDED]);
    expect(await taskLog(sim, upid)).toEqual(
      expect.arrayContaining(['target node: pve2', `file size is: ${bytes.length}`, 'TASK OK']),
    );
  });

  it('has the seeded images on every node, as 4 MiB of zeros', async () => {
    const sim = await start();
    const zeros = {
      volid: SEEDED,
      size: SEEDED_ISO_BYTES,
      sha256: sha256(Buffer.alloc(SEEDED_ISO_BYTES)),
    };
    for (const node of ['pve1', 'pve2', 'pve3']) expect(sim.isoFiles(node)).toEqual([zeros]);
  });

  it('normalizes the file name as PVE does and refuses a name without an ISO extension', async () => {
    const sim = await start();
    const bytes = payload(10);
    const refused = await upload(sim, 'pve1', { content: 'iso' }, { name: 'tools.txt', bytes });
    expect([refused.status, refused.reason]).toEqual([400, 'Parameter verification failed.']);
    expect(refused.body.errors).toEqual({ filename: 'wrong file extension' });

    const odd = await upload(sim, 'pve1', { content: 'iso' }, { name: 'my tools (1).ISO', bytes });
    expect((await waitTask(sim, odd.body.data as string)).exitstatus).toBe('OK');
    expect(await listed(sim, 'pve1')).toEqual([['local:iso/my_tools__1_.ISO', 10]]);
  });

  it('overwrites an image of the same name, as PVE does', async () => {
    const sim = await start();
    for (const size of [10, 20]) {
      const answer = await upload(
        sim,
        'pve1',
        { content: 'iso' },
        { name: 'a.iso', bytes: payload(size) },
      );
      expect((await waitTask(sim, answer.body.data as string)).exitstatus).toBe('OK');
    }
    expect(await listed(sim, 'pve1')).toEqual([['local:iso/a.iso', 20]]);
  });

  it('verifies a checksum in the task, and fails the task without storing the file on a mismatch', async () => {
    const sim = await start();
    const bytes = payload(1000);
    const good = await upload(
      sim,
      'pve1',
      { content: 'iso', 'checksum-algorithm': 'sha256', checksum: sha256(bytes).toUpperCase() },
      { name: 'good.iso', bytes },
    );
    const ok = good.body.data as string;
    expect((await waitTask(sim, ok)).exitstatus).toBe('OK');
    expect(await taskLog(sim, ok)).toContain('calculating checksum...OK, checksum verified');

    const wrong = sha256(Buffer.from('something else'));
    const bad = await upload(
      sim,
      'pve1',
      { content: 'iso', 'checksum-algorithm': 'sha256', checksum: wrong },
      { name: 'bad.iso', bytes },
    );
    expect((await waitTask(sim, bad.body.data as string)).exitstatus).toBe(
      `checksum mismatch: got '${sha256(bytes)}' != expect '${wrong}'`,
    );
    expect((await listed(sim, 'pve1')).map(([volid]) => volid)).toEqual(['local:iso/good.iso']);
  });

  it('checks the form fields and the file name against the schema, and a checksum needs its algorithm', async () => {
    const sim = await start();
    const bytes = payload(10);
    const unknown = await upload(
      sim,
      'pve1',
      { content: 'iso', bogus: '1' },
      { name: 'a.iso', bytes },
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual({
      bogus:
        'property is not defined in schema and the schema does not allow additional properties',
    });
    const lonely = await upload(
      sim,
      'pve1',
      { content: 'iso', checksum: 'ab' },
      { name: 'a.iso', bytes },
    );
    expect(lonely.body.errors).toEqual({
      'checksum-algorithm': "missing property - 'checksum' requires this property",
    });
    const long = await upload(
      sim,
      'pve1',
      { content: 'iso' },
      { name: `${'x'.repeat(252)}.iso`, bytes },
    );
    expect(long.body.errors).toEqual({ filename: 'value may only be 255 characters long' });
    const kind = await upload(sim, 'pve1', { content: 'backup' }, { name: 'a.iso', bytes });
    expect(Object.keys(kind.body.errors ?? {})).toEqual(['content']);
    expect(await listed(sim, 'pve1')).toEqual([]);
  });

  it('refuses what PVE’s upload refuses: another file field, a storage without files, a body that is no form', async () => {
    const sim = await start();
    const bytes = payload(10);
    const field = await upload(
      sim,
      'pve1',
      { content: 'iso' },
      { name: 'a.iso', bytes, field: 'file' },
    );
    expect([field.status, field.reason]).toEqual([
      500,
      "wrong field name 'file' for file upload, expected 'filename'",
    ]);
    const lvm = await upload(
      sim,
      'pve1',
      { content: 'iso' },
      { name: 'a.iso', bytes },
      'local-lvm',
    );
    expect([lvm.status, lvm.reason]).toEqual([500, "can't upload to storage type 'lvmthin'"]);
    const plain = await fetch(`${sim.url}/api2/json/nodes/pve1/storage/local/upload`, {
      method: 'POST',
      headers: { ...tokenHeaders(sim), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'content=iso&filename=a.iso',
    });
    expect(plain.status).toBe(501);
    expect(await listed(sim, 'pve1')).toEqual([]);
  });

  it('refuses a chunked body, as PVE reads bodies by their Content-Length only', async () => {
    const sim = await start();
    const form = new FormData();
    form.append('content', 'iso');
    form.append('filename', new Blob([payload(10)]), 'a.iso');
    const encoded = new Response(form);
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        `${sim.url}/api2/json/nodes/pve1/storage/local/upload`,
        {
          method: 'POST',
          headers: {
            ...tokenHeaders(sim),
            'content-type': encoded.headers.get('content-type') ?? '',
            'transfer-encoding': 'chunked',
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      void encoded.arrayBuffer().then((body) => request.end(Buffer.from(body)));
    });
    expect(status).toBe(501);
    expect(await listed(sim, 'pve1')).toEqual([]);
  });
});

describe('PVE API simulator: ISO deletes and mounts', () => {
  it('deletes an image from one node in an imgdel task, and only warns in the log when it is missing', async () => {
    const sim = await start();
    const path = `/nodes/pve2/storage/local/content/${encodeURIComponent(SEEDED)}`;
    const upid = await data<string>(sim, 'DELETE', path);
    expect(upid).toMatch(/^UPID:pve2:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:imgdel:local:/);
    expect((await waitTask(sim, upid)).exitstatus).toBe('OK');
    expect(sim.isoFiles('pve2')).toEqual([]);
    expect(sim.isoFiles('pve1').map((f) => f.volid)).toEqual([SEEDED]);

    const again = await data<string>(sim, 'DELETE', path);
    expect((await waitTask(sim, again)).exitstatus).toBe('OK');
    const name = SEEDED.slice('local:iso/'.length);
    expect(await taskLog(sim, again)).toEqual([
      `disk image '/var/lib/vz/template/iso/${name}' does not exist`,
      `Removed volume '${SEEDED}'`,
      'TASK OK',
    ]);
  });

  it('answers null when the delete ends within the delay asked for', async () => {
    const sim = await start();
    const path = `/nodes/pve1/storage/local/content/${encodeURIComponent(SEEDED)}?delay=5`;
    expect(await call(sim, 'DELETE', path)).toMatchObject({ status: 200, body: { data: null } });
    expect(sim.isoFiles('pve1')).toEqual([]);
  });

  it('refuses a volume of another storage and a name that is no ISO image', async () => {
    const sim = await start();
    const mismatch = await call(
      sim,
      'DELETE',
      '/nodes/pve1/storage/local/content/other:iso%2Fa.iso',
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors).toEqual({ volume: 'storage ID mismatch (other != local)' });
    const odd = await call(sim, 'DELETE', '/nodes/pve1/storage/local/content/local:iso%2Fa.txt');
    expect([odd.status, odd.reason]).toEqual([
      500,
      "unable to parse directory volume name 'iso/a.txt'",
    ]);
  });

  it('lets a VM mount only an image that is on its own node', async () => {
    const sim = await start();
    const bytes = payload(10);
    const there = await upload(sim, 'pve2', { content: 'iso' }, { name: 'boot.iso', bytes });
    await waitTask(sim, there.body.data as string);
    const mount = () =>
      fetch(`${sim.url}/api2/json/nodes/pve1/qemu/9000/config`, {
        method: 'POST',
        headers: { ...tokenHeaders(sim), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ide2: 'local:iso/boot.iso,media=cdrom' }).toString(),
      });
    const refused = await mount();
    expect([refused.status, refused.statusText]).toEqual([
      500,
      "volume 'local:iso/boot.iso' does not exist",
    ]);
    const here = await upload(sim, 'pve1', { content: 'iso' }, { name: 'boot.iso', bytes });
    await waitTask(sim, here.body.data as string);
    expect((await mount()).status).toBe(200);
  });
});

describe('PVE API simulator: storage status', () => {
  it('reports local as not shared and local-lvm as shared, with the space the node’s images use', async () => {
    const sim = await start();
    const local = await data<Record<string, unknown>>(
      sim,
      'GET',
      '/nodes/pve1/storage/local/status',
    );
    expect(local).toMatchObject({
      type: 'dir',
      shared: 0,
      active: 1,
      enabled: 1,
      used: SEEDED_ISO_BYTES,
    });
    expect(local.avail).toBe(Number(local.total) - SEEDED_ISO_BYTES);
    const lvm = await data<Record<string, unknown>>(
      sim,
      'GET',
      '/nodes/pve1/storage/local-lvm/status',
    );
    expect(lvm).toMatchObject({ type: 'lvmthin', shared: 1, content: 'images,rootdir' });
    const missing = await call(sim, 'GET', '/nodes/pve1/storage/nfs/status');
    expect([missing.status, missing.body.errors]).toEqual([400, { storage: 'No such storage.' }]);
  });
});

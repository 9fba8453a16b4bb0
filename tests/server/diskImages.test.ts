import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from './databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { signIn } from './oidc';

// Disk image imports through the real server (issue 31): an upload in chunks, resumed after a
// gap, completed into the qemu images folder, listed with its size and the templates naming it,
// and kept while a template does. The checks themselves are server/core/diskImages.test.ts's.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe.each(testEngines())('disk images on %s', (engine) => {
  let server: TestServer;
  let inputs: string;
  let qcow2: Buffer;
  const token: Record<string, string> = {};
  const imagesDir = () => join(server.dataDir, 'images');

  async function call(who: string, method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { authorization: `Bearer ${token[who]}` };
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
      json = undefined;
    }
    return { status: res.status, body: json };
  }

  beforeAll(async () => {
    inputs = mkdtempSync(join(tmpdir(), 'topoplay-diskimage-inputs-'));
    const raw = join(inputs, 'disk.raw');
    execFileSync('qemu-img', ['create', '-q', '-f', 'raw', raw, '8M']);
    // Some data, so that the qcow2 is several chunks long.
    execFileSync('dd', ['if=/dev/urandom', `of=${raw}`, 'bs=64k', 'count=4', 'conv=notrunc'], {
      stdio: 'ignore',
    });
    execFileSync('qemu-img', ['convert', '-f', 'raw', '-O', 'qcow2', raw, join(inputs, 'd.qcow2')]);
    qcow2 = readFileSync(join(inputs, 'd.qcow2'));
    server = await startTestServer({ engine });
    for (const u of ['admin', 'creator']) {
      token[u] = (await signIn(server.url, u, SEED_PASSWORD)).accessToken;
    }
  });
  afterAll(async () => {
    await server?.close();
    rmSync(inputs, { recursive: true, force: true });
  });

  it('takes an upload in chunks, resumes it after a gap, and lists the image', async () => {
    const start = await call('admin', 'POST', '/admin/diskimage', {
      name: 'web.qcow2',
      size: qcow2.length,
    });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ name: 'web.qcow2', size: qcow2.length, received: 0 });
    const id = start.body.id as string;
    const chunk = 100_000;

    // Only bytes: a chunk sent as text is refused before it is read.
    const asText = await fetch(`${server.url}/api/admin/diskimage/${id}/chunk?offset=0`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token.admin}`, 'content-type': 'text/plain' },
      body: 'abc',
    });
    expect(asText.status).toBe(415);

    const first = await call(
      'admin',
      'PUT',
      `/admin/diskimage/${id}/chunk?offset=0`,
      qcow2.subarray(0, chunk),
    );
    expect(first.body.received).toBe(chunk);
    // A chunk that skips ahead is refused, naming where the next must start.
    const gap = await call(
      'admin',
      'PUT',
      `/admin/diskimage/${id}/chunk?offset=${2 * chunk}`,
      qcow2.subarray(2 * chunk, 3 * chunk),
    );
    expect(gap.status).toBe(400);
    expect(gap.body.message).toMatch(/send the next chunk from offset 100000/);
    // The client resumes from what the server has.
    const status = await call('admin', 'GET', `/admin/diskimage/${id}`);
    let offset = status.body.received as number;
    expect(offset).toBe(chunk);
    while (offset < qcow2.length) {
      const sent = await call(
        'admin',
        'PUT',
        `/admin/diskimage/${id}/chunk?offset=${offset}`,
        qcow2.subarray(offset, offset + chunk),
      );
      expect(sent.status).toBe(200);
      offset = sent.body.received;
    }
    const done = await call('admin', 'POST', `/admin/diskimage/${id}/complete`);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ name: 'web.qcow2', virtualSize: 8 * 1024 * 1024 });
    expect(readdirSync(imagesDir())).toEqual(['web.qcow2']);

    const list = await call('admin', 'GET', '/admin/diskimages');
    expect(list.body).toEqual([
      { name: 'web.qcow2', size: expect.any(Number), virtualSize: 8 * 1024 * 1024, templates: [] },
    ]);
    expect(list.body[0].size).toBeGreaterThan(256 * 1024);
  });

  it('refuses a bad image with its reason and keeps nothing of it', async () => {
    const start = await call('admin', 'POST', '/admin/diskimage', { name: 'bad.vmdk', size: 4096 });
    const id = start.body.id as string;
    await call('admin', 'PUT', `/admin/diskimage/${id}/chunk?offset=0`, Buffer.alloc(4096, 1));
    const done = await call('admin', 'POST', `/admin/diskimage/${id}/complete`);
    expect(done.status).toBe(400);
    expect(done.body.message).toMatch(/InvalidOperation The file is not a vmdk image/);
    expect(readdirSync(imagesDir()).filter((n) => n !== 'web.qcow2')).toEqual([]);
    const unsafe = await call('admin', 'POST', '/admin/diskimage', { name: '../x.qcow2', size: 1 });
    expect(unsafe.body.message).toMatch(/not a safe file name/);
  });

  it('keeps an image while a template names it, and deletes it when none does', async () => {
    const detail = JSON.stringify({
      Cpu: '1x1',
      Ram: 1,
      Adapters: 1,
      Eth: [{ Net: 'lan', Type: 'virtio' }],
      Disks: [{ Path: 'web.qcow2', Source: '', Controller: 'virtio', Size: 1 }],
    });
    const created = await call('admin', 'POST', '/template-detail', { name: 'from-image', detail });
    expect(created.status).toBe(200);
    const list = await call('admin', 'GET', '/admin/diskimages');
    expect(list.body[0].templates).toEqual([
      { id: created.body.id, name: 'from-image', workspaceName: null },
    ]);

    const refused = await call('admin', 'DELETE', '/admin/diskimage/web.qcow2');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/web\.qcow2 is in use by the template from-image/);
    expect(existsSync(join(imagesDir(), 'web.qcow2'))).toBe(true);

    await call('admin', 'PUT', '/template-detail', {
      id: created.body.id,
      name: 'from-image',
      detail: detail.replace('web.qcow2', 'other.qcow2'),
    });
    expect((await call('admin', 'DELETE', '/admin/diskimage/web.qcow2')).status).toBe(200);
    expect((await call('admin', 'DELETE', '/admin/diskimage/web.qcow2')).status).toBe(404);
    expect(readdirSync(imagesDir())).toEqual([]);
  });

  it('lets only administrators in', async () => {
    expect((await call('creator', 'GET', '/admin/diskimages')).status).toBe(403);
    const start = await call('creator', 'POST', '/admin/diskimage', { name: 'x.qcow2', size: 1 });
    expect(start.status).toBe(403);
  });
});

import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImageService, MAX_IMAGE_BYTES } from '../../server/core/images';
import { createAccount } from '../../server/identity';
import { testEngines } from './databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { signIn } from './oidc';

// Document images and attachments through the real server (wire reference §1.6; spec §5 upload
// rules): upload with both the extension and the file's first bytes checked, the size limit,
// stored names, the listing, deletion, public serving at /docs, and who may do what.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const hex = (text: string) => Buffer.from(text.replace(/\s/g, ''), 'hex');

/** A small file of each allowed kind, starting with that kind's signature. */
const SAMPLES: Record<string, { bytes: Buffer; type: string }> = {
  png: { bytes: hex('89504e470d0a1a0a 0000000d49484452 00000001'), type: 'image/png' },
  jpg: { bytes: hex('ffd8ffe000104a46 49460001'), type: 'image/jpeg' },
  jpeg: { bytes: hex('ffd8ffdb00430008 0606070605'), type: 'image/jpeg' },
  gif: { bytes: Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), type: 'image/gif' },
  webp: { bytes: Buffer.from('RIFF\x1a\x00\x00\x00WEBPVP8L', 'latin1'), type: 'image/webp' },
  pdf: { bytes: Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'), type: 'application/pdf' },
};

describe.each(testEngines())('images on %s', (engine) => {
  let server: TestServer;
  const token: Record<string, string> = {};
  let ws = '';

  beforeAll(async () => {
    server = await startTestServer({ engine });
    await createAccount(server.app.store.db, {
      username: 'editor',
      name: 'Eddie Editor',
      password: SEED_PASSWORD,
    });
    for (const u of ['admin', 'creator', 'player', 'editor']) {
      token[u] = (await signIn(server.url, u, SEED_PASSWORD)).accessToken;
    }
    await api('editor', 'POST', '/user/register');
    const created = await api('creator', 'POST', '/workspace', JSON.stringify({ name: 'Pics' }), {
      'content-type': 'application/json',
    });
    ws = created.body.id;
    const invite = await api('creator', 'PUT', `/workspace/${ws}/invite`);
    expect((await api('editor', 'POST', `/worker/${invite.body.code}`)).status).toBe(200);
  });
  afterAll(async () => server?.close());

  async function api(
    who: string | null,
    method: string,
    path: string,
    body?: string | FormData,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string; body: Json }> {
    const all = { ...headers, ...(who ? { authorization: `Bearer ${token[who]}` } : {}) };
    const res = await fetch(`${server.url}/api${path}`, { method, headers: all, body });
    const text = await res.text();
    let parsed: Json;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, text, body: parsed };
  }

  const upload = (name: string, bytes: Uint8Array, who = 'editor', id = ws) => {
    const form = new FormData();
    form.append('file', new Blob([bytes]), name);
    return api(who, 'POST', `/image/${id}`, form);
  };

  const folder = () => join(server.dataDir, 'docs', ws);
  const filesInFolder = () => (existsSync(folder()) ? readdirSync(folder()) : []);

  it('stores each allowed kind under a random name and serves it publicly with its type', async () => {
    for (const [ext, sample] of Object.entries(SAMPLES)) {
      const res = await upload(`Lab Diagram (v2).${ext}`, sample.bytes);
      expect(res.status, ext).toBe(200);
      expect(res.body.filename).toMatch(new RegExp(`^Lab_Diagram_v2_-[0-9a-f]{8}\\.${ext}$`));
      expect(res.body).toEqual({
        filename: res.body.filename,
        url: `/docs/${ws}/${res.body.filename}`,
        size: sample.bytes.length,
        type: sample.type,
      });
      // No credentials: players see these in the guide.
      const served = await fetch(`${server.url}${res.body.url}`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(sample.type);
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await served.arrayBuffer())).toEqual(sample.bytes);
    }
  });

  it('lists the workspace files by name with their url, size and type', async () => {
    const res = await api('editor', 'GET', `/images/${ws}`);
    expect(res.status).toBe(200);
    const names = res.body.map((f: Json) => f.filename);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(filesInFolder().sort());
    for (const f of res.body) {
      expect(Object.keys(f).sort()).toEqual(['filename', 'size', 'type', 'url']);
      expect(f.url).toBe(`/docs/${ws}/${f.filename}`);
    }
  });

  it('refuses a file whose bytes are not the kind its extension names, keeping nothing', async () => {
    const before = filesInFolder();
    const res = await upload('fake.png', Buffer.from('GIF89a this is not a png at all'));
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/not a png file/);
    const short = await upload('tiny.pdf', Buffer.from('%P'));
    expect(short.status).toBe(400);
    expect(filesInFolder()).toEqual(before);
  });

  it('refuses kinds that are not allowed, whatever their content', async () => {
    const before = filesInFolder();
    for (const name of ['tool.exe', 'logo.svg', 'page.html', 'noextension', 'shot.png.html']) {
      const res = await upload(name, SAMPLES.png!.bytes);
      expect(res.status, name).toBe(400);
      expect(res.body.message).toMatch(/only png, jpeg, gif, webp and pdf/);
    }
    expect(filesInFolder()).toEqual(before);
  });

  it('refuses a file over the size limit and leaves no partial file', async () => {
    const before = filesInFolder();
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 1);
    SAMPLES.png!.bytes.copy(big);
    const res = await upload('huge.png', big);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/File too large/);
    expect(filesInFolder()).toEqual(before);
    // The connection and the server are fine afterwards.
    expect((await upload('after.png', SAMPLES.png!.bytes)).status).toBe(200);
  });

  it('keeps uploads inside the workspace folder whatever their name', async () => {
    const res = await upload('../../escape.png', SAMPLES.png!.bytes);
    expect(res.status).toBe(200);
    expect(res.body.filename).toMatch(/^escape-[0-9a-f]{8}\.png$/);
    expect(filesInFolder()).toContain(res.body.filename);
    expect(readdirSync(server.dataDir).filter((f) => f.startsWith('escape'))).toEqual([]);
    expect(readdirSync(join(server.dataDir, 'docs')).filter((f) => f.startsWith('escape'))).toEqual(
      [],
    );
    const dotted = await upload('...hidden..png', SAMPLES.png!.bytes);
    expect(dotted.body.filename).toMatch(/^hidden-[0-9a-f]{8}\.png$/);
  });

  it('deletes a file by name and refuses names that leave the folder', async () => {
    const { body: file } = await upload('gone.png', SAMPLES.png!.bytes);
    // A file beside the workspace folder that traversal would reach.
    writeFileSync(join(server.dataDir, 'docs', 'x'), 'keep me');
    for (const name of ['../x', '..\\x', 'a/b.png', `${file.filename}\0`, '..', '.']) {
      const res = await api(
        'editor',
        'DELETE',
        `/image/${ws}?filename=${encodeURIComponent(name)}`,
      );
      expect(res.status, name).toBe(400);
    }
    expect(existsSync(join(server.dataDir, 'docs', 'x'))).toBe(true);
    const missing = await api('editor', 'DELETE', `/image/${ws}`);
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/filename/);
    const unknown = await api('editor', 'DELETE', `/image/${ws}?filename=nothing.png`);
    expect(unknown.status).toBe(400);
    expect(filesInFolder()).toContain(file.filename);
    const res = await api('editor', 'DELETE', `/image/${ws}?Filename=${file.filename}`);
    expect(res.status).toBe(200);
    expect(filesInFolder()).not.toContain(file.filename);
    expect((await fetch(`${server.url}${file.url}`)).status).toBe(404);
  });

  it('serves only uploaded kinds from inside the docs folder', async () => {
    await api('editor', 'PUT', `/document/${ws}`, 'below the cut: answers', {
      'content-type': 'text/plain',
    });
    mkdirSync(folder(), { recursive: true });
    writeFileSync(join(folder(), 'notes.md'), 'private');
    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        // Raw paths: fetch would resolve the dot segments before sending.
        const { hostname, port } = new URL(server.url);
        const req = httpRequest({ hostname, port, path }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await get(`/docs/${ws}.md`)).toBe(404);
    expect(await get(`/docs/${ws}/notes.md`)).toBe(404);
    expect(await get(`/docs/${ws}/..%2F${ws}.md`)).toBe(404);
    expect(await get(`/docs/${ws}/%2e%2e`)).toBe(404);
    expect(await get(`/docs/../${ws}.md`)).toBe(404);
    expect(await get(`/docs/${ws}/missing.png`)).toBe(404);
  });

  it('lets only workers of the workspace and administrators list, upload and delete', async () => {
    const { body: file } = await upload('mine.png', SAMPLES.png!.bytes);
    const calls = [
      () => api('player', 'GET', `/images/${ws}`),
      () => upload('intruder.png', SAMPLES.png!.bytes, 'player'),
      () => api('player', 'DELETE', `/image/${ws}?filename=${file.filename}`),
    ];
    for (const call of calls) {
      const res = await call();
      expect(res.status).toBe(403);
      expect(res.text).toBe('');
    }
    expect(filesInFolder()).toContain(file.filename);
    expect(filesInFolder().some((f) => f.startsWith('intruder'))).toBe(false);
    expect((await api('admin', 'GET', `/images/${ws}`)).status).toBe(200);
    expect((await api(null, 'GET', `/images/${ws}`)).status).toBe(401);
    const unknown = await upload('x.png', SAMPLES.png!.bytes, 'editor', 'f'.repeat(32));
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('ResourceNotFound');
  });

  it('refuses an upload that would leave the disk with less free space than the reserve', async () => {
    const docsDir = join(server.dataDir, 'docs');
    const images = createImageService({
      docsDir,
      access: { exists: async () => true, canEdit: async () => true },
      // More than any disk has: every upload would leave less than this.
      minFreeBytes: Number.MAX_SAFE_INTEGER,
    });
    const actor = { id: 'a', name: 'A', isAdmin: true } as Parameters<typeof images.list>[0];
    const before = filesInFolder();
    await expect(
      images.upload(actor, ws, async () => ({
        filename: 'disk.png',
        stream: Readable.from([SAMPLES.png!.bytes]),
        truncated: () => false,
      })),
    ).rejects.toThrow(/Not enough disk space/);
    expect(filesInFolder()).toEqual(before);
  });
});

import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import {
  createChunkSender,
  createDiskImageUploader,
  detailForImage,
  uploadMemoryKey,
} from './diskImages';
import { createHttpClient } from './http';

// The disk image upload over a fake server that keeps the bytes of one upload the way the real
// one does (a chunk must start at the bytes received), and loses chunks when told to.

function fakeServer(options: { dropChunks?: number[]; cutChunk?: number } = {}) {
  let data = new Uint8Array(0);
  let declared = 0;
  let chunkNumber = 0;
  const log: string[] = [];
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const upload = () => ({ id: 'disk-1', name: 'web.qcow2', size: declared, received: data.length });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input), 'http://localhost');
    const method = init?.method ?? 'GET';
    log.push(`${method} ${url.pathname}${url.search}`);
    if (method === 'POST' && url.pathname === '/api/admin/diskimage') {
      declared = (JSON.parse(String(init?.body)) as { size: number }).size;
      return json(200, upload());
    }
    if (method === 'GET' && url.pathname === '/api/admin/diskimage/disk-1')
      return json(200, upload());
    if (method === 'PUT') {
      const n = chunkNumber++;
      const bytes = new Uint8Array(await (init?.body as Blob).arrayBuffer());
      const offset = Number(url.searchParams.get('offset'));
      if (offset !== data.length) {
        return json(400, { message: `InvalidOperation send from offset ${data.length}` });
      }
      if (options.dropChunks?.includes(n)) throw new TypeError('Failed to fetch');
      if (options.cutChunk === n) {
        // Half of it arrived before the connection broke.
        data = new Uint8Array([...data, ...bytes.subarray(0, bytes.length / 2)]);
        throw new TypeError('network error');
      }
      data = new Uint8Array([...data, ...bytes]);
      return json(200, upload());
    }
    if (method === 'POST' && url.pathname.endsWith('/complete')) {
      return json(200, { name: 'web.qcow2', size: data.length, virtualSize: 1024, templates: [] });
    }
    if (method === 'DELETE') return json(200, true);
    return json(404, {});
  };
  const http = createHttpClient({ baseUrl: '/api', authorization: () => 'Bearer t', fetch });
  const sender = createChunkSender({ baseUrl: '/api', authorization: () => 'Bearer t', fetch });
  return { http, sender, log, bytes: () => data };
}

const FILE = new File([new Uint8Array(100).map((_, i) => i)], 'web.qcow2');

describe('createDiskImageUploader', () => {
  it('sends the file in chunks at their offsets and completes it, with progress', async () => {
    const s = fakeServer();
    const progress: number[] = [];
    const result = await createDiskImageUploader(s.http, s.sender, { chunkBytes: 40 })(
      FILE,
      (p) => progress.push(p),
      new AbortController().signal,
    )();
    expect(E.isRight(result) && result.right.name).toBe('web.qcow2');
    expect(s.log).toEqual([
      'POST /api/admin/diskimage',
      'PUT /api/admin/diskimage/disk-1/chunk?offset=0',
      'PUT /api/admin/diskimage/disk-1/chunk?offset=40',
      'PUT /api/admin/diskimage/disk-1/chunk?offset=80',
      'POST /api/admin/diskimage/disk-1/complete',
    ]);
    expect(progress).toEqual([0, 40, 80, 99]);
    expect([...s.bytes()]).toEqual([...new Uint8Array(await FILE.arrayBuffer())]);
  });

  it('resumes from what the server has after a chunk is lost or cut off', async () => {
    const s = fakeServer({ dropChunks: [1], cutChunk: 3 });
    const result = await createDiskImageUploader(s.http, s.sender, { chunkBytes: 40 })(
      FILE,
      () => {},
      new AbortController().signal,
    )();
    expect(E.isRight(result)).toBe(true);
    expect(s.log.filter((l) => !l.startsWith('POST'))).toEqual([
      'PUT /api/admin/diskimage/disk-1/chunk?offset=0',
      'PUT /api/admin/diskimage/disk-1/chunk?offset=40',
      'GET /api/admin/diskimage/disk-1',
      'PUT /api/admin/diskimage/disk-1/chunk?offset=40',
      'PUT /api/admin/diskimage/disk-1/chunk?offset=80',
      'GET /api/admin/diskimage/disk-1',
      'PUT /api/admin/diskimage/disk-1/chunk?offset=90',
    ]);
    expect([...s.bytes()]).toEqual([...new Uint8Array(await FILE.arrayBuffer())]);
  });

  it('gives up after chunks fail without progress, with the reason', async () => {
    const s = fakeServer({ dropChunks: [0, 1, 2, 3, 4, 5] });
    const result = await createDiskImageUploader(s.http, s.sender, { chunkBytes: 40 })(
      FILE,
      () => {},
      new AbortController().signal,
    )();
    expect(result).toEqual(E.left({ status: 0, message: 'Failed to fetch' }));
    expect(s.log.filter((l) => l.startsWith('PUT'))).toHaveLength(4);
  });
});

describe('createDiskImageUploader with a memory', () => {
  /** A Map standing in for localStorage. */
  const memoryOf = (entries: Array<[string, string]> = []) => {
    const map = new Map(entries);
    return {
      map,
      memory: {
        get: (k: string) => map.get(k) ?? null,
        set: (k: string, v: string) => void map.set(k, v),
        remove: (k: string) => void map.delete(k),
      },
    };
  };

  it('keeps the upload of a file that failed, and resumes it when the file is chosen again', async () => {
    const s = fakeServer({ dropChunks: [1, 2, 3, 4] });
    const { map, memory } = memoryOf();
    const upload = createDiskImageUploader(s.http, s.sender, { chunkBytes: 40, memory });
    const failed = await upload(FILE, () => {}, new AbortController().signal)();
    expect(E.isLeft(failed)).toBe(true);
    expect(map.get(uploadMemoryKey(FILE))).toBe('disk-1');

    s.log.length = 0;
    const resumed = await upload(FILE, () => {}, new AbortController().signal)();
    expect(E.isRight(resumed)).toBe(true);
    expect(s.log).toEqual([
      'GET /api/admin/diskimage/disk-1',
      'PUT /api/admin/diskimage/disk-1/chunk?offset=40',
      'PUT /api/admin/diskimage/disk-1/chunk?offset=80',
      'POST /api/admin/diskimage/disk-1/complete',
    ]);
    expect([...s.bytes()]).toEqual([...new Uint8Array(await FILE.arrayBuffer())]);
    expect(map.size).toBe(0);
  });

  it('starts over when the server no longer has the remembered upload', async () => {
    const s = fakeServer();
    const { map, memory } = memoryOf([[uploadMemoryKey(FILE), 'disk-gone']]);
    const result = await createDiskImageUploader(s.http, s.sender, { chunkBytes: 40, memory })(
      FILE,
      () => {},
      new AbortController().signal,
    )();
    expect(E.isRight(result)).toBe(true);
    expect(s.log.slice(0, 2)).toEqual([
      'GET /api/admin/diskimage/disk-gone',
      'POST /api/admin/diskimage',
    ]);
    expect(map.size).toBe(0);
  });
});

describe('detailForImage', () => {
  it('names the image as its disk, sized in whole GB', () => {
    const detail = JSON.parse(detailForImage({ name: 'web.qcow2', virtualSize: 3.5 * 1024 ** 3 }));
    expect(detail.Disks).toEqual([
      { Path: 'web.qcow2', Source: '', Controller: 'virtio', Size: 4 },
    ]);
  });
});

import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import { deleteIso, getIsoUsage } from './files';
import { createIsoUploader, uploadMeta, type UploadRequest } from './isoUpload';
import { createHttpClient } from './http';

const WS = 'a1b2c3';

function client(status: number, body: unknown) {
  const calls: Array<{ method: string; url: string }> = [];
  const http = createHttpClient({
    baseUrl: '/api',
    authorization: () => 'Bearer t',
    fetch: (async (url: string, init: RequestInit) => {
      calls.push({ method: String(init.method), url });
      return new Response(body === undefined ? '' : JSON.stringify(body), { status });
    }) as unknown as typeof fetch,
  });
  return { http, calls };
}

/** A stand-in for XMLHttpRequest that records what was sent and lets the test answer. */
class FakeRequest {
  status = 0;
  responseText = '';
  opened: [string, string] | null = null;
  headers: Record<string, string> = {};
  body: FormData | null = null;
  aborted = false;
  private listeners = new Map<string, Array<(e: ProgressEvent) => void>>();
  private uploadListeners = new Map<string, Array<(e: ProgressEvent) => void>>();
  upload = {
    addEventListener: (type: string, fn: (e: ProgressEvent) => void) =>
      this.uploadListeners.set(type, [...(this.uploadListeners.get(type) ?? []), fn]),
  };
  addEventListener(type: string, fn: (e: ProgressEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  open(method: string, url: string) {
    this.opened = [method, url];
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: FormData) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
  }
  progress(loaded: number, total: number) {
    for (const fn of this.uploadListeners.get('progress') ?? []) {
      fn({ lengthComputable: true, loaded, total } as ProgressEvent);
    }
  }
  answer(status: number, text: string) {
    this.status = status;
    this.responseText = text;
    for (const fn of this.listeners.get('load') ?? []) fn({} as ProgressEvent);
  }
  fail() {
    for (const fn of this.listeners.get('error') ?? []) fn({} as ProgressEvent);
  }
}

function uploader() {
  const requests: FakeRequest[] = [];
  const upload = createIsoUploader({
    baseUrl: '/api/',
    authorization: () => 'Bearer t',
    createRequest: () => {
      const request = new FakeRequest();
      requests.push(request);
      return request as unknown as UploadRequest;
    },
  });
  return { upload, requests };
}

describe('ISO files API', () => {
  it('asks for an ISO usage with the path in the query', async () => {
    const report = {
      templates: [{ id: 't', name: 'kali', workspaceName: 'Lab' }],
      activeGamespaces: [],
    };
    const { http, calls } = client(200, report);
    const result = await getIsoUsage(http)(WS, `${WS}/a b.iso`, new AbortController().signal)();
    expect(result).toEqual(E.right(report));
    expect(calls).toEqual([
      { method: 'GET', url: `/api/workspace/${WS}/iso-usage?path=${WS}%2Fa%20b.iso` },
    ]);
  });

  it('rejects a usage report that does not match its shape', async () => {
    const { http } = client(200, { templates: 'none' });
    const result = await getIsoUsage(http)(WS, `${WS}/a.iso`, new AbortController().signal)();
    expect(E.isLeft(result)).toBe(true);
  });

  it('deletes an ISO by its path', async () => {
    const { http, calls } = client(200, true);
    const result = await deleteIso(http)(WS, `${WS}/a.iso`, new AbortController().signal)();
    expect(E.isRight(result)).toBe(true);
    expect(calls).toEqual([
      { method: 'DELETE', url: `/api/workspace/${WS}/iso?path=${WS}%2Fa.iso` },
    ]);
  });

  it('writes the metadata as the reference UI does', () => {
    expect(uploadMeta(1234, WS)).toBe(`size=1234&group-key=${WS}`);
  });
});

describe('createIsoUploader', () => {
  it('posts meta then the file, with the session header, and reports progress', async () => {
    const { upload, requests } = uploader();
    const percents: number[] = [];
    const file = new File(['hello'], 'notes.txt');
    const done = upload(file, WS, (p) => percents.push(p), new AbortController().signal)();
    const [request] = requests;
    expect(request?.opened).toEqual(['POST', '/api/file/upload']);
    expect(request?.headers).toEqual({ Authorization: 'Bearer t' });
    expect([...(request?.body?.keys() ?? [])]).toEqual(['meta', 'file']);
    expect(request?.body?.get('meta')).toBe(`size=5&group-key=${WS}`);
    expect((request?.body?.get('file') as File).name).toBe('notes.txt');
    request?.progress(1, 4);
    request?.progress(3, 4);
    request?.answer(200, 'true');
    expect(await done).toEqual(E.right(true));
    expect(percents).toEqual([25, 75]);
  });

  it("answers the server's message when it refuses, and ActionForbidden for an empty 403", async () => {
    const { upload, requests } = uploader();
    const signal = new AbortController().signal;
    const first = upload(new File(['x'], 'a.txt'), WS, () => {}, signal)();
    requests[0]?.answer(400, JSON.stringify({ message: 'InvalidOperation Too big.' }));
    expect(await first).toEqual(E.left({ status: 400, message: 'InvalidOperation Too big.' }));
    const second = upload(new File(['x'], 'a.txt'), WS, () => {}, signal)();
    requests[1]?.answer(403, '');
    expect(await second).toEqual(E.left({ status: 403, message: 'ActionForbidden' }));
  });

  it('fails with status 0 when no answer comes', async () => {
    const { upload, requests } = uploader();
    const done = upload(new File(['x'], 'a.txt'), WS, () => {}, new AbortController().signal)();
    requests[0]?.fail();
    const result = await done;
    expect(E.isLeft(result) && result.left.status).toBe(0);
  });

  it('aborts the request when the signal aborts', async () => {
    const { upload, requests } = uploader();
    const controller = new AbortController();
    const done = upload(new File(['x'], 'a.txt'), WS, () => {}, controller.signal)();
    controller.abort();
    expect(await done).toEqual(E.left({ status: 0, message: 'Aborted' }));
    expect(requests[0]?.aborted).toBe(true);
  });
});

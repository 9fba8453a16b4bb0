import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import { createHttpClient, INVALID_RESPONSE_MESSAGE } from './http';
import { deleteImage, imageUrl, listImages, uploadImage } from './images';

interface Call {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A client whose fetch records each request and answers `body` with `status`. */
function client(status: number, body: unknown) {
  const calls: Call[] = [];
  const http = createHttpClient({
    baseUrl: '/api',
    authorization: () => 'Bearer t',
    fetch: (async (url: string, init: RequestInit) => {
      calls.push({
        method: String(init.method),
        url,
        headers: init.headers as Record<string, string>,
        body: init.body,
      });
      return new Response(body === undefined ? '' : JSON.stringify(body), { status });
    }) as unknown as typeof fetch,
  });
  return { http, calls };
}

const signal = () => new AbortController().signal;

describe('image calls', () => {
  it('lists the images of a workspace, with only a filename as the reference sends', async () => {
    const { http, calls } = client(200, [
      { filename: 'net-ab12.png' },
      { filename: 'guide.pdf', url: '/docs/ws 1/guide.pdf', size: 10, type: 'application/pdf' },
    ]);
    const result = await listImages(http)('ws 1', signal())();
    expect(result).toEqual(
      E.right([
        { filename: 'net-ab12.png' },
        { filename: 'guide.pdf', url: '/docs/ws 1/guide.pdf', size: 10, type: 'application/pdf' },
      ]),
    );
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /api/images/ws%201']);
  });

  it('uploads a file as the multipart field "file", letting the browser set the boundary', async () => {
    const { http, calls } = client(200, {
      filename: 'net-ab12.png',
      url: '/docs/ws-1/net-ab12.png',
    });
    const file = new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' });
    const result = await uploadImage(http)('ws-1', file, 'net.png', signal())();
    expect(result).toEqual(E.right({ filename: 'net-ab12.png', url: '/docs/ws-1/net-ab12.png' }));
    const [call] = calls;
    expect(`${call?.method} ${call?.url}`).toBe('POST /api/image/ws-1');
    expect(call?.headers['Content-Type']).toBeUndefined();
    expect(call?.headers.Authorization).toBe('Bearer t');
    const sent = (call?.body as FormData).get('file') as File;
    expect(sent.name).toBe('net.png');
    expect(sent.type).toBe('image/png');
    expect(new Uint8Array(await sent.arrayBuffer())).toEqual(new Uint8Array([137, 80, 78, 71]));
  });

  it("passes on the server's refusal of an upload", async () => {
    const { http } = client(400, { message: 'InvalidImageType' });
    const result = await uploadImage(http)('ws-1', new Blob(['x']), 'a.txt', signal())();
    expect(result).toEqual(E.left({ status: 400, message: 'InvalidImageType' }));
  });

  it('reports an upload answer without a filename as an invalid response', async () => {
    const { http } = client(200, { name: 'x.png' });
    const result = await uploadImage(http)('ws-1', new Blob(['x']), 'x.png', signal())();
    expect(result).toEqual(E.left({ status: 200, message: INVALID_RESPONSE_MESSAGE }));
  });

  it('deletes a file by its name in the query string', async () => {
    const { http, calls } = client(200, undefined);
    const result = await deleteImage(http)('ws-1', 'my net.png', signal())();
    expect(E.isRight(result)).toBe(true);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'DELETE /api/image/ws-1?filename=my%20net.png',
    ]);
  });

  it('serves images from the docs folder of the app host', () => {
    expect(imageUrl('', 'ws-1', 'net-ab12.png')).toBe('/docs/ws-1/net-ab12.png');
    expect(imageUrl('https://topo.test', 'ws-1', 'a b.png')).toBe(
      'https://topo.test/docs/ws-1/a%20b.png',
    );
    expect(imageUrl('https://topo.test/mojo/', 'ws-1', 'a.png')).toBe(
      'https://topo.test/mojo/docs/ws-1/a.png',
    );
  });
});

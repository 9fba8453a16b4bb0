import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import { getDocument, getDocumentCrdt, saveDocument } from './document';
import { createHttpClient, INVALID_RESPONSE_MESSAGE } from './http';

/** A client whose fetch records each request and answers `text` with `status`. */
function client(status: number, text: string) {
  const calls: Array<{ method: string; url: string; headers: Headers; body: unknown }> = [];
  const http = createHttpClient({
    baseUrl: '/api',
    authorization: () => 'Bearer t',
    fetch: (async (url: string, init: RequestInit) => {
      calls.push({
        method: String(init.method),
        url,
        headers: new Headers(init.headers),
        body: init.body,
      });
      return new Response(text, { status });
    }) as unknown as typeof fetch,
  });
  return { http, calls };
}

const signal = () => new AbortController().signal;

describe('document calls', () => {
  it('read the markdown as text, even text that looks like JSON', async () => {
    const { http, calls } = client(200, '42');
    expect(await getDocument(http)('ws 1', signal())()).toEqual(E.right('42'));
    expect(calls[0]?.url).toBe('/api/document/ws%201');
  });

  it('read the co-editing state', async () => {
    const { http, calls } = client(200, JSON.stringify({ update: 'AAE=' }));
    expect(await getDocumentCrdt(http)('ws-1', signal())()).toEqual(E.right({ update: 'AAE=' }));
    expect(calls[0]).toMatchObject({ method: 'GET', url: '/api/document/ws-1/crdt' });
  });

  it('refuse a co-editing state of another shape', async () => {
    const { http } = client(200, '# not json');
    expect(await getDocumentCrdt(http)('ws-1', signal())()).toEqual(
      E.left({ status: 200, message: INVALID_RESPONSE_MESSAGE }),
    );
  });

  it('save the text as text/plain with the co-editing header', async () => {
    const { http, calls } = client(200, '');
    const result = await saveDocument(http)({ workspaceId: 'ws-1', text: '# Title' }, signal())();
    expect(E.isRight(result)).toBe(true);
    const call = calls[0];
    expect(call).toMatchObject({ method: 'PUT', url: '/api/document/ws-1', body: '# Title' });
    expect(call?.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(call?.headers.get('x-document-crdt')).toBe('yjs');
  });

  it('report a refused save with the server’s message', async () => {
    const { http } = client(400, JSON.stringify({ message: 'ResourceNotFound' }));
    expect(await saveDocument(http)({ workspaceId: 'x', text: '' }, signal())()).toEqual(
      E.left({ status: 400, message: 'ResourceNotFound' }),
    );
  });
});

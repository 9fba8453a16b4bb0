import * as E from 'fp-ts/Either';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { fromTaskEither } from './actor';
import { downloadWorkspaces } from './admin';
import { apiBaseUrl, createHttpClient, type ApiError } from './http';
import { createWorkspace, getWorkspace } from './workspace';
import { registerUser } from './user';
import { createActor, toPromise } from 'xstate';

interface Call {
  url: string;
  init: RequestInit;
}

/** A fetch that records its calls and answers with `status` and `body` (text, or JSON). */
function fakeFetch(status: number, body: unknown, statusText = '') {
  const calls: Call[] = [];
  const doFetch = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    return new Response(status === 204 ? null : text, { status, statusText });
  }) as unknown as typeof fetch;
  return { calls, doFetch };
}

const signal = () => new AbortController().signal;

const WORKSPACE = {
  id: 'ws-1',
  name: 'Workspace Title',
  description: null,
  tags: null,
  author: 'Ada',
  audience: null,
  whenCreated: '2026-01-01T00:00:00+00:00',
  templateScope: null,
  templateLimit: 3,
  durationMinutes: 0,
  challenge: null,
  workers: [{ workspaceId: 'ws-1', subjectId: 'u-1', subjectName: 'Ada', permission: 'manager' }],
  templates: [],
  someFutureField: true,
};

function client(status: number, body: unknown, token: string | null = 'abc', statusText = '') {
  const { calls, doFetch } = fakeFetch(status, body, statusText);
  const http = createHttpClient({
    baseUrl: '/api',
    authorization: () => (token ? `Bearer ${token}` : undefined),
    fetch: doFetch,
  });
  return { http, calls };
}

const headersOf = (call: Call | undefined) => (call?.init.headers ?? {}) as Record<string, string>;

describe('apiBaseUrl', () => {
  it('uses the SPA origin when apphost is empty', () => {
    expect(apiBaseUrl('')).toBe('/api');
  });

  it('appends api to a configured host, with or without its slash', () => {
    expect(apiBaseUrl('https://mojo.example/')).toBe('https://mojo.example/api');
    expect(apiBaseUrl('https://mojo.example')).toBe('https://mojo.example/api');
  });
});

describe('http client', () => {
  it('sends the session authorization and a JSON body, and decodes the answer', async () => {
    const { http, calls } = client(200, WORKSPACE);
    const result = await createWorkspace(http)('Workspace Title', signal())();
    expect(result).toEqual(E.right(WORKSPACE));
    expect(calls[0]?.url).toBe('/api/workspace');
    expect(calls[0]?.init.method).toBe('POST');
    expect(calls[0]?.init.body).toBe(JSON.stringify({ name: 'Workspace Title' }));
    expect(headersOf(calls[0])).toMatchObject({
      Authorization: 'Bearer abc',
      'Content-Type': 'application/json',
    });
  });

  it('sends no authorization without a session', async () => {
    const { http, calls } = client(200, WORKSPACE, null);
    await getWorkspace(http)('ws-1', signal())();
    expect(headersOf(calls[0]).Authorization).toBeUndefined();
    expect(calls[0]?.url).toBe('/api/workspace/ws-1');
  });

  it('lets a call use its own authorization', async () => {
    const { http, calls } = client(200, {
      id: 'u-1',
      name: 'Ada',
      isAdmin: true,
      isObserver: true,
      isCreator: true,
      isBuilder: true,
    });
    await registerUser(http)({ sub: 'u-1' }, 'Bearer fresh', signal())();
    expect(headersOf(calls[0]).Authorization).toBe('Bearer fresh');
  });

  it('marks every call as the SPA’s own, so that the console cookie alone may change things', async () => {
    const { http, calls } = client(200, undefined, null);
    await http.request(t.unknown, { method: 'POST', path: 'user/logout', signal: signal() })();
    await getWorkspace(http)('ws-1', signal())();
    expect(headersOf(calls[0])).toMatchObject({ 'X-Requested-With': 'XMLHttpRequest' });
    expect(headersOf(calls[0]).Authorization).toBeUndefined();
    expect(headersOf(calls[1])).toMatchObject({ 'X-Requested-With': 'XMLHttpRequest' });
  });

  it('passes the abort signal to fetch', async () => {
    const { http, calls } = client(200, WORKSPACE);
    const controller = new AbortController();
    await getWorkspace(http)('ws-1', controller.signal)();
    expect(calls[0]?.init.signal).toBe(controller.signal);
  });

  it.each<[string, number, unknown, string, ApiError]>([
    [
      'the server message name',
      400,
      { message: 'ResourceNotFound' },
      'Bad Request',
      { status: 400, message: 'ResourceNotFound' },
    ],
    [
      'the server message name with the facts our server adds',
      400,
      { message: 'WorkspaceNotIsolated', gamespaces: 2, other: 'ignored' },
      'Bad Request',
      { status: 400, message: 'WorkspaceNotIsolated', gamespaces: 2 },
    ],
    [
      'ActionForbidden for an empty 403',
      403,
      undefined,
      'Forbidden',
      { status: 403, message: 'ActionForbidden' },
    ],
    [
      'the status text without a message',
      401,
      undefined,
      'Unauthorized',
      { status: 401, message: 'Unauthorized' },
    ],
    [
      'the generic server error',
      500,
      { message: 'Error' },
      'Internal Server Error',
      { status: 500, message: 'Error' },
    ],
    [
      'the status when there is no text either',
      502,
      'bad gateway',
      '',
      { status: 502, message: 'HTTP 502' },
    ],
  ])('maps a failure to %s', async (_, status, body, statusText, expected) => {
    const { http } = client(status, body, 'abc', statusText);
    expect(await getWorkspace(http)('ws-1', signal())()).toEqual(E.left(expected));
  });

  it('reports a response that does not match its codec as an ApiError', async () => {
    const { http } = client(200, { id: 42 });
    expect(await getWorkspace(http)('ws-1', signal())()).toEqual(
      E.left({ status: 200, message: 'InvalidResponse' }),
    );
  });

  it('reports a network failure with status 0', async () => {
    const http = createHttpClient({
      baseUrl: '/api',
      authorization: () => undefined,
      fetch: (async () => {
        throw new TypeError('Failed to fetch');
      }) as unknown as typeof fetch,
    });
    expect(await http.request(t.unknown, { method: 'GET', path: 'x', signal: signal() })()).toEqual(
      E.left({ status: 0, message: 'Failed to fetch' }),
    );
  });

  it('accepts an empty success body where no content is expected', async () => {
    const { http } = client(200, undefined);
    expect(
      await http.request(t.unknown, { method: 'POST', path: 'user/logout', signal: signal() })(),
    ).toEqual(E.right(undefined));
  });
});

describe('a binary answer (the workspace archive)', () => {
  it('passes the bytes on untouched as a Blob', async () => {
    // Not valid UTF-8: read as text, these bytes would come back changed.
    const bytes = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0xff, 0xfe, 0x80]);
    const http = createHttpClient({
      baseUrl: '/api',
      authorization: () => undefined,
      fetch: (async () => new Response(bytes, { status: 200 })) as unknown as typeof fetch,
    });
    const result = await downloadWorkspaces(http)(['w1'], signal())();
    if (E.isLeft(result)) throw new Error(result.left.message);
    expect(new Uint8Array(await result.right.arrayBuffer())).toEqual(bytes);
  });

  it('still reads a refusal as the named error', async () => {
    const { http } = client(400, { message: 'ResourceNotFound' });
    expect(await downloadWorkspaces(http)(['w1'], signal())()).toEqual(
      E.left({ status: 400, message: 'ResourceNotFound' }),
    );
  });
});

describe('fromTaskEither', () => {
  it('resolves with the Right value', async () => {
    const { http } = client(200, WORKSPACE);
    const actor = createActor(
      fromTaskEither((id: string, s) => getWorkspace(http)(id, s)),
      {
        input: 'ws-1',
      },
    ).start();
    await expect(toPromise(actor)).resolves.toEqual(WORKSPACE);
  });

  it('rejects with the ApiError itself', async () => {
    const { http } = client(400, { message: 'ResourceNotFound' });
    const actor = createActor(
      fromTaskEither((id: string, s) => getWorkspace(http)(id, s)),
      {
        input: 'ws-1',
      },
    );
    actor.subscribe({ error: () => undefined });
    actor.start();
    await expect(toPromise(actor)).rejects.toEqual({ status: 400, message: 'ResourceNotFound' });
  });
});

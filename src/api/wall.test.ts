import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import { createHttpClient } from './http';
import { loadThumbnail, loadWall } from './wall';

// The wall's calls through the app's HTTP client, the server faked at fetch.

interface Call {
  url: string;
  headers: Record<string, string>;
}

function serverAnswering(response: () => Response) {
  const calls: Call[] = [];
  const http = createHttpClient({
    baseUrl: '/api',
    authorization: () => 'Bearer abc',
    fetch: (async (url: string, init: RequestInit) => {
      calls.push({ url, headers: init.headers as Record<string, string> });
      return response();
    }) as unknown as typeof fetch,
  });
  return { http, calls };
}

const signal = () => new AbortController().signal;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);

const ENTRY = {
  gamespaceId: 'g1',
  workspaceId: 'w1',
  workspaceName: 'Lab',
  managerName: 'Ann',
  players: [{ id: 'u1', name: 'Ann' }],
  startTime: '2026-11-30T12:00:00.000+00:00',
  endTime: '0001-01-01T00:00:00+00:00',
  expirationTime: '2026-11-30T13:00:00.000+00:00',
  score: 50,
  maxPoints: 100,
  attempts: 1,
  maxAttempts: 3,
  state: 'running',
  lastActivity: null,
  machines: [{ id: 'vm1', name: 'kali', state: 'running' }],
};

describe('loadWall', () => {
  it('reads the wall with the session’s bearer token', async () => {
    const { http, calls } = serverAnswering(() => Response.json([ENTRY]));
    expect(await loadWall(http)(signal())()).toEqual(E.right([ENTRY]));
    expect(calls[0]?.url).toBe('/api/wall');
    expect(calls[0]?.headers.Authorization).toBe('Bearer abc');
  });

  it('fails on an answer of another shape', async () => {
    const { http } = serverAnswering(() => Response.json([{ ...ENTRY, machines: null }]));
    expect(await loadWall(http)(signal())()).toEqual(
      E.left({ status: 200, message: 'InvalidResponse' }),
    );
  });
});

describe('loadThumbnail', () => {
  it('gives the picture with its ETag, asking with the bearer token', async () => {
    const { http, calls } = serverAnswering(
      () => new Response(PNG, { headers: { 'Content-Type': 'image/png', ETag: '"v1"' } }),
    );
    const answer = await loadThumbnail(http)('vm 1', null, signal())();
    expect(calls[0]?.url).toBe('/api/vm/vm%201/thumbnail');
    expect(calls[0]?.headers.Authorization).toBe('Bearer abc');
    expect(calls[0]?.headers).not.toHaveProperty('If-None-Match');
    expect(E.isRight(answer) && answer.right).toMatchObject({ kind: 'picture', etag: '"v1"' });
    const blob = E.isRight(answer) && answer.right.kind === 'picture' ? answer.right.blob : null;
    expect(new Uint8Array(await blob!.arrayBuffer())).toEqual(PNG);
  });

  it('asks with If-None-Match, and reads 304 as the same picture', async () => {
    const { http, calls } = serverAnswering(() => new Response(null, { status: 304 }));
    expect(await loadThumbnail(http)('vm1', '"v1"', signal())()).toEqual(
      E.right({ kind: 'unchanged' }),
    );
    expect(calls[0]?.headers['If-None-Match']).toBe('"v1"');
  });

  it('reads 204, and 404 from a server without thumbnails, as no picture yet', async () => {
    for (const status of [204, 404]) {
      const { http } = serverAnswering(() => new Response(null, { status }));
      expect(await loadThumbnail(http)('vm1', null, signal())()).toEqual(E.right({ kind: 'none' }));
    }
  });

  it('fails with 403 when the viewer may not see the machine', async () => {
    const { http } = serverAnswering(() => new Response(null, { status: 403 }));
    expect(await loadThumbnail(http)('vm1', null, signal())()).toEqual(
      E.left({ status: 403, message: 'ActionForbidden' }),
    );
  });
});

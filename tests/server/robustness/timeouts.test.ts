import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { testEngines } from '../databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { connect as connectHub, type Client } from '../hubClients';
import { signIn } from '../oidc';
import { closedWithin, head, openRaw, trickle, type RawClient } from './raw';

// Slow and greedy clients over real sockets (issue 12, "Timeouts"): headers that never finish,
// bodies that trickle or stall, and too many connections from one address are dropped within
// their limits, while uploads that keep making progress and WebSockets are left alone. The
// limits are small here (HEADERS_TIMEOUT_MS, BODY_TIMEOUT_MS, BODY_IDLE_TIMEOUT_MS,
// UPLOAD_MIN_BYTES_PER_SECOND) so that each case takes about a second.

const HEADERS_MS = 400;
const BODY_MS = 800;
const IDLE_MS = 400;
/** Well below the pace of the upload that progresses below: 256 bytes every 50 ms. */
const MIN_BYTES_PER_SECOND = 256;
/** Longer than any limit above plus Node's and the server's checking intervals. */
const WITHIN = 5_000;

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

describe.each(testEngines())('slow clients on %s', (engine) => {
  let server: TestServer;
  let token = '';
  let ws = '';
  const clients: RawClient[] = [];
  const timers: NodeJS.Timeout[] = [];

  const open = async () => {
    const client = await openRaw(server.url);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await startTestServer({
      engine,
      env: {
        HEADERS_TIMEOUT_MS: String(HEADERS_MS),
        BODY_TIMEOUT_MS: String(BODY_MS),
        BODY_IDLE_TIMEOUT_MS: String(IDLE_MS),
        UPLOAD_MIN_BYTES_PER_SECOND: String(MIN_BYTES_PER_SECOND),
      },
    });
    token = (await signIn(server.url, 'creator', SEED_PASSWORD)).accessToken;
    const res = await fetch(`${server.url}/api/workspace`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Slow lab' }),
    });
    ws = ((await res.json()) as { id: string }).id;
  });
  afterEach(() => {
    for (const timer of timers.splice(0)) clearInterval(timer);
    for (const client of clients.splice(0)) client.destroy();
  });
  afterAll(async () => server?.close());

  it('answers 408 and closes when the headers never finish', async () => {
    const client = await open();
    client.write('GET /api/health/version HTTP/1.1\r\nHost: localhost\r\n');
    // Each header line is progress of a kind, but the headers as a whole are late.
    trickle(timers, client, () => 'X-Slow: 1\r\n');
    await closedWithin(client, WITHIN);
    expect(client.status()).toBe(408);
  });

  it('closes a connection that opens and sends nothing', async () => {
    const client = await open();
    await closedWithin(client, WITHIN);
  });

  it('drops a JSON body that keeps trickling past the body deadline', async () => {
    const client = await open();
    client.write(
      head('POST', '/api/workspace', {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': 10_000,
      }),
    );
    client.write('{"name":"');
    // One byte every 50 ms is never idle, but 10,000 of them would take 500 s.
    trickle(timers, client, () => 'x');
    await closedWithin(client, WITHIN);
    expect(client.status()).toBeNull();
  });

  it('drops a body that stalls', async () => {
    const client = await open();
    client.write(
      head('PUT', `/api/document/${ws}`, {
        authorization: `Bearer ${token}`,
        'content-type': 'text/plain',
        'content-length': 1_000,
      }),
    );
    client.write('# half a guide');
    await closedWithin(client, WITHIN);
    expect(client.status()).toBeNull();
  });

  it('drops a chunked body that stalls', async () => {
    // Requests that announce no body are not watched; one that announces a body is, with a
    // length or in chunks.
    const client = await open();
    client.write(
      head('PUT', `/api/document/${ws}`, {
        authorization: `Bearer ${token}`,
        'content-type': 'text/plain',
        'transfer-encoding': 'chunked',
      }),
    );
    client.write('e\r\n# half a guide\r\n');
    await closedWithin(client, WITHIN);
    expect(client.status()).toBeNull();
  });

  describe('uploads', () => {
    const boundary = 'robustnessBoundary';
    const uploadHead = (size: number) => {
      const start = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.png"\r\n` +
          'Content-Type: image/png\r\n\r\n',
      );
      const end = Buffer.from(`\r\n--${boundary}--\r\n`);
      const headers = head('POST', `/api/image/${ws}`, {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': start.length + size + end.length,
      });
      return { headers, start, end };
    };
    const leftovers = () => {
      const dir = join(server.dataDir, 'docs', ws);
      return existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith('.upload-')) : [];
    };

    it('accepts an upload that takes longer than the body deadline while it progresses', async () => {
      const chunks = 24;
      // 256 bytes every 50 ms, twenty times the minimum pace: a loaded machine that delays the
      // timers still sends faster than UPLOAD_MIN_BYTES_PER_SECOND.
      const chunk = Buffer.alloc(256, 0x61);
      const { headers, start, end } = uploadHead(PNG.length + chunks * chunk.length);
      const client = await open();
      client.write(headers);
      client.write(Buffer.concat([start, PNG]));
      let sent = 0;
      // 24 chunks, 50 ms apart: past the body deadline, never idle.
      const stop = trickle(timers, client, () => {
        sent += 1;
        if (sent === chunks) {
          stop();
          return Buffer.concat([chunk, end]);
        }
        return chunk;
      });
      // The trickle takes 1.2 s on a quiet machine and longer on a busy one; the answer comes
      // within the limits after its last chunk.
      await vi.waitFor(() => expect(sent).toBe(chunks), { timeout: 60_000, interval: 20 });
      await vi.waitFor(() => expect(client.status()).not.toBeNull(), {
        timeout: WITHIN,
        interval: 20,
      });
      expect(client.status()).toBe(200);
      expect(JSON.parse(client.body())).toMatchObject({
        filename: expect.stringMatching(/^slow-/),
      });
    }, 90_000);

    it('drops an upload that stalls and keeps no part of it', async () => {
      const { headers, start } = uploadHead(1_000_000);
      const client = await open();
      client.write(headers);
      client.write(Buffer.concat([start, PNG, Buffer.alloc(10_000, 0x61)]));
      await closedWithin(client, WITHIN);
      expect(client.status()).toBeNull();
      await vi.waitFor(() => expect(leftovers()).toEqual([]), { timeout: WITHIN, interval: 20 });
    });
  });

  it('leaves a WebSocket open however long it outlives the request limits', async () => {
    let hub: Client | undefined;
    try {
      hub = await connectHub(server.url, { authorization: `Bearer ${token}` });
      // A request that the body deadline ends: once it is gone, the WebSocket (open before it)
      // has outlived every HTTP limit.
      const slow = await open();
      slow.write(
        head('POST', '/api/workspace', {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': 10_000,
        }),
      );
      trickle(timers, slow, () => ' ');
      await closedWithin(slow, WITHIN);
      expect(hub.connection.state).toBe('Connected');
      await hub.connection.invoke('Listen', ws);
    } finally {
      await hub?.stop();
    }
  });
});

describe('connections per client address', () => {
  const MAX = 3;
  let server: TestServer;
  const clients: RawClient[] = [];

  beforeAll(async () => {
    server = await startTestServer({ env: { MAX_CLIENT_CONNECTIONS: String(MAX) } });
  });
  afterAll(async () => {
    for (const client of clients) client.destroy();
    await server?.close();
  });

  const open = async () => {
    const client = await openRaw(server.url);
    clients.push(client);
    return client;
  };

  it('closes connections beyond the cap at once, and takes new ones when others close', async () => {
    const held = [await open(), await open(), await open()];
    const extra = await open();
    await vi.waitFor(() => expect(extra.closed()).toBe(true), { timeout: WITHIN, interval: 20 });
    expect(held.map((c) => c.closed())).toEqual([false, false, false]);

    held[0]!.destroy();
    // The server counts the closed connection out as soon as it sees it close.
    await vi.waitFor(
      async () => {
        const client = await open();
        client.write(head('GET', '/api/health/version', {}));
        await vi.waitFor(() => expect(client.closed()).toBe(true), { timeout: 1_000 });
        expect(client.status()).toBe(200);
      },
      { timeout: WITHIN, interval: 50 },
    );
  });
});

import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import {
  createPveClient,
  isLockError,
  parseUpid,
  PveError,
  RETRY_BASE_MS,
  type PveClient,
  type PveClientOptions,
} from './client';

// The PVE client against a local HTTPS server with a self-signed certificate made by the openssl
// CLI: what goes on the wire (token, parameters), how PVE's answers become PveErrors, which calls
// are repeated, the three ways of trusting the certificate, task waiting and WebSockets.

const TOKEN_ID = 'topoplay@pve!driver';
const SECRET = 'c0ffee00-secret-never-in-messages';
const UPID = 'UPID:pve1:0000A1B2:0012C3D4:65A1B2C3:qmclone:9000:topoplay@pve!driver:';

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the fake PVE answers; 'hang' answers nothing. */
type Reply = { status?: number; message?: string; body?: unknown } | 'hang';

interface Certificate {
  key: string;
  cert: string;
  fingerprint: string;
}

let dir = '';
/** The server's certificate, and another one that is not the server's. */
let served: Certificate;
let other: Certificate;

function makeCertificate(name: string): Certificate {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.pem`);
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost'],
      ...['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  const pem = readFileSync(cert, 'utf8');
  return {
    key: readFileSync(key, 'utf8'),
    cert: pem,
    fingerprint: new X509Certificate(pem).fingerprint256,
  };
}

let server: Server;
let url = '';
let seen: Seen[] = [];
let handler: (request: Seen) => Reply = () => ({ body: { data: null } });
const wsServer = new WebSocketServer({ noServer: true });
let wsHeaders: IncomingHttpHeaders[] = [];
let wsUrls: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pve-client-'));
  served = makeCertificate('served');
  other = makeCertificate('other');
  server = createServer({ key: served.key, cert: served.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const parsed = new URL(req.url ?? '/', 'https://localhost');
      const request: Seen = {
        method: req.method ?? '',
        path: decodeURIComponent(parsed.pathname),
        query: parsed.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(request);
      const reply = handler(request);
      if (reply === 'hang') return;
      res.statusCode = reply.status ?? 200;
      if (reply.message) res.statusMessage = reply.message;
      res.setHeader('Content-Type', 'application/json;charset=UTF-8');
      res.end(JSON.stringify(reply.body ?? { data: null }));
    });
  });
  server.on('upgrade', (req, socket, head) => {
    wsHeaders.push(req.headers);
    wsUrls.push(req.url ?? '');
    if (req.url?.includes('refuse')) {
      socket.end('HTTP/1.1 401 authentication failure\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wsServer.handleUpgrade(req, socket, head, (ws) => {
      // A VNC server speaks first; its greeting may travel with the upgrade answer.
      if (req.url?.includes('greet')) ws.send(Buffer.from('RFB 003.008\n'));
      ws.on('message', (data: Buffer) => ws.send(data));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://localhost:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of wsServer.clients) socket.terminate();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  wsServer.close();
  rmSync(dir, { recursive: true, force: true });
});

let clients: PveClient[] = [];
let sleeps: number[] = [];

/** A client of the fake PVE trusting its certificate through `ca`, with recorded back-off. */
function client(options: Partial<PveClientOptions> = {}): PveClient {
  const created = createPveClient({
    url,
    tokenId: TOKEN_ID,
    tokenSecret: SECRET,
    ca: served.cert,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  clients.push(created);
  return created;
}

/** The PveError a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<PveError> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PveError);
  return error as PveError;
}

beforeEach(() => {
  seen = [];
  sleeps = [];
  wsHeaders = [];
  wsUrls = [];
  handler = () => ({ body: { data: null } });
});

afterEach(() => {
  for (const c of clients) c.close();
  clients = [];
});

describe('requests', () => {
  it('sends the API token and GET parameters in the query, and returns data', async () => {
    handler = () => ({ body: { data: [{ vmid: 100 }] } });
    const data = await client().get<{ vmid: number }[]>('/cluster/resources', {
      type: 'vm',
      full: true,
      quiet: false,
      limit: 5,
      skipped: undefined,
    });
    expect(data).toEqual([{ vmid: 100 }]);
    const [request] = seen;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/api2/json/cluster/resources');
    expect(request?.headers.authorization).toBe(`PVEAPIToken=${TOKEN_ID}=${SECRET}`);
    expect(Object.fromEntries(request!.query)).toEqual({
      type: 'vm',
      full: '1',
      quiet: '0',
      limit: '5',
    });
  });

  it('sends POST and PUT parameters as a form body, DELETE parameters in the query', async () => {
    const pve = client();
    await pve.post('/nodes/pve1/qemu/9000/clone', { newid: 123, name: 'web#a b', full: false });
    await pve.put('/nodes/pve1/qemu/123/config', { delete: 'ide2', agent: undefined });
    await pve.delete('/nodes/pve1/qemu/123', { purge: true });
    const [post, put, del] = seen;
    expect(post?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(post!.body))).toEqual({
      newid: '123',
      name: 'web#a b',
      full: '0',
    });
    expect([...post!.query]).toEqual([]);
    expect(put?.method).toBe('PUT');
    expect(put?.body).toBe('delete=ide2');
    expect(del?.method).toBe('DELETE');
    expect(Object.fromEntries(del!.query)).toEqual({ purge: '1' });
    expect(del?.body).toBe('');
  });
});

describe('errors', () => {
  it('turns a 400 into kind invalid with the per-parameter errors', async () => {
    handler = () => ({
      status: 400,
      message: 'Parameter verification failed.',
      body: { data: null, errors: { newid: 'value must be at least 100' } },
    });
    const error = await failure(client().post('/nodes/pve1/qemu/9000/clone', { newid: 5 }));
    expect(error.kind).toBe('invalid');
    expect(error.status).toBe(400);
    expect(error.errors).toEqual({ newid: 'value must be at least 100' });
    expect(error.path).toBe('/nodes/pve1/qemu/9000/clone');
    expect(error.message).toContain('POST /nodes/pve1/qemu/9000/clone');
    expect(error.message).toContain('newid: value must be at least 100');
  });

  it('classifies answers by status and by PVE reason', async () => {
    const cases: [number, string, string][] = [
      [401, 'authentication failure', 'auth'],
      [403, 'Permission check failed (/vms/100, VM.Allocate)', 'forbidden'],
      [500, "can't lock file '/var/lock/qemu-server/lock-9000.conf' - got timeout", 'locked'],
      [500, 'VM is locked (clone)', 'locked'],
      [500, "Configuration file 'nodes/pve1/qemu-server/123.conf' does not exist", 'not-found'],
      [500, 'unable to create VM 123: config file already exists', 'exists'],
      [500, 'VM 123 already running', 'server'],
      [501, "Method 'GET /nodes/x/nothing' not implemented", 'server'],
    ];
    const pve = client({ attempts: 1 });
    for (const [status, message, kind] of cases) {
      handler = () => ({ status, message });
      const error = await failure(pve.post('/nodes/pve1/qemu/123/status/start'));
      expect({ status: error.status, kind: error.kind }).toEqual({ status, kind });
      expect(error.message).toContain(message);
      expect(error.message).not.toContain(SECRET);
    }
  });

  it('prefers the whole message of the body to the reason phrase', async () => {
    handler = () => ({
      status: 500,
      message: 'clone failed',
      body: { data: null, message: 'clone failed: storage full\n' },
    });
    const error = await failure(client().post('/nodes/pve1/qemu/9000/clone'));
    expect(error.reason).toBe('clone failed: storage full');
  });

  it('recognises lock errors, as PveErrors and as plain messages', async () => {
    handler = () => ({
      status: 500,
      message: "can't lock file '/var/lock/qemu-server/lock-9000.conf' - got timeout",
    });
    const error = await failure(client().post('/nodes/pve1/qemu/9000/clone'));
    expect(isLockError(error)).toBe(true);
    expect(isLockError(new Error('VM is locked (snapshot)'))).toBe(true);
    expect(isLockError(new Error('VM 100 already running'))).toBe(false);
    expect(isLockError('locked')).toBe(false);
  });

  it('reports a server that does not answer in time as kind timeout', async () => {
    handler = () => 'hang';
    const error = await failure(client({ timeoutMs: 100, attempts: 1 }).get('/version'));
    expect(error.kind).toBe('timeout');
  });

  it('reports a refused connection as kind network', async () => {
    const closed = createHttpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(client({ url: `http://127.0.0.1:${port}` }).get('/version'));
    expect(error.kind).toBe('network');
    expect(error.status).toBe(0);
  });
});

describe('retries', () => {
  it('repeats a GET after a 503 with back-off and returns its data', async () => {
    let calls = 0;
    handler = () => {
      calls += 1;
      return calls === 1
        ? { status: 503, message: 'Service Unavailable' }
        : { body: { data: { version: '8.4.0' } } };
    };
    await expect(client().get('/version')).resolves.toEqual({ version: '8.4.0' });
    expect(calls).toBe(2);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(RETRY_BASE_MS);
    expect(sleeps[0]).toBeLessThan(RETRY_BASE_MS * 2);
  });

  it('gives up a GET after its attempts, waiting twice as long each time', async () => {
    handler = () => ({ status: 596, message: 'Connection timed out' });
    const error = await failure(client({ attempts: 3 }).get('/nodes/pve2/qemu'));
    expect(error.status).toBe(596);
    expect(seen).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[1]).toBeGreaterThanOrEqual(RETRY_BASE_MS * 2);
  });

  it('never repeats a POST, PUT or DELETE', async () => {
    handler = () => ({ status: 503, message: 'Service Unavailable' });
    const pve = client();
    await failure(pve.post('/nodes/pve1/qemu/9000/clone', { newid: 123 }));
    await failure(pve.put('/nodes/pve1/qemu/123/config', { memory: 512 }));
    await failure(pve.delete('/nodes/pve1/qemu/123'));
    expect(seen.map((r) => r.method)).toEqual(['POST', 'PUT', 'DELETE']);
    expect(sleeps).toEqual([]);
  });

  it('does not repeat a GET that PVE refused', async () => {
    handler = () => ({ status: 500, message: "Configuration file 'x' does not exist" });
    await failure(client().get('/nodes/pve1/qemu/5/config'));
    expect(seen).toHaveLength(1);
  });
});

describe('certificates', () => {
  it('accepts the pinned certificate whoever signed it, in any fingerprint spelling', async () => {
    handler = () => ({ body: { data: { version: '8.4.0' } } });
    const spelled = served.fingerprint.replace(/:/g, '').toLowerCase();
    await expect(client({ ca: undefined, fingerprint: spelled }).get('/version')).resolves.toEqual({
      version: '8.4.0',
    });
  });

  it('refuses another certificate than the pinned one before sending anything', async () => {
    const error = await failure(
      client({ ca: undefined, fingerprint: other.fingerprint }).get('/version'),
    );
    expect(error.kind).toBe('tls');
    expect(error.message).toContain(served.fingerprint);
    expect(error.message).toContain(other.fingerprint);
    expect(error.message).not.toContain(SECRET);
    expect(seen).toEqual([]);
  });

  it('trusts a certificate signed by the given CA', async () => {
    handler = () => ({ body: { data: 'ok' } });
    await expect(client({ ca: served.cert }).get('/version')).resolves.toBe('ok');
  });

  it("refuses a self-signed certificate with Node's default trust or another CA", async () => {
    const untrusted = await failure(client({ ca: undefined }).get('/version'));
    expect(untrusted.kind).toBe('tls');
    const wrongCa = await failure(client({ ca: other.cert }).get('/version'));
    expect(wrongCa.kind).toBe('tls');
    expect(seen).toEqual([]);
  });
});

describe('tasks', () => {
  it('parses a UPID', () => {
    expect(parseUpid(UPID)).toEqual({
      node: 'pve1',
      type: 'qmclone',
      id: '9000',
      user: 'topoplay@pve!driver',
      startTime: 0x65a1b2c3,
    });
    expect(() => parseUpid('UPID:pve1:nonsense')).toThrow(PveError);
  });

  /** A fake task: its status and log advance by one step at each status poll. */
  function serveTask(steps: { lines: string[]; exitstatus?: string }[]) {
    let step = -1;
    const logStarts: number[] = [];
    handler = (request) => {
      const current = steps[Math.min(step, steps.length - 1)]!;
      if (request.path === `/api2/json/nodes/pve1/tasks/${UPID}/status`) {
        step += 1;
        const now = steps[Math.min(step, steps.length - 1)]!;
        const stopped = now.exitstatus !== undefined;
        return {
          body: {
            data: {
              upid: UPID,
              node: 'pve1',
              type: 'qmclone',
              status: stopped ? 'stopped' : 'running',
              ...(stopped ? { exitstatus: now.exitstatus } : {}),
            },
          },
        };
      }
      if (request.path === `/api2/json/nodes/pve1/tasks/${UPID}/log`) {
        const start = Number(request.query.get('start'));
        logStarts.push(start);
        const lines = current.lines.map((t, i) => ({ n: i + 1, t })).slice(start);
        return { body: { data: current.lines.length === 0 ? [{ n: 1, t: 'no content' }] : lines } };
      }
      return { status: 501, message: 'not implemented' };
    };
    return { logStarts };
  }

  it('polls until the task stops and reports the percentages of its log', async () => {
    const lines = [
      'create full clone of drive scsi0 (local-lvm:base-9000-disk-0)',
      'transferred 1.0 GiB of 4.0 GiB (25.00%)',
      'transferred 3.0 GiB of 4.0 GiB (75.00%)',
      'transferred 4.0 GiB of 4.0 GiB (100.00%)',
      'TASK OK',
    ];
    const { logStarts } = serveTask([
      { lines: [] },
      { lines: lines.slice(0, 2) },
      { lines: lines.slice(0, 3) },
      { lines, exitstatus: 'OK' },
    ]);
    const progress: number[] = [];
    await client().waitTask(UPID, { intervalMs: 250, onProgress: (p) => progress.push(p) });
    expect(progress).toEqual([25, 75, 100]);
    // Each read starts past the lines already read; the made-up "no content" line is not one.
    expect(logStarts).toEqual([0, 0, 2, 3]);
    expect(sleeps).toEqual([250, 250, 250]);
  });

  it("polls at the client's task interval unless told otherwise", async () => {
    serveTask([{ lines: [] }, { lines: [], exitstatus: 'OK' }]);
    await client({ taskIntervalMs: 40 }).waitTask(UPID);
    expect(sleeps).toEqual([40]);
  });

  it('rejects with the exit status of a failed task', async () => {
    serveTask([{ lines: [] }, { lines: ['error'], exitstatus: 'clone failed: out of space' }]);
    const error = await failure(client().waitTask(UPID, { intervalMs: 10 }));
    expect(error.kind).toBe('task-failed');
    expect(error.message).toBe('clone failed: out of space');
  });

  it('rejects a task that could not get its lock as kind locked', async () => {
    const exit = "can't lock file '/var/lock/qemu-server/lock-9000.conf' - got timeout";
    serveTask([{ lines: [], exitstatus: exit }]);
    const error = await failure(client().waitTask(UPID));
    expect(error.kind).toBe('locked');
    expect(isLockError(error)).toBe(true);
  });

  it('resolves for a task that ended with warnings', async () => {
    serveTask([{ lines: ['WARN: something'], exitstatus: 'WARNINGS: 1' }]);
    await expect(client().waitTask(UPID)).resolves.toBeUndefined();
  });

  it('gives up waiting after its timeout', async () => {
    serveTask([{ lines: [] }]);
    const error = await failure(client().waitTask(UPID, { timeoutMs: 0 }));
    expect(error.kind).toBe('timeout');
  });
});

describe('WebSockets', () => {
  it('opens a WebSocket with the token header, the parameters and the binary protocol', async () => {
    const socket = await client().openWebSocket('/nodes/pve1/qemu/100/vncwebsocket', {
      port: 5900,
      vncticket: 'PVEVNC:abc',
    });
    expect(wsHeaders[0]?.authorization).toBe(`PVEAPIToken=${TOKEN_ID}=${SECRET}`);
    expect(wsHeaders[0]?.['sec-websocket-protocol']).toBe('binary');
    const query = new URL(wsUrls[0]!, 'https://localhost').searchParams;
    expect(Object.fromEntries(query)).toEqual({ port: '5900', vncticket: 'PVEVNC:abc' });
    const echoed = new Promise<Buffer>((resolve) => socket.once('message', resolve));
    socket.resume();
    socket.send(Buffer.from('RFB'));
    expect((await echoed).toString()).toBe('RFB');
    socket.close();
  });

  it('hands the socket over paused, so that what the server says first waits for a listener', async () => {
    const socket = await client().openWebSocket('/nodes/pve1/qemu/100/vncwebsocket', {
      greet: 1,
    });
    expect(socket.isPaused).toBe(true);
    const greeting = new Promise<Buffer>((resolve) => socket.once('message', resolve));
    socket.resume();
    expect((await greeting).toString()).toBe('RFB 003.008\n');
    socket.close();
  });

  it('keeps to the pinned certificate for WebSockets too', async () => {
    const pinned = client({ ca: undefined, fingerprint: served.fingerprint });
    const socket = await pinned.openWebSocket('/nodes/pve1/qemu/100/vncwebsocket');
    socket.close();
    const refused = client({ ca: undefined, fingerprint: other.fingerprint });
    const error = await failure(refused.openWebSocket('/nodes/pve1/qemu/100/vncwebsocket'));
    expect(error.kind).toBe('tls');
    expect(wsHeaders).toHaveLength(1);
  });

  it('turns a refused upgrade into a PveError of its status', async () => {
    const error = await failure(client().openWebSocket('/refuse'));
    expect(error.kind).toBe('auth');
    expect(error.status).toBe(401);
  });
});

import { request, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, SEED_PASSWORD } from '../harness';
import { HANDSHAKE, rawConnect, ticketFor } from '../hubClients';
import { signIn } from '../oidc';
import { canListen, nodeEnv, refused, ROOT, startServer, viteBuild, type Started } from './release';

// Stopping the real server process the ways an operator does (issue 14, signals): SIGTERM to the
// pid of `npm start` (what a process manager or `kill` does), SIGINT to `node dist-server/main.js`
// (Ctrl-C, and the container's command). The server stops accepting at once, tells hub clients
// they may reconnect, lets requests under way finish within SHUTDOWN_GRACE_MS, and exits 0.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const READY_PID = /"pid":(\d+)[^\n]*Topoplay is running at/;

/** A PNG as the image service checks it: the signature, then anything. */
const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  Buffer.alloc(64 * 1024, 7),
]);

interface SlowUpload {
  /** Resolves once the server has taken the request (its `100 Continue`): it is under way. */
  underWay: Promise<void>;
  /** Sends the body. */
  finish(): void;
  /** The answer, or the error that ended the request instead. */
  answer: Promise<{ res: IncomingMessage; body: string } | Error>;
}

/** A document image upload whose body is sent only when the test says so. */
function slowUpload(url: string, token: string, workspaceId: string): SlowUpload {
  const boundary = 'topoplayReleaseBoundary';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="shot.png"\r\n` +
        'Content-Type: image/png\r\n\r\n',
    ),
    PNG,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const req = request(`${url}/api/image/${workspaceId}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(body.length),
      expect: '100-continue',
    },
  });
  const underWay = new Promise<void>((resolve) => req.once('continue', () => resolve()));
  const answer = new Promise<{ res: IncomingMessage; body: string } | Error>((resolve) => {
    req.once('error', resolve);
    req.once('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.once('end', () => resolve({ res, body: text }));
      res.once('error', resolve);
    });
  });
  req.flushHeaders();
  return { underWay, finish: () => req.end(body), answer };
}

async function call(url: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, path).toBe(200);
  return (await res.json()) as Json;
}

/** The server's own pid, from the line it logs once listening. */
const serverPid = (server: Started) => Number(READY_PID.exec(server.output())?.[1]);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('stopping the server', () => {
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'topoplay-shutdown-'));
    // The repository's dist-server/, current, so that `npm start` starts at once rather than
    // building first, and `node dist-server/main.js` has something to run.
    viteBuild(['-c', 'vite.server.config.ts']);
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  // A test that fails may leave its server running (the bug these tests are about): not past it.
  const started: Started[] = [];
  afterEach(() => {
    for (const server of started.splice(0)) {
      for (const pid of [server.child.pid, serverPid(server)]) {
        if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
      }
    }
  });

  /** A fresh data folder and SQLite database, no SPA (a test for the API server alone). */
  function settings(port: number, name: string, extra: Record<string, string> = {}) {
    const dataDir = join(work, name);
    return nodeEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      TOPOPLAY_URL: `http://127.0.0.1:${port}`,
      TOPOPLAY_DATA: dataDir,
      TOPOPLAY_SPA: join(dataDir, 'no-spa'),
      TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
      DATABASE_URL: '',
      DATABASE_SCHEMA: '',
      REDIS_URL: '',
      JANITOR_ENABLED: 'false',
      RATE_LIMIT_ANONYMOUS: '0',
      RATE_LIMIT_CREDENTIALS: '0',
      LOG_LEVEL: 'info',
      ...extra,
    });
  }

  /** A creator's token and a workspace of theirs to upload images to. */
  async function workspace(url: string) {
    const { accessToken } = await signIn(url, 'creator', SEED_PASSWORD);
    const { id } = await call(url, accessToken, 'POST', '/workspace', { name: 'Shutdown lab' });
    return { token: accessToken, id: id as string };
  }

  it('SIGTERM to npm start: stops accepting, tells hub clients to reconnect, finishes the upload under way, exits 0', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const server = await startServer('npm', ['start'], {
      cwd: ROOT,
      env: settings(port, 'npm-start'),
    });
    started.push(server);
    const { token, id } = await workspace(url);
    const hub = await rawConnect(
      url,
      `?access_token=${await ticketFor(url, { authorization: `Bearer ${token}` })}`,
    );
    hub.send(HANDSHAKE);
    await hub.next((m) => Object.keys(m).length === 0);
    const upload = slowUpload(url, token, id);
    await upload.underWay;

    const signalled = Date.now();
    server.child.kill('SIGTERM');
    expect(await hub.next((m) => m.type === 7)).toEqual({ type: 7, allowReconnect: true });
    await expect.poll(() => refused(port), { timeout: 3_000 }).toBe(true);
    // Still under way while nothing new is accepted: its body comes now, and it succeeds.
    upload.finish();
    const answer = await upload.answer;
    if (answer instanceof Error) throw answer;
    expect(answer.res.statusCode, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ filename: expect.stringMatching(/\.png$/) });
    // The client is told not to send more on this connection.
    expect(answer.res.headers.connection).toBe('close');

    expect(await server.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(5_000);
    // The server ran in npm's child, not a grandchild the signal would not reach.
    expect(alive(serverPid(server))).toBe(false);
    expect(await canListen(port)).toBe(true);
    expect(server.output()).toContain('SIGTERM: shutting down');
  }, 60_000);

  it('SIGINT to node dist-server/main.js: a request still under way after SHUTDOWN_GRACE_MS is cut, and it exits 0', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const graceMs = 500;
    const server = await startServer(process.execPath, ['dist-server/main.js'], {
      cwd: ROOT,
      env: settings(port, 'direct', { SHUTDOWN_GRACE_MS: String(graceMs) }),
    });
    started.push(server);
    const { token, id } = await workspace(url);
    const upload = slowUpload(url, token, id);
    await upload.underWay;

    const signalled = Date.now();
    server.child.kill('SIGINT');
    // The body never comes: the grace period ends the request, and the server with it.
    expect(await upload.answer).toBeInstanceOf(Error);
    expect(await server.exited).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(graceMs);
    expect(Date.now() - signalled).toBeLessThan(graceMs + 4_000);
    expect(await canListen(port)).toBe(true);
    expect(server.output()).toContain('SIGINT: shutting down');
  }, 60_000);
});

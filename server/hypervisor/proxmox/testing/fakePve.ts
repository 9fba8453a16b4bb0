import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { WebSocketServer } from 'ws';
import { createPveClient, PveError, type PveClient, type PveClientOptions } from '../client';

// Test support for the PVE client's tests: a local HTTPS server with a self-signed certificate
// made by the openssl CLI, which records what comes over the wire (requests and WebSocket
// upgrades) and answers as the test says, and clients of it whose back-off sleeps are recorded
// instead of waited.

export const TOKEN_ID = 'topoplay@pve!driver';
export const SECRET = 'c0ffee00-secret-never-in-messages';

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the fake PVE answers; 'hang' answers nothing. */
export type Reply = { status?: number; message?: string; body?: unknown } | 'hang';

export interface Certificate {
  key: string;
  cert: string;
  fingerprint: string;
}

export interface FakePve {
  /** How the fake PVE answers; an empty success again before each test. */
  handler: (request: Seen) => Reply;
  /** Requests, back-off sleeps and WebSocket upgrades of the current test, in order. */
  readonly seen: Seen[];
  readonly sleeps: number[];
  readonly wsHeaders: IncomingHttpHeaders[];
  readonly wsUrls: string[];
  /** The server's certificate, and another one that is not the server's. */
  readonly served: Certificate;
  readonly other: Certificate;
  /** A client of the fake PVE trusting its certificate through `ca`, with recorded back-off. */
  client(options?: Partial<PveClientOptions>): PveClient;
}

function makeCertificate(dir: string, name: string): Certificate {
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

/**
 * The fake PVE of a test file: started before its tests and stopped after them, its records
 * cleared and its clients closed around each test. A WebSocket upgrade whose URL holds `refuse`
 * is refused with a 401; one whose URL holds `greet` is greeted first, as a VNC server does; the
 * others echo what they receive.
 */
export function useFakePve(): FakePve {
  let dir = '';
  let served: Certificate | undefined;
  let other: Certificate | undefined;
  let server: Server;
  let url = '';
  const wsServer = new WebSocketServer({ noServer: true });
  let clients: PveClient[] = [];
  const empty = (): Reply => ({ body: { data: null } });

  const fake: FakePve = {
    handler: empty,
    seen: [],
    sleeps: [],
    wsHeaders: [],
    wsUrls: [],
    get served() {
      if (!served) throw new Error('the fake PVE has not started');
      return served;
    },
    get other() {
      if (!other) throw new Error('the fake PVE has not started');
      return other;
    },
    client(options = {}) {
      const created = createPveClient({
        url,
        tokenId: TOKEN_ID,
        tokenSecret: SECRET,
        ca: fake.served.cert,
        sleep: async (ms) => {
          fake.sleeps.push(ms);
        },
        ...options,
      });
      clients.push(created);
      return created;
    },
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pve-client-'));
    served = makeCertificate(dir, 'served');
    other = makeCertificate(dir, 'other');
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
        fake.seen.push(request);
        const reply = fake.handler(request);
        if (reply === 'hang') return;
        res.statusCode = reply.status ?? 200;
        if (reply.message) res.statusMessage = reply.message;
        res.setHeader('Content-Type', 'application/json;charset=UTF-8');
        res.end(JSON.stringify(reply.body ?? { data: null }));
      });
    });
    server.on('upgrade', (req, socket, head) => {
      fake.wsHeaders.push(req.headers);
      fake.wsUrls.push(req.url ?? '');
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

  beforeEach(() => {
    for (const records of [fake.seen, fake.sleeps, fake.wsHeaders, fake.wsUrls]) {
      records.length = 0;
    }
    fake.handler = empty;
  });

  afterEach(() => {
    for (const c of clients) c.close();
    clients = [];
  });

  return fake;
}

/** The PveError a promise rejects with. */
export async function failure(promise: Promise<unknown>): Promise<PveError> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PveError);
  return error as PveError;
}

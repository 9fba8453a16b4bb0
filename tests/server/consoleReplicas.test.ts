import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { buildApp, type App } from '../../server/app';
import { loadConfig } from '../../server/config';
import { newApiKey, newId, sha256Hex } from '../../server/core/ids';
import { createTestDatabase, type TestDatabase } from './databases';
import { SEED_PASSWORD } from './harness';
import { apiKey } from './hubClients';

// A console page that loses its server (a restart, or the balancer sending it to another
// replica) asks again for a ticket and opens the console wherever its requests land: a ticket
// issued by one server opens the console on another sharing the database and Redis, also once
// the first has gone. Skipped without REDIS_URL, as the other multi-server suites are.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const REDIS_URL = process.env.REDIS_URL ?? '';
/** This suite's ports: one per replica. */
const PORTS = [7750, 7751] as const;

/** How the console socket greets or ends: the RFB greeting, or the close code and reason. */
const outcome = (url: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('message', (data) => {
      resolve(data.toString());
      socket.close();
    });
    socket.once('close', (code, reason) => resolve(`${code} ${reason.toString()}`));
    socket.once('error', reject);
  });

describe.skipIf(REDIS_URL === '')(
  'console tickets across replicas (skipped without REDIS_URL)',
  () => {
    let database: TestDatabase;
    const dirs: string[] = [];
    const apps: App[] = [];
    const urls = PORTS.map((port) => `http://127.0.0.1:${port}`);
    let headers: Record<string, string>;

    const call = async (server: number, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${urls[server]}/api${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      expect(res.status, `${method} ${path}: ${text}`).toBe(200);
      return (text ? JSON.parse(text) : undefined) as Json;
    };

    /** The console address of a ticket from `issuer`, pointed at `server` instead. */
    const ticketAt = async (issuer: number, server: number, vmId: string): Promise<string> => {
      const display = await call(issuer, 'GET', `/vm-console/${vmId}`);
      expect(display.isRunning).toBe(true);
      return (display.url as string).replace(
        urls[issuer]!.replace('http', 'ws'),
        urls[server]!.replace('http', 'ws'),
      );
    };

    let vmId: string;

    beforeAll(async () => {
      database = await createTestDatabase('sqlite');
      const prefix = `topoplay-test-${newId().slice(0, 12)}:`;
      for (const port of PORTS) {
        const dir = mkdtempSync(join(tmpdir(), 'topoplay-test-'));
        dirs.push(dir);
        const config = loadConfig({
          PORT: String(port),
          HOST: '127.0.0.1',
          // One deployment behind one address: the same token issuer.
          TOPOPLAY_URL: urls[0]!,
          TOPOPLAY_DATA: dir,
          TOPOPLAY_SPA: join(dir, 'no-spa'),
          TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
          DATABASE_URL: database.url,
          REDIS_URL,
          REDIS_PREFIX: prefix,
          LOG_LEVEL: 'warn',
          JANITOR_ENABLED: 'false',
          RATE_LIMIT_ANONYMOUS: '0',
          RATE_LIMIT_CREDENTIALS: '0',
          SIM_SPEED: '0',
        });
        // One after the other: the first start seeds the shared database.
        const app = await buildApp(config, { logger: false });
        await app.app.listen({ port, host: '127.0.0.1' });
        apps.push(app);
      }

      const db = apps[0]!.store.db;
      const { id } = await db
        .selectFrom('identityAccounts')
        .select('id')
        .where('username', '=', 'admin')
        .executeTakeFirstOrThrow();
      const key = newApiKey();
      await db
        .insertInto('apiKeys')
        .values({ id: newId(), userId: id, name: 'test', hash: sha256Hex(key), whenCreated: 0 })
        .execute();
      headers = apiKey(key);

      // A running machine of a workspace, deployed through the first server.
      const ws = await call(0, 'POST', '/workspace', { name: 'Replicas' });
      const stock = (await call(0, 'GET', '/templates?term=linux-server')) as Json[];
      const parent = stock.find((t) => t.name === 'linux-server');
      const linked = await call(0, 'POST', '/template', {
        templateId: parent.id,
        workspaceId: ws.id,
      });
      let vm = await call(0, 'POST', `/vm-template/${linked.id}`);
      if (vm.state !== 'running') vm = await call(0, 'PUT', '/vm', { id: vm.id, type: 'start' });
      await vi.waitFor(
        async () => expect((await call(0, 'GET', `/vm/${vm.id}`)).state).toBe('running'),
        { timeout: 10_000, interval: 100 },
      );
      vmId = vm.id;
    }, 60_000);

    afterAll(async () => {
      for (const app of apps) await app.close();
      await database?.cleanup();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    it('opens the console on another replica with a ticket the first one issued', async () => {
      expect(await outcome(await ticketAt(0, 1, vmId))).toBe('RFB 003.008\n');
      expect(await outcome(await ticketAt(1, 0, vmId))).toBe('RFB 003.008\n');
    });

    it('spends a ticket once across replicas', async () => {
      const url = await ticketAt(0, 1, vmId);
      expect(await outcome(url)).toBe('RFB 003.008\n');
      const again = url.replace(urls[1]!.replace('http', 'ws'), urls[0]!.replace('http', 'ws'));
      expect(await outcome(again)).toBe('1008 Invalid ticket');
    });

    it('opens the console on the replica left when the one that issued the ticket is gone', async () => {
      const url = await ticketAt(0, 1, vmId);
      await apps.shift()!.close();
      expect(await outcome(url)).toBe('RFB 003.008\n');
      // And the page's next ticket comes from the replica left, as the console page asks again.
      expect(await outcome(await ticketAt(1, 1, vmId))).toBe('RFB 003.008\n');
    });
  },
);

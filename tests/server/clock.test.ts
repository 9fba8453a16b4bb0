import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness';
import { createManualClock } from './manualClock';

// The core services keep the time of the one clock the server is built with, not the system's:
// a manual clock set years away from now shows in what they store.

describe('the server clock', () => {
  const clock = createManualClock(Date.UTC(2031, 4, 6, 7, 8, 9));
  let server: TestServer;
  let adminKey: string;

  beforeAll(async () => {
    server = await startTestServer({ clock });
    adminKey = await server.apiKeyFor('admin');
  });
  afterAll(() => server?.close());

  const post = (path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': adminKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('dates what the services store by the injected clock', async () => {
    const created = await post('/api/workspace', { name: 'Clocked lab' });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const workspace = await server.app.store.db
      .selectFrom('workspaces')
      .select('whenCreated')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(workspace.whenCreated).toBe(clock.now());

    clock.advance(60 * 60_000);
    const adminId = await server.userId('admin');
    expect((await post(`/api/apikey/${adminId}`)).status).toBe(200);
    const keys = await server.app.store.db
      .selectFrom('apiKeys')
      .select('whenCreated')
      .where('userId', '=', adminId)
      .where('name', '!=', 'test')
      .execute();
    expect(keys.map((k) => k.whenCreated)).toEqual([clock.now()]);
  });
});

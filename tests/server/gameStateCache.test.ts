import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from './databases';
import { startTestServer, type TestServer } from './harness';
import { apiKey } from './hubClients';

// GET /api/gamespace/{id} serves a kept game state (server/core/play/stateCache.ts). These tests
// keep states for ten seconds (STATE_CACHE_MS=10000, the most allowed), so every fresh read below comes from the
// change dropping the kept state, never from it running out.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe.each(testEngines())('kept game states on %s', (engine) => {
  let server: TestServer;
  const headers: Record<string, Record<string, string>> = {};
  const ids: Record<string, string> = {};
  let workspaceId = '';

  async function call(who: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers:
        body === undefined ? headers[who] : { ...headers[who], 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : undefined };
  }
  const ok = async (who: string, method: string, path: string, body?: unknown) => {
    const reply = await call(who, method, path, body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body as Json;
  };

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0', STATE_CACHE_MS: '10000' } });
    for (const who of ['creator', 'player', 'observer']) {
      headers[who] = apiKey(await server.apiKeyFor(who));
      ids[who] = await server.userId(who);
    }
    const ws = await ok('creator', 'POST', '/workspace', {
      name: 'Kept Lab',
      audience: 'everyone',
    });
    workspaceId = ws.id;
    const stock = (await ok('creator', 'GET', '/templates?term=linux-server')) as Json[];
    const parent = stock.find((t) => t.name === 'linux-server');
    await ok('creator', 'POST', '/template', { templateId: parent.id, workspaceId });
  }, 60_000);
  afterAll(() => server?.close());

  const launch = () =>
    ok('player', 'POST', '/gamespace', {
      resourceId: workspaceId,
      startGamespace: true,
      allowReset: true,
    });

  it('lets a player who joined read the game at once, and refuses one who was removed', async () => {
    const game = await launch();
    await ok('player', 'GET', `/gamespace/${game.id}`);
    expect((await call('observer', 'GET', `/gamespace/${game.id}`)).status).toBe(403);

    const { code } = await ok('player', 'POST', `/gamespace/${game.id}/invite`);
    await ok('observer', 'POST', `/player/${code}`, {});
    const joined = await ok('observer', 'GET', `/gamespace/${game.id}`);
    expect(joined.players.map((p: Json) => p.subjectId)).toContain(ids.observer);

    await ok('player', 'DELETE', `/gamespace/${game.id}/player/${ids.observer}`);
    expect((await call('observer', 'GET', `/gamespace/${game.id}`)).status).toBe(403);
    const after = await ok('player', 'GET', `/gamespace/${game.id}`);
    expect(after.players.map((p: Json) => p.subjectId)).not.toContain(ids.observer);
    await ok('player', 'POST', `/gamespace/${game.id}/complete`);
  });

  it('shows an extension, a stopped machine, the end and the deletion at once', async () => {
    const game = await launch();
    const before = await ok('player', 'GET', `/gamespace/${game.id}`);
    expect(before.vms.map((vm: Json) => vm.isRunning)).toEqual([true]);

    const later = new Date(Date.parse(before.expirationTime) + 10 * 60_000).toISOString();
    await ok('player', 'PUT', '/gamespace', { id: game.id, expirationTime: later });
    const extended = await ok('player', 'GET', `/gamespace/${game.id}`);
    expect(Date.parse(extended.expirationTime)).toBe(Date.parse(later));

    await ok('player', 'PUT', '/vm', { id: before.vms[0].id, type: 'stop' });
    const stopped = await ok('player', 'GET', `/gamespace/${game.id}`);
    expect(stopped.vms.map((vm: Json) => vm.isRunning)).toEqual([false]);

    await ok('player', 'POST', `/gamespace/${game.id}/complete`);
    const over = await ok('player', 'GET', `/gamespace/${game.id}`);
    expect(over.isActive).toBe(false);
    expect(over.endTime.startsWith('0001-')).toBe(false);

    await ok('player', 'DELETE', `/gamespace/${game.id}`);
    expect((await call('player', 'GET', `/gamespace/${game.id}`)).status).toBe(400);
  });

  it("shows the author's new guide and a template hidden since at once", async () => {
    const game = await launch();
    await ok('creator', 'PUT', `/document/${workspaceId}`, '# Old guide');
    expect((await ok('player', 'GET', `/gamespace/${game.id}`)).markdown).toBe('# Old guide');
    await ok('creator', 'PUT', `/document/${workspaceId}`, '# New guide');
    expect((await ok('player', 'GET', `/gamespace/${game.id}`)).markdown).toBe('# New guide');

    const [template] = (await ok('creator', 'GET', `/workspace/${workspaceId}`)).templates;
    expect((await ok('player', 'GET', `/gamespace/${game.id}`)).vms).toHaveLength(1);
    const full = await ok('creator', 'GET', `/template/${template.id}`);
    await ok('creator', 'PUT', '/template', { ...full, isHidden: true });
    expect((await ok('player', 'GET', `/gamespace/${game.id}`)).vms).toEqual([]);
    await ok('player', 'POST', `/gamespace/${game.id}/complete`);
  });
});

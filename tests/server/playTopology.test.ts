import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/core/ids';
import { testEngines } from './databases';
import { startTestServer, type TestServer } from './harness';
import { apiKey } from './hubClients';

// The play page's topology diagram (GameState.topology, ours): what a player's game state says of
// the machines and their networks, before the start (the workspace's preview, a gamespace not
// started) and after, and that a hidden template shows in none of it. States are kept for ten
// seconds (STATE_CACHE_MS=10000), so a change shows only if it drops the kept state or preview.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe.each(testEngines())('the topology of a game state on %s', (engine) => {
  let server: TestServer;
  const headers: Record<string, Record<string, string>> = {};
  let workspaceId = '';

  async function call(who: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers:
        body === undefined ? headers[who] : { ...headers[who], 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? (JSON.parse(text) as Json) : undefined };
  }
  const ok = async (who: string, method: string, path: string, body?: unknown) => {
    const reply = await call(who, method, path, body);
    expect(reply.status, reply.text).toBe(200);
    return reply;
  };

  async function template(
    name: string,
    networks: string,
    extra: { variant?: number; isHidden?: 0 | 1 } = {},
  ) {
    await server.app.store.db
      .insertInto('templates')
      .values({
        id: newId(),
        name,
        description: 'secret description',
        audience: '',
        iso: 'secret.iso',
        networks,
        guestinfo: 'password=secret',
        isHidden: extra.isHidden ?? 0,
        isPublished: 0,
        isLinked: 0,
        detail: null,
        parentId: null,
        replicas: 1,
        variant: extra.variant ?? 0,
        workspaceId,
        whenCreated: Date.now(),
      })
      .execute();
  }

  /** Nothing of the hidden template, nor of any template beyond names and networks. */
  function expectNothingHidden(text: string) {
    for (const secret of ['grader', 'mgmt', 'secret']) expect(text).not.toContain(secret);
  }

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0', STATE_CACHE_MS: '10000' } });
    for (const who of ['creator', 'player', 'observer', 'admin']) {
      headers[who] = apiKey(await server.apiKeyFor(who));
    }
    const ws = await ok('creator', 'POST', '/workspace', { name: 'Net Lab', audience: 'everyone' });
    workspaceId = ws.body.id;
    await template('kali', 'lan');
    await template('gw', 'lan, dmz');
    await template('web_v1', 'dmz', { variant: 1 });
    await template('db_v2', 'dmz', { variant: 2 });
    await template('grader', 'lan mgmt', { isHidden: 1 });
  }, 60_000);
  afterAll(() => server?.close());

  it("shows a workspace's preview its visible templates of every variant and their networks", async () => {
    const preview = await ok('player', 'GET', `/gamespace/${workspaceId}`);
    expect(preview.body.id).toBeNull();
    expect(preview.body.topology).toEqual([
      { name: 'db', networks: ['dmz'] },
      { name: 'gw', networks: ['lan', 'dmz'] },
      { name: 'kali', networks: ['lan'] },
      { name: 'web', networks: ['dmz'] },
    ]);
    expectNothingHidden(preview.text);
    const explicit = await ok('player', 'GET', `/preview/${workspaceId}`);
    expect(explicit.body.topology).toEqual(preview.body.topology);
  });

  it("shows a player's gamespace its machines and their networks, before and after the start, never a hidden one", async () => {
    const registered = await ok('player', 'POST', '/gamespace', {
      resourceId: workspaceId,
      variant: 1,
    });
    const id = registered.body.id;
    // Not started: the templates of its variant.
    expect(registered.body.topology).toEqual([
      { name: 'gw', networks: ['lan', 'dmz'] },
      { name: 'kali', networks: ['lan'] },
      { name: 'web', networks: ['dmz'] },
    ]);
    expectNothingHidden(registered.text);
    expect((await ok('player', 'GET', `/gamespace/${id}`)).body.topology).toEqual(
      registered.body.topology,
    );

    // Started: its machines, the hidden template's one deployed but in no list.
    const started = await ok('player', 'POST', `/gamespace/${id}/start`);
    const machines = await server.app.driver.find(id);
    expect(machines.map((m) => m.name.split('#')[0]).sort()).toContain('grader');
    const read = await ok('player', 'GET', `/gamespace/${id}`);
    for (const state of [started.body, read.body]) {
      expect(state.vms.map((vm: Json) => vm.name)).toEqual(['gw', 'kali', 'web']);
      expect(state.topology).toEqual([
        { name: 'gw', networks: ['lan', 'dmz'] },
        { name: 'kali', networks: ['lan'] },
        { name: 'web', networks: ['dmz'] },
      ]);
    }
    expectNothingHidden(started.text);
    expectNothingHidden(read.text);
    // The same kept state for someone else allowed to read it.
    expect((await ok('admin', 'GET', `/gamespace/${id}`)).body.topology).toEqual(
      read.body.topology,
    );

    // A template hidden since leaves the diagram at once, kept state or not.
    const { templates } = (await ok('creator', 'GET', `/workspace/${workspaceId}`)).body;
    const gw = templates.find((t: Json) => t.name === 'gw');
    const full = (await ok('creator', 'GET', `/template/${gw.id}`)).body;
    await ok('creator', 'PUT', '/template', { ...full, isHidden: true });
    expect((await ok('player', 'GET', `/gamespace/${id}`)).body.topology).toEqual([
      { name: 'kali', networks: ['lan'] },
      { name: 'web', networks: ['dmz'] },
    ]);

    // Over: nothing to draw.
    const over = await ok('player', 'POST', `/gamespace/${id}/complete`);
    expect(over.body.topology).toEqual([]);
  });

  it('drops a template hidden since from the kept preview at once', async () => {
    const before = await ok('observer', 'GET', `/gamespace/${workspaceId}`);
    expect(before.body.topology.map((n: Json) => n.name)).toContain('kali');
    const { templates } = (await ok('creator', 'GET', `/workspace/${workspaceId}`)).body;
    const kali = templates.find((t: Json) => t.name === 'kali');
    const full = (await ok('creator', 'GET', `/template/${kali.id}`)).body;
    await ok('creator', 'PUT', '/template', { ...full, isHidden: true });
    const after = await ok('observer', 'GET', `/gamespace/${workspaceId}`);
    expect(after.body.topology.map((n: Json) => n.name)).not.toContain('kali');
  });
});

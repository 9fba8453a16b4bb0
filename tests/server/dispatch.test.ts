import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROLE_NUMBERS, type RoleName } from '../../server/core/roles';
import { newApiKey, newId, sha256Hex } from '../../server/core/ids';
import { PERMISSION } from '../../server/core/workspaces';
import { apiRequest, type Reply } from './api';
import { testEngines } from './databases';
import { gamespaceSpec, insertGamespace, insertWorkspace } from './gradingFixtures';
import { startTestServer, type TestServer } from './harness';
import { clusterSpec } from './hypervisor/contract';
import { apiKey, connect, HANDSHAKE, rawConnect, RS, ticketFor, type Client } from './hubClients';

// The dispatcher over HTTP and the hub (wire reference §1.5, §3, §4.12), on every store engine:
// what each route stores and answers, the update rules (one record per responding host for a
// broadcast), the DispatchEvents the gamespace's group hears, and who may call.

const UNSET = '0001-01-01T00:00:00+00:00';

describe.each(testEngines())('dispatch on %s', (engine) => {
  let server: TestServer;
  /** API keys by who holds them. */
  const keys: Record<string, string> = {};
  /** G: a gamespace of a workspace with audience `alpha`, managed by `manager`. */
  let G = { id: '', graderKey: '' };
  /** Another gamespace (its grader key must not reach G). */
  let other = { id: '', graderKey: '' };

  /** A stored user with an API key. */
  async function user(name: string, role: RoleName, scope = ''): Promise<string> {
    const id = newId();
    const db = server.app.store.db;
    await db
      .insertInto('users')
      .values({
        id,
        name,
        scope,
        workspaceLimit: 0,
        gamespaceLimit: 0,
        gamespaceMaxMinutes: 0,
        gamespaceCleanupGraceMinutes: 0,
        role: ROLE_NUMBERS[role],
        lastIdpAssignedRole: null,
        serviceAccountClientId: null,
        registrar: 0,
        whenCreated: Date.now(),
      })
      .execute();
    const key = newApiKey();
    await db
      .insertInto('apiKeys')
      .values({ id: newId(), userId: id, name, hash: sha256Hex(key), whenCreated: Date.now() })
      .execute();
    keys[name] = key;
    return id;
  }

  beforeAll(async () => {
    server = await startTestServer({ engine });
    const db = server.app.store.db;
    keys.admin = await server.apiKeyFor('admin');
    const managerId = await user('manager', 'user');
    const playerId = await user('player', 'user');
    await user('observerIn', 'observer', 'beta alpha');
    await user('observerOut', 'observer', 'beta');
    await user('creator', 'creator');
    await user('stranger', 'user', 'alpha');
    const alpha = await insertWorkspace(db, 'alpha', gamespaceSpec());
    G = await insertGamespace(db, { workspaceId: alpha, managerId });
    // A player of G without the Manager permission.
    await db
      .insertInto('players')
      .values({ subjectId: playerId, gamespaceId: G.id, subjectName: 'player', permission: 0 })
      .execute();
    other = await insertGamespace(db, { workspaceId: alpha, managerId: playerId });
  });
  afterAll(() => server?.close());

  const as = (who: string, method: string, path: string, body?: unknown): Promise<Reply> =>
    apiRequest(server.url, apiKey(keys[who] ?? who), method, path, body);
  const create = async (body: object, who = 'admin') => {
    const reply = await as(who, 'POST', '/dispatch', { targetGroup: G.id, ...body });
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const list = async (query: string, who = 'admin') => {
    const reply = await as(who, 'GET', `/dispatches?gs=${G.id}${query}`);
    expect(reply.status, reply.text).toBe(200);
    return reply.body as Array<Record<string, unknown>>;
  };

  it('creates a dispatch with a reference id and unset answer, and lists it by gamespace', async () => {
    const made = await create({ trigger: 'hostname', targetName: 'vm1' });
    expect(made).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      referenceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      trigger: 'hostname',
      targetGroup: G.id,
      targetName: 'vm1',
      result: null,
      error: null,
      whenUpdated: UNSET,
      whenCreated: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*\+00:00$/),
    });
    const given = await create({ trigger: 'ls', referenceId: 'ref-1' });
    expect(given.referenceId).toBe('ref-1');
    expect(given.targetName).toBeNull();
    expect((await as('admin', 'GET', `/dispatch/${made.id}`)).body).toEqual(made);
    const ids = (await list('')).map((d) => d.id);
    expect(ids.indexOf(made.id)).toBeLessThan(ids.indexOf(given.id));
    // Another gamespace's list does not show them.
    const others = await as('admin', 'GET', `/dispatches?gs=${other.id}`);
    expect(others.body).toEqual([]);
  });

  it('refuses an unknown gamespace or dispatch and an empty trigger with 400', async () => {
    const unknown = await as('admin', 'POST', '/dispatch', { trigger: 'x', targetGroup: newId() });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual({ targetGroup: ['ResourceNotFound'] });
    const blank = await as('admin', 'POST', '/dispatch', { trigger: '  ', targetGroup: G.id });
    expect(blank.status).toBe(400);
    const missing = await as('admin', 'POST', '/dispatch', { targetGroup: G.id });
    expect(missing.status).toBe(400);
    expect((await as('admin', 'GET', `/dispatch/${newId()}`)).status).toBe(400);
    expect((await as('admin', 'GET', '/dispatches')).status).toBe(400);
    expect((await as('admin', 'GET', `/dispatches?gs=${newId()}`)).status).toBe(400);
  });

  it('updates a targeted dispatch in place and refuses an answer from another host', async () => {
    const made = await create({ trigger: 'hostname', targetName: 'vm1' });
    const wrong = await apiRequest(server.url, apiKey(G.graderKey), 'PUT', '/dispatch', {
      id: made.id,
      result: 'vm2',
      targetName: 'vm2',
    });
    expect(wrong.status).toBe(403);
    const reply = await apiRequest(server.url, apiKey(G.graderKey), 'PUT', '/dispatch', {
      id: made.id,
      result: 'vm1\n',
      error: '',
      targetName: 'vm1',
      whenUpdated: '2000-01-01T00:00:00+00:00',
    });
    expect(reply.status, reply.text).toBe(200);
    const stored = (await as('admin', 'GET', `/dispatch/${made.id}`)).body;
    expect(stored).toMatchObject({ id: made.id, result: 'vm1\n', error: null, targetName: 'vm1' });
    // The server sets whenUpdated, whatever the body says.
    expect(Date.parse(stored.whenUpdated)).toBeGreaterThan(Date.now() - 60_000);
    expect((await list('')).filter((d) => d.trigger === 'hostname').length).toBe(2);
  });

  it('answers a broadcast with one record per responding host, the original left pending', async () => {
    const made = await create({ trigger: 'uptime', referenceId: 'broadcast' });
    const answer = (host: string) =>
      apiRequest(server.url, apiKey(G.graderKey), 'PUT', '/dispatch', {
        id: made.id,
        result: `up on ${host}`,
        targetName: host,
      });
    expect((await answer('vm1')).status).toBe(200);
    expect((await answer('vm2')).status).toBe(200);
    const all = (await list('')).filter((d) => d.referenceId === 'broadcast');
    // The original first; its answers after it (two may share a millisecond: either order).
    expect(
      all
        .map((d) => [d.targetName, d.result])
        .slice(1)
        .sort(),
    ).toEqual([
      ['vm1', 'up on vm1'],
      ['vm2', 'up on vm2'],
    ]);
    expect(all[0]).toEqual(made);
    expect(new Set(all.map((d) => d.id)).size).toBe(3);
    expect(all.slice(1).every((d) => d.trigger === 'uptime' && d.whenUpdated !== UNSET)).toBe(true);
    // pending: not answered yet; since: created or answered after the time.
    const pending = (await list('&filter=pending')).map((d) => d.id);
    expect(pending).toContain(made.id);
    expect(pending).not.toContain(all[1]!.id);
    expect(
      await list(`&since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`),
    ).toEqual([]);
    const recent = await list(`&since=${encodeURIComponent(new Date(0).toISOString())}`);
    expect(recent.map((d) => d.id)).toEqual(expect.arrayContaining(all.map((d) => d.id)));
    // skip and take page the list.
    const total = (await list('')).length;
    expect((await list(`&skip=1&take=2`)).map((d) => d.id)).toEqual(
      (await list('')).slice(1, 3).map((d) => d.id),
    );
    expect(total).toBeGreaterThan(3);
  });

  it('tells the gamespace group DispatchEvent (PascalCase) on create, update and delete', async () => {
    // The agent's side: a raw connection made with the grader key, listening on its gamespace.
    const ticket = await ticketFor(server.url, apiKey(G.graderKey));
    const raw = await rawConnect(server.url, `?access_token=${ticket}`);
    let hub: Client | null = null;
    try {
      raw.send(HANDSHAKE);
      await raw.next((m) => Object.keys(m).length === 0);
      raw.send(
        `${JSON.stringify({ type: 1, invocationId: '1', target: 'Listen', arguments: [G.id] })}${RS}`,
      );
      await raw.next((m) => m.type === 3 && m.invocationId === '1' && !m.error);
      // An admin's console, with the real client, on the same group.
      hub = await connect(server.url, apiKey(keys.admin!));
      await hub.connection.invoke('Listen', G.id);

      const made = await create({ trigger: 'whoami', targetName: 'vm1' }, 'observerIn');
      const event = (action: string) =>
        raw.next((m) => m.type === 1 && m.arguments?.[0]?.action === action);
      const created = await event('DISPATCH.CREATE');
      expect(created.target).toBe('DispatchEvent');
      expect(created.arguments[0].model).toEqual(made);
      expect(created.arguments[0].actor.name).toBe('observerIn');

      await apiRequest(server.url, apiKey(G.graderKey), 'PUT', '/dispatch', {
        id: made.id,
        result: 'root',
        targetName: 'vm1',
      });
      const updated = await event('DISPATCH.UPDATE');
      expect(updated.target).toBe('DispatchEvent');
      expect(updated.arguments[0].model).toMatchObject({ id: made.id, result: 'root' });
      expect(updated.arguments[0].actor).toEqual({ id: G.id, name: 'Gamespace Agent' });

      expect((await as('manager', 'DELETE', `/dispatch/${made.id}`)).status).toBe(200);
      const deleted = await event('DISPATCH.DELETE');
      expect(deleted.arguments[0].model).toEqual({ id: made.id, targetGroup: G.id });
      expect((await as('admin', 'GET', `/dispatch/${made.id}`)).status).toBe(400);
      // The real client hears the same, under the name it registers.
      await hub.next((e) => e.name === 'DispatchEvent' && e.payload.action === 'DISPATCH.DELETE');
    } finally {
      raw.socket.close();
      await hub?.stop();
    }
  });

  it('tells those who read the dispatches which machines have an agent listening', async () => {
    // A gamespace of its own: no connection of another test still listens on it.
    const db = server.app.store.db;
    const H = await insertGamespace(db, {
      workspaceId: await insertWorkspace(db, 'alpha', gamespaceSpec()),
      managerId: newId(),
    });
    for (const name of ['vm1', 'db']) {
      await server.app.driver.deploy(clusterSpec(name, H.id, ''), true);
    }
    const presence = async (who = 'observerIn') => {
      const reply = await as(who, 'GET', `/dispatches/agents?gs=${H.id}`);
      expect(reply.status, reply.text).toBe(200);
      return reply.body as Array<Record<string, unknown>>;
    };
    expect(await presence()).toEqual([
      { name: 'db', isMachine: true, agents: 0 },
      { name: 'vm1', isMachine: true, agents: 0 },
    ]);
    /** A connection listening on H with `key`, its URL's query ending with `query`. */
    const listening = async (key: string, query = '') => {
      const ticket = await ticketFor(server.url, apiKey(key));
      const raw = await rawConnect(server.url, `?access_token=${ticket}${query}`);
      raw.send(HANDSHAKE);
      await raw.next((m) => Object.keys(m).length === 0);
      raw.send(
        `${JSON.stringify({ type: 1, invocationId: '1', target: 'Listen', arguments: [H.id] })}${RS}`,
      );
      await raw.next((m) => m.type === 3 && m.invocationId === '1' && !m.error);
      return raw;
    };
    // Our agent names its host (matched without case); the reference's names none; an admin's
    // console naming a host is no agent.
    const onVm1 = await listening(H.graderKey, '&hostname=VM1');
    const elsewhere = await listening(H.graderKey, '&hostname=kali');
    const unnamed = await listening(H.graderKey);
    const admin = await listening(keys.admin!, '&hostname=db');
    try {
      expect(await presence()).toEqual([
        { name: 'db', isMachine: true, agents: 0 },
        { name: 'vm1', isMachine: true, agents: 1 },
        { name: 'kali', isMachine: false, agents: 1 },
        { name: null, isMachine: false, agents: 1 },
      ]);
      // The admin's list of connections stays the reference's.
      const live = await as('admin', 'GET', '/admin/live');
      expect(live.body.filter((e: Record<string, unknown>) => e.room === H.id)).toHaveLength(4);
      expect(live.body.some((e: Record<string, unknown>) => 'hostname' in e)).toBe(false);
      onVm1.socket.close();
      await onVm1.closed;
      await vi.waitFor(async () => expect((await presence())[1]).toMatchObject({ agents: 0 }));
    } finally {
      for (const raw of [onVm1, elsewhere, unnamed, admin]) raw.socket.close();
    }
    expect((await as('observerOut', 'GET', `/dispatches/agents?gs=${H.id}`)).status).toBe(403);
    expect((await as('stranger', 'GET', `/dispatches/agents?gs=${H.id}`)).status).toBe(403);
    expect((await as('admin', 'GET', `/dispatches/agents?gs=${newId()}`)).status).toBe(400);
  });

  it("lets any observer dispatch to a gamespace of an 'everyone' workspace, as it lists it", async () => {
    const db = server.app.store.db;
    const open = await insertWorkspace(db, 'everyone', gamespaceSpec());
    const E = await insertGamespace(db, { workspaceId: open, managerId: newId() });
    const listed = await as('observerOut', 'GET', '/gamespaces?filter=all');
    expect(listed.body.map((g: { id: string }) => g.id)).toContain(E.id);
    const made = await as('observerOut', 'POST', '/dispatch', { trigger: 'id', targetGroup: E.id });
    expect(made.status, made.text).toBe(200);
    expect((await as('observerOut', 'GET', `/dispatches?gs=${E.id}`)).status).toBe(200);
    // 'everyone' widens an observer's reach, not a user's.
    const user = await as('stranger', 'POST', '/dispatch', { trigger: 'id', targetGroup: E.id });
    expect(user.status).toBe(403);
  });

  describe('authorization', () => {
    const ALLOWED = ['admin', 'manager', 'observerIn', 'graderKey'];
    const REFUSED = ['player', 'observerOut', 'creator', 'stranger', 'otherGraderKey'];
    const credential = (who: string) =>
      who === 'graderKey' ? G.graderKey : who === 'otherGraderKey' ? other.graderKey : keys[who]!;
    const call = (who: string, method: string, path: string, body?: unknown) =>
      apiRequest(server.url, apiKey(credential(who)), method, path, body);

    it.each(ALLOWED)('lets %s create, read, list, answer and delete', async (who) => {
      const created = await call(who, 'POST', '/dispatch', { trigger: 'id', targetGroup: G.id });
      expect(created.status, created.text).toBe(200);
      const id = created.body.id;
      expect((await call(who, 'GET', `/dispatch/${id}`)).status).toBe(200);
      const listed = await call(who, 'GET', `/dispatches?gs=${G.id}`);
      expect(listed.status).toBe(200);
      expect(listed.body.map((d: { id: string }) => d.id)).toContain(id);
      const answer = { id, result: 'ok', targetName: '' };
      expect((await call(who, 'PUT', '/dispatch', answer)).status).toBe(200);
      expect((await call(who, 'DELETE', `/dispatch/${id}`)).status).toBe(200);
    });

    it.each(REFUSED)('refuses %s with 403 and changes nothing', async (who) => {
      const made = await create({ trigger: 'secret', targetName: 'vm1' });
      const created = await call(who, 'POST', '/dispatch', { trigger: 'id', targetGroup: G.id });
      expect(created.status).toBe(403);
      expect((await call(who, 'GET', `/dispatch/${made.id}`)).status).toBe(403);
      expect((await call(who, 'GET', `/dispatches?gs=${G.id}`)).status).toBe(403);
      const answer = { id: made.id, result: 'forged', targetName: 'vm1' };
      expect((await call(who, 'PUT', '/dispatch', answer)).status).toBe(403);
      expect((await call(who, 'DELETE', `/dispatch/${made.id}`)).status).toBe(403);
      const stored = await as('admin', 'GET', `/dispatch/${made.id}`);
      expect(stored.body).toEqual(made);
      expect((await list('')).filter((d) => d.trigger === 'id' && d.result === 'forged')).toEqual(
        [],
      );
    });

    it('refuses anonymous callers with 401 and one-time tickets on these routes', async () => {
      expect((await apiRequest(server.url, {}, 'GET', `/dispatches?gs=${G.id}`)).status).toBe(401);
      const ticket = await ticketFor(server.url, apiKey(keys.admin!));
      const withTicket = await apiRequest(
        server.url,
        { authorization: `Ticket ${ticket}` },
        'GET',
        `/dispatches?gs=${G.id}`,
      );
      expect(withTicket.status).toBe(401);
    });
  });

  it('lets a player with the Manager permission dispatch', async () => {
    const db = server.app.store.db;
    const coManager = await user(`co-${newId().slice(0, 6)}`, 'user');
    await db
      .insertInto('players')
      .values({
        subjectId: coManager,
        gamespaceId: G.id,
        subjectName: 'co',
        permission: PERMISSION.manager,
      })
      .execute();
    const name = Object.keys(keys).find((k) => k.startsWith('co-'))!;
    expect((await as(name, 'GET', `/dispatches?gs=${G.id}`)).status).toBe(200);
  });
});

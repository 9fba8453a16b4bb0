import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TAKE } from '../../server/core/fields';
import { newId } from '../../server/core/ids';
import { createAccount } from '../../server/identity';
import { testEngines } from './databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { connect, type Client } from './hubClients';
import { signIn } from './oidc';

// The workspace routes (wire reference §1.1, §4.7, §4.8) through the real server: success,
// validation, authorization for each kind of caller, and the hub events they publish.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Reply {
  status: number;
  text: string;
  body: Json;
}

const WORKSPACE_KEYS = [
  'id',
  'name',
  'description',
  'tags',
  'author',
  'audience',
  'whenCreated',
  'templateScope',
  'templateLimit',
  'durationMinutes',
  // Ours: whether its gamespaces' consoles are recorded (null: the server's default).
  'recordConsoles',
  'challenge',
  'workers',
  'templates',
];

const SUMMARY_KEYS = [
  'id',
  'name',
  'slug',
  'description',
  'tags',
  'text',
  'audience',
  'author',
  'durationMinutes',
  'whenCreated',
  'lastActivity',
];

describe.each(testEngines())('workspace routes on %s', (engine) => {
  let server: TestServer;
  const token: Record<string, string> = {};
  const id: Record<string, string> = {};
  // Names in this run carry a tag so that searches only see this suite's workspaces.
  const tag = `zq${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    server = await startTestServer({ engine });
    const db = server.app.store.db;
    // Besides the seeded accounts: a collaborator, and a user allowed one workspace of its own.
    await createAccount(db, { username: 'editor', name: 'Eddie Editor', password: SEED_PASSWORD });
    await createAccount(db, { username: 'limited', name: 'Lim User', password: SEED_PASSWORD });
    const users = ['admin', 'creator', 'observer', 'player', 'editor', 'limited'];
    await Promise.all(
      users.map(async (u) => {
        token[u] = (await signIn(server.url, u, SEED_PASSWORD)).accessToken;
        id[u] = await server.userId(u);
      }),
    );
    for (const u of ['editor', 'limited']) await call(u, 'POST', '/user/register');
    await db
      .updateTable('users')
      .set({ workspaceLimit: 1 })
      .where('id', '=', id.limited!)
      .execute();
    await db
      .updateTable('users')
      .set({ scope: 'red-team' })
      .where('id', '=', id.observer!)
      .execute();
  });
  afterAll(async () => server?.close());

  async function call(who: string, method: string, path: string, body?: unknown): Promise<Reply> {
    const headers: Record<string, string> = {};
    if (token[who]) headers.authorization = `Bearer ${token[who]}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: Json;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, text, body: parsed };
  }

  const create = async (who: string, model: Record<string, unknown>): Promise<Json> => {
    const res = await call(who, 'POST', '/workspace', model);
    expect(res.status).toBe(200);
    return res.body;
  };

  /** A workspace of the creator's with the editor as collaborator. */
  async function shared(name: string, extra: Record<string, unknown> = {}): Promise<Json> {
    const ws = await create('creator', { name: `${tag} ${name}`, ...extra });
    const { body } = await call('creator', 'PUT', `/workspace/${ws.id}/invite`);
    expect((await call('editor', 'POST', `/worker/${body.code}`)).status).toBe(200);
    return ws;
  }

  async function gamespace(workspaceId: string, endTime = 0): Promise<string> {
    const gid = newId();
    await server.app.store.db
      .insertInto('gamespaces')
      .values({
        id: gid,
        name: 'game',
        managerId: id.player!,
        managerName: 'Player',
        graderKey: '',
        whenCreated: Date.now(),
        startTime: Date.now(),
        endTime,
        expirationTime: Date.now() + 3_600_000,
        cleanupGraceMinutes: 0,
        cleaned: 0,
        allowReset: 0,
        challenge: '',
        workspaceId,
        variant: 0,
        playerCount: 1,
      })
      .execute();
    return gid;
  }

  const expectForbidden = (res: Reply) => {
    expect(res.status).toBe(403);
    expect(res.text).toBe('');
  };

  const expectNotFound = (res: Reply, argument = 'id') => {
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('ResourceNotFound');
    expect(res.body.errors).toEqual({ [argument]: ['ResourceNotFound'] });
  };

  const listen = async (who: string, channel: string): Promise<Client> => {
    const client = await connect(server.url, { authorization: `Bearer ${token[who]}` });
    await client.connection.invoke('Listen', channel);
    return client;
  };

  describe('GET /api/workspaces', () => {
    let alpha: Json;
    let bravo: Json;
    let charlie: Json;
    const names = (res: Reply): string[] => res.body.map((w: Json) => w.name);
    const list = (who: string, query: string) =>
      call(who, 'GET', `/workspaces?term=${tag}${query}`);

    beforeAll(async () => {
      alpha = await create('creator', {
        name: `${tag} Alpha`,
        audience: 'everyone',
        tags: 'networking',
        description: 'Routing basics',
      });
      bravo = await create('creator', { name: `${tag} Bravo`, audience: 'red-team' });
      charlie = await shared('Charlie');
      // Distinct creation times, so that newest-first has one answer.
      const now = Date.now();
      for (const [i, ws] of [alpha, bravo, charlie].entries()) {
        await server.app.store.db
          .updateTable('workspaces')
          .set({ whenCreated: now - 3_000 + i * 1_000 })
          .where('id', '=', ws.id)
          .execute();
      }
    });

    it('shows everyone the workspaces for "everyone", and hides the others', async () => {
      const res = await list('player', '');
      expect(res.status).toBe(200);
      expect(names(res)).toEqual([alpha.name]);
    });

    it('lists only published workspaces in the Play list (filter=play), administrators too', async () => {
      const unpublished = await create('admin', { name: `${tag} Workspace Title` });
      // Without the filter an administrator sees every workspace, as the reference does.
      expect(names(await list('admin', ''))).toContain(unpublished.name);
      expect(names(await list('admin', '&filter=play'))).toEqual([alpha.name]);
      // The creator's own unpublished workspace is not in its Play list either.
      expect(names(await list('creator', '&filter=play'))).toEqual([alpha.name]);
      expect(names(await list('observer', '&filter=play'))).toEqual([alpha.name, bravo.name]);
      await call('admin', 'DELETE', `/workspace/${unpublished.id}`);
    });

    it('matches the audience against the caller scope', async () => {
      expect(names(await list('observer', ''))).toEqual([alpha.name, bravo.name]);
    });

    it('always shows workers their own workspaces', async () => {
      expect(names(await list('editor', ''))).toEqual([alpha.name, charlie.name]);
    });

    it('with filter=my lists only where the caller is a worker', async () => {
      expect(names(await list('creator', '&filter=my'))).toEqual([
        alpha.name,
        bravo.name,
        charlie.name,
      ]);
      expect(names(await list('editor', '&filter=my'))).toEqual([charlie.name]);
      expect(names(await list('player', '&filter=my'))).toEqual([]);
    });

    it('shows administrators every workspace', async () => {
      expect(names(await list('admin', ''))).toEqual([alpha.name, bravo.name, charlie.name]);
    });

    it('matches the term in name, tags, description, author and audience, or an id prefix', async () => {
      const find = async (term: string) =>
        names(await call('admin', 'GET', `/workspaces?term=${encodeURIComponent(term)}`)).filter(
          (n) => n.startsWith(tag),
        );
      expect(await find('NETWORK')).toEqual([alpha.name]);
      expect(await find('routing')).toEqual([alpha.name]);
      expect(await find('red-team')).toEqual([bravo.name]);
      expect(await find(`${tag} cha`)).toEqual([charlie.name]);
      expect(await find(bravo.id.slice(0, 10))).toEqual([bravo.name]);
      expect((await find('creator')).length).toBe(3);
      // LIKE wildcards in the term are plain characters.
      expect(await find('%')).toEqual([]);
    });

    it('with aud lists what is published to that audience, which must be in the caller scope', async () => {
      expect(names(await list('observer', '&aud=red-team'))).toEqual([bravo.name]);
      const refused = await list('player', '&aud=red-team');
      expect(refused.status).toBe(400);
      expect(refused.body.message).toBe('ActorLacksAudienceScope');
      expect(refused.body.errors).toEqual({ search: ['ActorLacksAudienceScope'] });
    });

    it('sorts by name, or newest first with sort=age, and pages with skip and take', async () => {
      expect(names(await list('admin', '&sort=age'))).toEqual([
        charlie.name,
        bravo.name,
        alpha.name,
      ]);
      expect(names(await list('admin', '&skip=1&take=1'))).toEqual([bravo.name]);
      expect(names(await list('player', '&skip=1'))).toEqual([]);
    });

    it('refuses a take above the maximum', async () => {
      const res = await list('admin', `&take=${MAX_TAKE + 1}`);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual({ take: ['MaximumTakeExceeded'] });
      expect((await list('admin', `&take=${MAX_TAKE}`)).status).toBe(200);
    });

    it('reads query keys in any case', async () => {
      const res = await call('admin', 'GET', `/workspaces?Term=${tag}&SORT=age&Take=1`);
      expect(names(res)).toEqual([charlie.name]);
    });

    it('answers WorkspaceSummary with a slug and unset text', async () => {
      const [summary] = (await list('player', '')).body;
      expect(Object.keys(summary).sort()).toEqual([...SUMMARY_KEYS].sort());
      expect(summary).toMatchObject({
        id: alpha.id,
        slug: `${tag}-alpha`,
        text: null,
        tags: 'networking',
        author: 'Creator',
        durationMinutes: 0,
      });
      expect(summary.whenCreated).toMatch(/\+00:00$/);
      expect(summary.lastActivity).toMatch(/\+00:00$/);
    });

    it('requires a credential', async () => {
      expect((await fetch(`${server.url}/api/workspaces`)).status).toBe(401);
    });
  });

  describe('PUT /api/workspace and /api/workspace/priv', () => {
    let ws: Json;
    beforeAll(async () => {
      ws = await shared('Settings');
    });

    const change = (extra: Record<string, unknown> = {}) => ({
      id: ws.id,
      name: `${tag} Settings`,
      description: 'About the lab',
      tags: 'a b',
      author: 'Eddie',
      audience: 'everyone',
      durationMinutes: 90,
      ...extra,
    });

    it('lets an editor change the settings, answering 200 with an empty body', async () => {
      const res = await call('editor', 'PUT', '/workspace', change({ templateLimit: 99 }));
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      const { body } = await call('editor', 'GET', `/workspace/${ws.id}`);
      // GET workspace/{id} adds the workspace's stats to the reference's Workspace.
      expect(Object.keys(body).sort()).toEqual([...WORKSPACE_KEYS, 'stats'].sort());
      expect(body).toMatchObject({
        description: 'About the lab',
        tags: 'a b',
        author: 'Eddie',
        audience: 'everyone',
        durationMinutes: 90,
        // The restricted model cannot change the template limit.
        templateLimit: 3,
      });
    });

    it('tells the workspace channel TOPO.UPDATED with the Workspace', async () => {
      const client = await listen('creator', ws.id);
      try {
        await call('editor', 'PUT', '/workspace', change({ description: 'hub' }));
        const event = await client.next(
          (e) => e.name === 'TopoEvent' && e.payload.action === 'TOPO.UPDATED',
        );
        expect(event.payload.actor).toEqual({ id: id.editor, name: 'Eddie Editor' });
        expect(event.payload.model).toMatchObject({ id: ws.id, description: 'hub' });
        expect(event.payload.model.workers).toHaveLength(2);
      } finally {
        await client.stop();
      }
    });

    it('keeps the fields a client leaves out (pytopomojo sends only some); null clears', async () => {
      await call(
        'editor',
        'PUT',
        '/workspace',
        change({ durationMinutes: 45, description: 'kept' }),
      );
      const res = await call('editor', 'PUT', '/workspace', {
        id: ws.id,
        name: `${tag} Renamed`,
        tags: null,
      });
      expect(res.status).toBe(200);
      const { body } = await call('editor', 'GET', `/workspace/${ws.id}`);
      expect(body).toMatchObject({
        name: `${tag} Renamed`,
        description: 'kept',
        durationMinutes: 45,
        tags: '',
      });
    });

    it.each([
      [{ name: undefined }, 'name', "Missing value for required property 'name'"],
      [{ name: '   ' }, 'name', "Missing value for required property 'name'"],
      [{ name: 'n'.repeat(65) }, 'name', 'The field name must be at most 64 characters.'],
      [{ description: 'd'.repeat(256) }, 'description', undefined],
      [{ author: 'a'.repeat(65) }, 'author', undefined],
      [{ audience: 'a'.repeat(65) }, 'audience', undefined],
      [{ tags: 't'.repeat(256) }, 'tags', undefined],
      [{ durationMinutes: -1 }, 'durationMinutes', undefined],
    ])('refuses %j with a 400 on %s', async (extra, field, message) => {
      const res = await call('editor', 'PUT', '/workspace', change(extra));
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual([field]);
      if (message) expect(res.body.errors[field]).toEqual([message]);
    });

    it('answers an unknown id with 400 ResourceNotFound, even to a stranger', async () => {
      expectNotFound(await call('player', 'PUT', '/workspace', change({ id: newId() })));
    });

    it('refuses a stranger and allows an administrator', async () => {
      expectForbidden(await call('player', 'PUT', '/workspace', change()));
      expectForbidden(await call('observer', 'PUT', '/workspace', change()));
      expect((await call('admin', 'PUT', '/workspace', change())).status).toBe(200);
    });

    it('lets only administrators set the template scope and limit', async () => {
      const priv = change({ templateScope: 'blue', templateLimit: 7 });
      expectForbidden(await call('creator', 'PUT', '/workspace/priv', priv));
      expect((await call('admin', 'PUT', '/workspace/priv', priv)).status).toBe(200);
      const { body } = await call('creator', 'GET', `/workspace/${ws.id}`);
      expect(body).toMatchObject({ templateScope: 'blue', templateLimit: 7 });
      const bad = await call('admin', 'PUT', '/workspace/priv', { ...priv, templateLimit: -2 });
      expect(bad.status).toBe(400);
    });
  });

  describe('DELETE /api/workspace/{id}', () => {
    it('lets a manager delete: templates, workers and favorites go, gamespaces stay unlinked', async () => {
      const ws = await shared('Doomed');
      const [stock] = (await call('creator', 'GET', '/templates?term=linux-server')).body;
      const link = await call('creator', 'POST', '/template', {
        templateId: stock.id,
        workspaceId: ws.id,
      });
      expect(link.status).toBe(200);
      await call('editor', 'PUT', `/workspace-favorite/${ws.id}`);
      const game = await gamespace(ws.id);
      const client = await listen('admin', ws.id);
      try {
        expectForbidden(await call('editor', 'DELETE', `/workspace/${ws.id}`));
        expectForbidden(await call('player', 'DELETE', `/workspace/${ws.id}`));
        const res = await call('creator', 'DELETE', `/workspace/${ws.id}`);
        expect(res.status).toBe(200);
        expect(res.text).toBe('');
        const event = await client.next((e) => e.name === 'TopoEvent');
        expect(event.payload).toMatchObject({ action: 'TOPO.DELETED', model: { id: ws.id } });
      } finally {
        await client.stop();
      }
      expectNotFound(await call('creator', 'GET', `/workspace/${ws.id}`));
      expectNotFound(await call('creator', 'DELETE', `/workspace/${ws.id}`));
      const db = server.app.store.db;
      const row = await db
        .selectFrom('gamespaces')
        .select('workspaceId')
        .where('id', '=', game)
        .executeTakeFirstOrThrow();
      expect(row.workspaceId).toBeNull();
      for (const table of ['templates', 'workers'] as const) {
        const left = await db
          .selectFrom(table)
          .select('workspaceId')
          .where('workspaceId', '=', ws.id)
          .execute();
        expect(left).toEqual([]);
      }
      expect((await call('editor', 'GET', '/workspace-favorites')).body).not.toContain(ws.id);
    });

    it('lets an administrator delete any workspace', async () => {
      const ws = await create('creator', { name: `${tag} Admin deletes` });
      expect((await call('admin', 'DELETE', `/workspace/${ws.id}`)).status).toBe(200);
    });
  });

  describe('POST /api/workspace/{id}/clone', () => {
    async function withTemplates(name: string) {
      const ws = await shared(name);
      const [stock] = (await call('creator', 'GET', '/templates?term=linux-server')).body;
      const add = async () =>
        (await call('creator', 'POST', '/template', { templateId: stock.id, workspaceId: ws.id }))
          .body;
      const linked = await add();
      const local = await add();
      await call('creator', 'POST', '/template/unlink', {
        templateId: local.id,
        workspaceId: ws.id,
      });
      await call('creator', 'PUT', '/template', {
        id: local.id,
        name: 'server-v2',
        iso: `${ws.id}/tools.iso`,
      });
      await call('creator', 'PUT', '/template', {
        id: linked.id,
        name: 'router',
        iso: `${'0'.repeat(32)}/public.iso`,
      });
      return { ws, stock, linked, local };
    }

    it('copies a versioned workspace as vN+1 with its workers and templates', async () => {
      const { ws, stock, linked, local } = await withTemplates('Lab v2');
      // The editor works on it but may not create workspaces (its limit is 0).
      expectForbidden(await call('editor', 'POST', `/workspace/${ws.id}/clone`));
      const res = await call('creator', 'POST', `/workspace/${ws.id}/clone`);
      expect(res.status).toBe(200);
      const copy = res.body;
      expect(copy.name).toBe(`${tag} Lab v3`);
      expect(copy.id).not.toBe(ws.id);
      expect(copy.workers.map((w: Json) => [w.subjectId, w.permission]).sort()).toEqual(
        [
          [id.creator, 'manager'],
          [id.editor, 'editor'],
        ].sort(),
      );
      const byName = Object.fromEntries(copy.templates.map((t: Json) => [t.name, t]));
      // The template carrying the workspace version moves with it; the other keeps its name.
      expect(Object.keys(byName).sort()).toEqual(['router', 'server-v3']);
      expect(byName.router).toMatchObject({
        isLinked: true,
        parentId: stock.id,
        iso: `${'0'.repeat(32)}/public.iso`,
        workspaceId: copy.id,
      });
      expect(byName.router.id).not.toBe(linked.id);
      expect(byName['server-v3']).toMatchObject({
        isLinked: false,
        parentId: local.id,
        parentName: 'server-v2',
        // An ISO from the original workspace's folder is cleared.
        iso: '',
      });
      const detail = await call('admin', 'GET', `/template-detail/${byName['server-v3'].id}`);
      expect(detail.body.isPublished).toBe(false);
      const disks = JSON.parse(detail.body.detail).Disks;
      expect(disks[0].Path).toBe(`[ds] ${copy.id}/${byName['server-v3'].id}_0.vmdk`);
      expect(disks[0].Source).toBe(`[ds] ${ws.id}/${local.id}_0.vmdk`);
    });

    it('appends -CLONE to an unversioned workspace and keeps its template names (quirk fixed)', async () => {
      const { ws } = await withTemplates('Range');
      const copy = (await call('creator', 'POST', `/workspace/${ws.id}/clone`)).body;
      expect(copy.name).toBe(`${tag} Range-CLONE`);
      expect(copy.templates.map((t: Json) => t.name).sort()).toEqual(['router', 'server-v2']);
    });

    it('refuses a stranger (the reference lets anyone copy any workspace: fixed)', async () => {
      const ws = await create('creator', { name: `${tag} Secret` });
      expectForbidden(await call('player', 'POST', `/workspace/${ws.id}/clone`));
      expectNotFound(await call('player', 'POST', `/workspace/${newId()}/clone`));
      expect((await call('admin', 'POST', `/workspace/${ws.id}/clone`)).status).toBe(200);
    });
  });

  describe('workspace limit for non-creators', () => {
    it('lets a user create and clone up to its workspace limit', async () => {
      const own = await create('limited', { name: `${tag} Mine` });
      expect(own.workers[0]).toMatchObject({ subjectId: id.limited, permission: 'manager' });
      expectForbidden(await call('limited', 'POST', '/workspace', { name: `${tag} Second` }));
      expectForbidden(await call('limited', 'POST', `/workspace/${own.id}/clone`));
      // Deleting it frees the place.
      expect((await call('limited', 'DELETE', `/workspace/${own.id}`)).status).toBe(200);
      expect((await call('limited', 'POST', '/workspace', { name: `${tag} Again` })).status).toBe(
        200,
      );
    });
  });

  describe('stats and ending games', () => {
    it('counts the unended gamespaces, and ends them with GAME.OVER to each gamespace', async () => {
      const ws = await shared('Played');
      const a = await gamespace(ws.id);
      const b = await gamespace(ws.id);
      await gamespace(ws.id, Date.now() - 1_000);
      const stats = await call('editor', 'GET', `/workspace/${ws.id}/stats`);
      expect(stats.status).toBe(200);
      expect(stats.body).toEqual({
        id: ws.id,
        activeGamespaceCount: 2,
        launchCount: 0,
        lastActivity: expect.stringMatching(/\+00:00$/),
      });
      // The workspace itself carries them, for the Templates tab's offer to delete gamespaces.
      const loaded = await call('editor', 'GET', `/workspace/${ws.id}`);
      expect(loaded.body.stats).toEqual(stats.body);
      expectForbidden(await call('player', 'GET', `/workspace/${ws.id}/stats`));
      expectForbidden(await call('player', 'DELETE', `/workspace/${ws.id}/games`));
      expectNotFound(await call('editor', 'GET', `/workspace/${newId()}/stats`));

      const client = await listen('admin', a);
      await client.connection.invoke('Listen', b);
      try {
        const res = await call('editor', 'DELETE', `/workspace/${ws.id}/games`);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ id: ws.id, activeGamespaceCount: 0 });
        for (const gid of [a, b]) {
          const event = await client.next(
            (e) => e.name === 'GameEvent' && e.payload.model?.id === gid,
          );
          expect(event.payload).toEqual({
            action: 'GAME.OVER',
            actor: { id: id.editor, name: 'Eddie Editor' },
            model: { id: gid },
          });
        }
      } finally {
        await client.stop();
      }
      const rows = await server.app.store.db
        .selectFrom('gamespaces')
        .select(['id', 'endTime'])
        .where('id', 'in', [a, b])
        .execute();
      for (const row of rows) expect(row.endTime).toBeGreaterThan(0);
    });
  });

  describe('invitations and workers', () => {
    it('gives a new code on each invitation and stops the old one', async () => {
      const ws = await create('creator', { name: `${tag} Invite` });
      const first = await call('creator', 'PUT', `/workspace/${ws.id}/invite`);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ id: ws.id, code: expect.stringMatching(/^[0-9a-f]{32}$/) });
      const second = await call('creator', 'PUT', `/workspace/${ws.id}/invite`);
      expect(second.body.code).not.toBe(first.body.code);
      const stale = await call('editor', 'POST', `/worker/${first.body.code}`);
      expect(stale.status).toBe(400);
      expect(stale.body).toEqual({ message: 'InvalidInvitation' });
      const joined = await call('editor', 'POST', `/worker/${second.body.code}`);
      expect(joined.status).toBe(200);
      expect(Object.keys(joined.body).sort()).toEqual([...SUMMARY_KEYS].sort());
      expect(joined.body).toMatchObject({ id: ws.id, name: ws.name });
    });

    it('joins as an editor, once, however often the code is used', async () => {
      const ws = await create('creator', { name: `${tag} Join` });
      const { body } = await call('creator', 'PUT', `/workspace/${ws.id}/invite`);
      expect((await call('editor', 'POST', `/worker/${body.code}`)).status).toBe(200);
      expect((await call('editor', 'POST', `/worker/${body.code}`)).status).toBe(200);
      const { workers } = (await call('creator', 'GET', `/workspace/${ws.id}`)).body;
      expect(workers.map((w: Json) => [w.subjectId, w.permission, w.canManage, w.canEdit])).toEqual(
        expect.arrayContaining([
          [id.creator, 'manager', true, true],
          [id.editor, 'editor', false, true],
        ]),
      );
      expect(workers).toHaveLength(2);
    });

    it('makes the first worker of a workspace without workers its manager', async () => {
      const ws = await create('creator', { name: `${tag} Orphan` });
      expect(
        (await call('admin', 'DELETE', `/workspace/${ws.id}/worker/${id.creator}`)).status,
      ).toBe(200);
      const { body } = await call('admin', 'PUT', `/workspace/${ws.id}/invite`);
      await call('observer', 'POST', `/worker/${body.code}`);
      const { workers } = (await call('observer', 'GET', `/workspace/${ws.id}`)).body;
      expect(workers).toMatchObject([{ subjectId: id.observer, permission: 'manager' }]);
    });

    it('answers an unknown code with InvalidInvitation', async () => {
      const res = await call('player', 'POST', `/worker/${newId()}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'InvalidInvitation' });
    });

    it('lets only managers invite', async () => {
      const ws = await shared('Managers');
      expectForbidden(await call('editor', 'PUT', `/workspace/${ws.id}/invite`));
      expectForbidden(await call('player', 'PUT', `/workspace/${ws.id}/invite`));
      expectNotFound(await call('creator', 'PUT', `/workspace/${newId()}/invite`));
    });

    it('lets a manager remove workers but not the last manager; an administrator may', async () => {
      const ws = await shared('Team');
      const remove = (who: string, subject: string) =>
        call(who, 'DELETE', `/workspace/${ws.id}/worker/${subject}`);
      expectForbidden(await remove('editor', id.creator!));
      expectForbidden(await remove('player', id.editor!));
      const last = await remove('creator', id.creator!);
      expect(last.status).toBe(400);
      expect(last.body).toEqual({ message: 'ActionForbidden' });
      // Removing someone who is not a worker does nothing.
      expect((await remove('creator', id.player!)).status).toBe(200);
      expect((await remove('creator', id.editor!)).status).toBe(200);
      expect((await remove('admin', id.creator!)).status).toBe(200);
      expect((await call('admin', 'GET', `/workspace/${ws.id}`)).body.workers).toEqual([]);
    });
  });

  describe('favorites', () => {
    it('adds, lists and removes the caller favorites; 404 for no workspace', async () => {
      const ws = await create('creator', { name: `${tag} Favorite` });
      expect((await call('player', 'PUT', `/workspace-favorite/${newId()}`)).status).toBe(404);
      expect((await call('player', 'PUT', `/workspace-favorite/${ws.id}`)).status).toBe(200);
      expect((await call('player', 'PUT', `/workspace-favorite/${ws.id}`)).status).toBe(200);
      expect((await call('player', 'GET', '/workspace-favorites')).body).toEqual([ws.id]);
      expect((await call('observer', 'GET', '/workspace-favorites')).body).toEqual([]);
      expect((await call('player', 'DELETE', `/workspace-favorite/${ws.id}`)).status).toBe(200);
      expect((await call('player', 'DELETE', `/workspace-favorite/${ws.id}`)).status).toBe(200);
      expect((await call('player', 'GET', '/workspace-favorites')).body).toEqual([]);
    });
  });
});

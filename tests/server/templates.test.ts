import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REPLICAS, ONE_PER_PLAYER, TEMPLATE_LIMITS } from '../../src/domain/templateFields';
import { MAX_TAKE } from '../../server/core/fields';
import { OPENAPI_PATH } from '../../server/http/openapi';
import { EMPTY_GUID, newId } from '../../server/core/ids';
import {
  DESKTOP_TEMPLATE,
  seedStockTemplates,
  STOCK_TEMPLATES,
  TINY_TEMPLATE,
} from '../../server/core/stockTemplates';
import { createAccount } from '../../server/identity';
import { testEngines } from './databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { connect, type Client } from './hubClients';
import { signIn } from './oidc';

// The template routes (wire reference §1.3, §2.4, §4.8) through the real server: stock templates,
// search, link / unlink / relink, edits, the admin detail routes and the hub events.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Reply {
  status: number;
  text: string;
  body: Json;
}

const TEMPLATE_KEYS = [
  'id',
  'name',
  'description',
  'audience',
  'networks',
  'iso',
  'guestinfo',
  'isHidden',
  'isLinked',
  'parentId',
  'parentName',
  'replicas',
  'variant',
  'workspaceId',
  'workspaceName',
];

const SUMMARY_KEYS = [
  'id',
  'name',
  'description',
  'audience',
  'workspaceId',
  'workspaceName',
  'parentId',
  'parentName',
  'isLinked',
  'isPublished',
  'whenCreated',
];

const DETAIL_KEYS = [
  'id',
  'name',
  'description',
  'audience',
  'networks',
  'guestinfo',
  'detail',
  'isPublished',
  'isLinked',
  'parent',
];

const sorted = (keys: string[]) => [...keys].sort();

describe.each(testEngines())('template routes on %s', (engine) => {
  let server: TestServer;
  const token: Record<string, string> = {};
  const id: Record<string, string> = {};
  const tag = `zt${Math.random().toString(36).slice(2, 8)}`;
  let stock: Record<string, Json> = {};

  beforeAll(async () => {
    server = await startTestServer({ engine });
    const db = server.app.store.db;
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
    const list = (await call('player', 'GET', '/templates')).body as Json[];
    stock = Object.fromEntries(list.map((t) => [t.name, t]));
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

  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  const expectForbidden = (res: Reply) => {
    expect(res.status).toBe(403);
    expect(res.text).toBe('');
  };

  const expectNotFound = (res: Reply, argument = 'id') => {
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({ [argument]: ['ResourceNotFound'] });
  };

  const expectError = (res: Reply, message: string) => {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
  };

  /** A creator's workspace with the editor (and optionally others) as collaborators. */
  async function workspace(name: string, joiners = ['editor']): Promise<Json> {
    const ws = await ok(call('creator', 'POST', '/workspace', { name: `${tag} ${name}` }));
    for (const who of joiners) {
      const { code } = await ok(call('creator', 'PUT', `/workspace/${ws.id}/invite`));
      await ok(call(who, 'POST', `/worker/${code}`));
    }
    return ws;
  }

  const link = (who: string, templateId: string, workspaceId: string) =>
    call(who, 'POST', '/template', { templateId, workspaceId });

  const newStock = (model: Record<string, unknown>) =>
    ok(call('admin', 'POST', '/template-detail', model));

  const listen = async (who: string, channel: string): Promise<Client> => {
    const client = await connect(server.url, { authorization: `Bearer ${token[who]}` });
    await client.connection.invoke('Listen', channel);
    return client;
  };

  describe('stock templates', () => {
    it('are seeded on first start: published, in no workspace, ordered by name', async () => {
      const names = [...STOCK_TEMPLATES, TINY_TEMPLATE, DESKTOP_TEMPLATE].map((s) => s.name).sort();
      expect(Object.keys(stock).sort()).toEqual(names);
      const list = (await call('player', 'GET', '/templates')).body as Json[];
      expect(list.map((t) => t.name)).toEqual(names);
      for (const t of list) {
        expect(sorted(Object.keys(t))).toEqual(sorted(SUMMARY_KEYS));
        expect(t).toMatchObject({
          isPublished: true,
          isLinked: false,
          workspaceId: null,
          workspaceName: null,
          parentId: null,
          parentName: null,
        });
        expect(t.whenCreated).toMatch(/\+00:00$/);
      }
    });

    it('have a PascalCase VmTemplate detail naming their images', async () => {
      const detail = await ok(call('admin', 'GET', `/template-detail/${stock.router.id}`));
      expect(sorted(Object.keys(detail))).toEqual(sorted(DETAIL_KEYS));
      expect(detail.parent).toBeNull();
      const vm = JSON.parse(detail.detail);
      expect(vm).toMatchObject({ Name: 'router', Cpu: '1x1', AutoStart: true });
      expect(vm.Eth.map((e: Json) => e.Net)).toEqual(['lan', 'wan']);
      expect(vm.Disks[0].Path).toBe('router.qcow2');
      expect(vm.Template).toBe('topoplay-router');
      const desktop = await ok(
        call('admin', 'GET', `/template-detail/${stock['linux-desktop'].id}`),
      );
      expect(desktop.description).toBe(DESKTOP_TEMPLATE.description);
      expect(JSON.parse(desktop.detail)).toMatchObject({
        Name: 'linux-desktop',
        Cpu: '1x2',
        Ram: 2,
        Disks: [{ Path: 'debian-desktop.qcow2', Size: 4 }],
        Template: 'topoplay-debian-desktop',
      });
    });

    it('are seeded once per database', async () => {
      expect(await seedStockTemplates(server.app.app.repositories.stockTemplates)).toBe(0);
      expect((await call('player', 'GET', '/templates?take=0')).body).toHaveLength(
        (await call('player', 'GET', '/templates')).body.length,
      );
    });
  });

  describe('GET /api/templates', () => {
    let hidden: Json;
    let revision: Json;
    beforeAll(async () => {
      hidden = await newStock({ name: `${tag}-hidden` });
      revision = await ok(
        call('admin', 'POST', '/template/clone', { id: stock.workstation.id, name: `${tag}-rev` }),
      );
    });

    it('shows non-administrators only published templates', async () => {
      expect((await call('player', 'GET', `/templates?term=${tag}`)).body).toEqual([]);
      expect((await call('creator', 'GET', `/templates?term=${tag}`)).body).toEqual([]);
    });

    it('shows administrators every template unless they ask for published ones', async () => {
      const all = (await call('admin', 'GET', `/templates?term=${tag}`)).body.map(
        (t: Json) => t.name,
      );
      expect(all).toEqual([hidden.name, revision.name]);
      expect((await call('admin', 'GET', `/templates?term=${tag}&filter=published`)).body).toEqual(
        [],
      );
    });

    it('lists the children of pid for administrators only', async () => {
      const children = await ok(call('admin', 'GET', `/templates?pid=${stock.workstation.id}`));
      expect(children.map((t: Json) => t.id)).toContain(revision.id);
      expect(children.every((t: Json) => t.parentId === stock.workstation.id)).toBe(true);
      const player = await ok(call('player', 'GET', `/templates?pid=${stock.workstation.id}`));
      expect(player.every((t: Json) => t.isPublished)).toBe(true);
    });

    it('matches the term in the name, audience, id prefix and workspace name prefix', async () => {
      const ws = await workspace('Searchable');
      const linked = await ok(link('creator', stock['linux-server'].id, ws.id));
      const find = async (term: string) =>
        (await call('admin', 'GET', `/templates?term=${encodeURIComponent(term)}`)).body.map(
          (t: Json) => t.id,
        );
      expect(await find(`${tag} search`)).toEqual([linked.id]);
      expect(await find(ws.id.slice(0, 12))).toEqual([linked.id]);
      expect(await find(hidden.id.slice(0, 12))).toEqual([hidden.id]);
      expect(await find('ROUTER')).toEqual([stock.router.id]);
    });

    it('pages with skip and take, refusing a take above the maximum', async () => {
      const page = await ok(call('player', 'GET', '/templates?skip=1&take=1'));
      expect(page.map((t: Json) => t.name)).toEqual(['linux-server']);
      const res = await call('player', 'GET', `/templates?take=${MAX_TAKE + 1}`);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual({ take: ['MaximumTakeExceeded'] });
    });
  });

  describe('POST /api/template (link)', () => {
    it('links a published template: a linked child named after it, TEMPLATE.ADDED to the workspace', async () => {
      const ws = await workspace('Link');
      const client = await listen('editor', ws.id);
      try {
        const t = await ok(link('creator', stock['linux-server'].id, ws.id));
        expect(sorted(Object.keys(t))).toEqual(sorted(TEMPLATE_KEYS));
        expect(t.name).toBe('linux-server');
        expect(t).toMatchObject({
          parentId: stock['linux-server'].id,
          parentName: 'linux-server',
          isLinked: true,
          workspaceId: ws.id,
          workspaceName: ws.name,
          description: stock['linux-server'].description,
          networks: 'lan',
        });
        const event = await client.next((e) => e.name === 'TemplateEvent');
        expect(event.payload).toMatchObject({
          action: 'TEMPLATE.ADDED',
          actor: { id: id.creator, name: 'Creator' },
          model: { id: t.id, workspaceId: ws.id },
        });
        const detail = await ok(call('admin', 'GET', `/template-detail/${t.id}`));
        expect(detail.detail).toBeNull();
        expect(detail.parent).toMatchObject({ id: stock['linux-server'].id, parent: null });
      } finally {
        await client.stop();
      }
    });

    it('lets an editor link, and refuses a stranger (the reference does not check: fixed)', async () => {
      const ws = await workspace('Strangers');
      expect((await link('editor', stock.router.id, ws.id)).status).toBe(200);
      expectForbidden(await link('player', stock.router.id, ws.id));
      expectForbidden(await link('observer', stock.router.id, ws.id));
      expect((await link('admin', stock.router.id, ws.id)).status).toBe(200);
    });

    it('answers unknown ids with 400 ResourceNotFound before authorization', async () => {
      const ws = await workspace('Unknown');
      expectNotFound(await link('player', newId(), ws.id), 'templateId');
      expectNotFound(await link('player', stock.router.id, newId()), 'workspaceId');
    });

    it('links an unpublished template only when its audience matches the actor or workspace scope', async () => {
      const ws = await workspace('Audience', ['editor', 'observer']);
      const red = await newStock({ name: `${tag}-red`, audience: 'red-team' });
      const blue = await newStock({ name: `${tag}-blue`, audience: 'blue' });
      expectForbidden(await link('creator', red.id, ws.id));
      expect((await link('observer', red.id, ws.id)).status).toBe(200);
      expectForbidden(await link('creator', blue.id, ws.id));
      await ok(
        call('admin', 'PUT', '/workspace/priv', {
          id: ws.id,
          name: ws.name,
          templateScope: 'blue',
          templateLimit: 10,
        }),
      );
      expect((await link('creator', blue.id, ws.id)).status).toBe(200);
    });

    it('limits non-creators to the workspace template limit', async () => {
      const ws = await ok(call('limited', 'POST', '/workspace', { name: `${tag} Limited` }));
      expect(ws.templateLimit).toBe(3);
      for (let i = 0; i < 3; i++) await ok(link('limited', stock.router.id, ws.id));
      expectError(await link('limited', stock.router.id, ws.id), 'TemplateLimitReached');
      // Creators (and so administrators) are not limited.
      expect((await link('admin', stock.router.id, ws.id)).status).toBe(200);
    });

    it('links a linked template to its parent, which holds the detail', async () => {
      const ws = await workspace('Chain');
      const first = await ok(link('creator', stock.router.id, ws.id));
      await ok(
        call('admin', 'PUT', '/template-detail', {
          id: first.id,
          name: first.name,
          isPublished: true,
        }),
      );
      const second = await ok(link('creator', first.id, ws.id));
      expect(second.parentId).toBe(stock.router.id);
      // The workspace has the name already: the link is numbered.
      expect(first.name).toBe('router');
      expect(second.name).toBe('router-2');
    });
  });

  describe('GET, PUT and DELETE /api/template', () => {
    let ws: Json;
    let t: Json;
    beforeAll(async () => {
      ws = await workspace('Edit');
      t = await ok(link('creator', stock['linux-server'].id, ws.id));
    });

    it('shows a template to the workers of its workspace and administrators', async () => {
      const loaded = await ok(call('editor', 'GET', `/template/${t.id}`));
      expect(loaded).toEqual(t);
      expectForbidden(await call('player', 'GET', `/template/${t.id}`));
      expect((await call('admin', 'GET', `/template/${t.id}`)).status).toBe(200);
      expectNotFound(await call('player', 'GET', `/template/${newId()}`));
    });

    const change = (extra: Record<string, unknown> = {}) => ({
      id: t.id,
      name: 'web-server',
      description: 'The web server',
      networks: 'lan dmz',
      iso: `${ws.id}/setup.iso`,
      isHidden: true,
      guestinfo: 'role = web\n# comment',
      replicas: -1,
      variant: 2,
      ...extra,
    });

    it('saves the changes and tells the workspace TEMPLATE.UPDATED', async () => {
      const client = await listen('creator', ws.id);
      try {
        const res = await call('editor', 'PUT', '/template', change());
        expect(res.status).toBe(200);
        expect(res.text).toBe('');
        const event = await client.next((e) => e.name === 'TemplateEvent');
        expect(event.payload).toMatchObject({
          action: 'TEMPLATE.UPDATED',
          actor: { id: id.editor },
          model: { id: t.id, name: 'web-server' },
        });
      } finally {
        await client.stop();
      }
      expect(await ok(call('editor', 'GET', `/template/${t.id}`))).toMatchObject({
        name: 'web-server',
        description: 'The web server',
        networks: 'lan dmz',
        iso: `${ws.id}/setup.iso`,
        isHidden: true,
        guestinfo: 'role = web\n# comment',
        replicas: -1,
        variant: 2,
        isLinked: true,
      });
    });

    it('keeps the fields a client leaves out; null clears', async () => {
      const res = await call('editor', 'PUT', '/template', {
        id: t.id,
        name: 'web-2',
        description: null,
      });
      expect(res.status).toBe(200);
      expect(await ok(call('editor', 'GET', `/template/${t.id}`))).toMatchObject({
        name: 'web-2',
        description: '',
        networks: 'lan dmz',
        isHidden: true,
        replicas: -1,
        variant: 2,
      });
    });

    it.each([
      [{ name: undefined }, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'n'.repeat(65) }, 'name'],
      [{ description: 'd'.repeat(256) }, 'description'],
      [{ networks: 'n'.repeat(65) }, 'networks'],
      [{ guestinfo: 'g'.repeat(1025) }, 'guestinfo'],
      [{ replicas: 'many' }, 'replicas'],
      [{ replicas: 1.5 }, 'replicas'],
      [{ replicas: 6 }, 'replicas'],
      [{ variant: -1 }, 'variant'],
    ])('refuses %j with a 400 on %s', async (extra, field) => {
      const res = await call('editor', 'PUT', '/template', change(extra));
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    });

    it("declares in the API document the limits it enforces, which are the SPA editor's", async () => {
      const doc: Json = await (await fetch(`${server.url}${OPENAPI_PATH}`)).json();
      const answer = doc.paths['/api/template/{id}'].get.responses['200'].content;
      const { properties } = answer['application/json'].schema;
      for (const [field, max] of Object.entries(TEMPLATE_LIMITS)) {
        expect(properties[field].maxLength, field).toBe(max);
        // The audience is an administrator's, set with the template detail.
        const save = (text: string) =>
          field === 'audience'
            ? call('admin', 'POST', '/template-detail', { name: `${tag}-aud`, audience: text })
            : call('editor', 'PUT', '/template', change({ [field]: text }));
        expect((await save('x'.repeat(max))).status, field).toBe(200);
        const refused = await save('x'.repeat(max + 1));
        expect(refused.status, field).toBe(400);
        expect(Object.keys(refused.body.errors)).toEqual([field]);
      }
      expect(properties.replicas).toMatchObject({ minimum: ONE_PER_PLAYER, maximum: MAX_REPLICAS });
    });

    it('answers an unknown id with 400, and a stranger with 403', async () => {
      expectNotFound(await call('player', 'PUT', '/template', change({ id: newId() })));
      expectForbidden(await call('player', 'PUT', '/template', change()));
    });

    it('lets only administrators edit a stock template, announced to the all-zero group', async () => {
      const own = await newStock({ name: `${tag}-stock-edit` });
      const body = { id: own.id, name: `${tag}-stock-edited` };
      expectForbidden(await call('creator', 'PUT', '/template', body));
      const client = await listen('admin', EMPTY_GUID);
      try {
        expect((await call('admin', 'PUT', '/template', body)).status).toBe(200);
        const event = await client.next((e) => e.name === 'TemplateEvent');
        expect(event.payload.model).toMatchObject({ id: own.id, workspaceId: null });
      } finally {
        await client.stop();
      }
    });

    it('refuses to delete a template that others have as parent', async () => {
      const parent = await newStock({ name: `${tag}-parent`, isPublished: true });
      const child = await ok(link('creator', parent.id, ws.id));
      expectError(
        await call('admin', 'DELETE', `/template/${parent.id}`),
        'TemplateHasDescendents',
      );
      expectForbidden(await call('player', 'DELETE', `/template/${child.id}`));
      const client = await listen('creator', ws.id);
      try {
        expect((await call('editor', 'DELETE', `/template/${child.id}`)).status).toBe(200);
        const event = await client.next((e) => e.name === 'TemplateEvent');
        expect(event.payload).toMatchObject({
          action: 'TEMPLATE.REMOVED',
          model: { id: child.id },
        });
      } finally {
        await client.stop();
      }
      expect((await call('admin', 'DELETE', `/template/${parent.id}`)).status).toBe(200);
      expectNotFound(await call('admin', 'DELETE', `/template/${parent.id}`));
    });
  });

  describe('POST /api/template/unlink', () => {
    it('copies the parent detail with the disks moved into the workspace folder', async () => {
      const ws = await workspace('Unlink');
      const t = await ok(link('creator', stock['linux-server'].id, ws.id));
      expectForbidden(
        await call('player', 'POST', '/template/unlink', { templateId: t.id, workspaceId: ws.id }),
      );
      const client = await listen('creator', ws.id);
      let unlinked: Json;
      try {
        unlinked = await ok(
          call('editor', 'POST', '/template/unlink', { templateId: t.id, workspaceId: ws.id }),
        );
        const event = await client.next((e) => e.name === 'TemplateEvent');
        expect(event.payload).toMatchObject({ action: 'TEMPLATE.UPDATED', model: { id: t.id } });
      } finally {
        await client.stop();
      }
      expect(unlinked).toMatchObject({ id: t.id, isLinked: false, parentId: t.parentId });
      const { detail } = await ok(call('admin', 'GET', `/template-detail/${t.id}`));
      const vm = JSON.parse(detail);
      expect(vm.Name).toBe(t.name);
      expect(vm.Disks).toMatchObject([
        {
          Path: `[ds] ${ws.id}/${t.id}_0.vmdk`,
          Source: 'debian-12.qcow2',
        },
      ]);
      // Unlinking again changes nothing.
      await ok(
        call('editor', 'POST', '/template/unlink', { templateId: t.id, workspaceId: ws.id }),
      );
      expect((await ok(call('admin', 'GET', `/template-detail/${t.id}`))).detail).toBe(detail);
    });
  });

  describe('siblings and relink', () => {
    let ws: Json;
    let t: Json;
    let revision: Json;
    beforeAll(async () => {
      ws = await workspace('Revisions');
      t = await ok(link('creator', stock.router.id, ws.id));
      revision = await ok(
        call('admin', 'POST', '/template/clone', { id: stock.router.id, name: `${tag}-router-v2` }),
      );
    });

    it('lists the other children of the parent; with pub only published or scoped ones', async () => {
      const siblings = await ok(call('editor', 'GET', `/template/${t.id}/siblings`));
      const ids = siblings.map((s: Json) => s.id);
      expect(ids).toContain(revision.id);
      expect(ids).not.toContain(t.id);
      expect(siblings.every((s: Json) => s.parentId === stock.router.id)).toBe(true);
      const published = await ok(call('editor', 'GET', `/template/${t.id}/siblings?pub=true`));
      expect(published.map((s: Json) => s.id)).not.toContain(revision.id);
      expectForbidden(await call('player', 'GET', `/template/${t.id}/siblings`));
      expect(await ok(call('admin', 'GET', `/template/${stock.router.id}/siblings`))).toEqual([]);
    });

    it('points a template at a sibling revision, which becomes its parent', async () => {
      const body = { templateId: t.id, parentId: revision.id, workspaceId: ws.id };
      expectForbidden(await call('player', 'POST', '/template/relink', body));
      expectNotFound(
        await call('editor', 'POST', '/template/relink', { ...body, workspaceId: newId() }),
        'workspaceId',
      );
      const relinked = await ok(call('editor', 'POST', '/template/relink', body));
      expect(relinked).toMatchObject({
        id: t.id,
        parentId: revision.id,
        parentName: revision.name,
      });
    });

    it('refuses a template that is not a sibling with TemplateNotPublished', async () => {
      const other = await ok(link('creator', stock.workstation.id, ws.id));
      const res = await call('editor', 'POST', '/template/relink', {
        templateId: other.id,
        parentId: stock.router.id,
        workspaceId: ws.id,
      });
      expectError(res, 'TemplateNotPublished');
      const self = await call('editor', 'POST', '/template/relink', {
        templateId: other.id,
        parentId: other.id,
        workspaceId: ws.id,
      });
      expectError(self, 'TemplateNotPublished');
    });
  });

  describe('GET /api/workspace/{id}/templates', () => {
    it('lists templates whose audience matches the workspace template scope or the caller scope', async () => {
      const ws = await workspace('Scoped', ['editor', 'observer']);
      const green = await newStock({ name: `${tag}-green`, audience: 'green' });
      const red = await newStock({ name: `${tag}-team`, audience: 'red-team' });
      const ids = async (who: string) =>
        (await ok(call(who, 'GET', `/workspace/${ws.id}/templates`))).map((t: Json) => t.id);
      expect(await ids('creator')).not.toContain(green.id);
      expect(await ids('observer')).toContain(red.id);
      expect(await ids('observer')).not.toContain(green.id);
      await ok(
        call('admin', 'PUT', '/workspace/priv', {
          id: ws.id,
          name: ws.name,
          templateScope: 'green',
          templateLimit: 3,
        }),
      );
      expect(await ids('creator')).toContain(green.id);
      expect(await ids('creator')).not.toContain(red.id);
      expectForbidden(await call('player', 'GET', `/workspace/${ws.id}/templates`));
      expectNotFound(await call('player', 'GET', `/workspace/${newId()}/templates`));
    });
  });

  describe('template detail (administrators)', () => {
    it('is refused to everyone else before anything is checked', async () => {
      expectForbidden(await call('creator', 'GET', `/template-detail/${newId()}`));
      expectForbidden(await call('creator', 'POST', '/template-detail', { name: 'x' }));
      expectForbidden(await call('creator', 'PUT', '/template-detail', { id: newId() }));
      expectForbidden(await call('creator', 'POST', '/template/clone', { id: newId() }));
    });

    it('creates a stock template with the default detail', async () => {
      const created = await newStock({ name: `${tag} Custom Box`, description: 'd' });
      expect(sorted(Object.keys(created))).toEqual(sorted(DETAIL_KEYS));
      expect(created).toMatchObject({ isPublished: false, isLinked: false, parent: null });
      const vm = JSON.parse(created.detail);
      expect(vm).toMatchObject({ Ram: 4, Cpu: '1x2', Adapters: 1 });
      expect(vm.Disks[0].Path).toBe(`[ds] ${EMPTY_GUID}/${tag}-custom-box.vmdk`);
      expect(await ok(call('admin', 'GET', `/template-detail/${created.id}`))).toEqual(created);
    });

    it('takes a given id, and refuses one that exists with ResourceAlreadyExists', async () => {
      const given = newId();
      expect((await newStock({ id: given, name: `${tag}-given` })).id).toBe(given);
      const res = await call('admin', 'POST', '/template-detail', { id: given, name: 'again' });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual({ id: ['ResourceAlreadyExists'] });
    });

    it.each([
      [{ name: '' }, 'name'],
      [{ name: 'x', detail: 'not json' }, 'detail'],
      [{ name: 'x', networks: 'n'.repeat(65) }, 'networks'],
    ])('refuses %j with a 400 on %s', async (body, field) => {
      const res = await call('admin', 'POST', '/template-detail', body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    });

    it('saves changed detail, normalized to PascalCase, and publishes on request', async () => {
      const created = await newStock({ name: `${tag}-configure` });
      const res = await call('admin', 'PUT', '/template-detail', {
        id: created.id,
        name: created.name,
        description: 'configured',
        detail: JSON.stringify({ ram: 8, cpu: '2x2', disks: [{ path: '[ds] x/y.vmdk' }] }),
        isPublished: true,
      });
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      const loaded = await ok(call('admin', 'GET', `/template-detail/${created.id}`));
      expect(loaded).toMatchObject({ description: 'configured', isPublished: true });
      expect(JSON.parse(loaded.detail)).toMatchObject({
        Ram: 8,
        Cpu: '2x2',
        Disks: [{ Path: '[ds] x/y.vmdk' }],
      });
      const visible = await ok(call('player', 'GET', `/templates?term=${tag}-configure`));
      expect(visible.map((t: Json) => t.id)).toEqual([created.id]);
      // Fields left out keep their values.
      await ok(call('admin', 'PUT', '/template-detail', { id: created.id, name: created.name }));
      expect(await ok(call('admin', 'GET', `/template-detail/${created.id}`))).toMatchObject({
        description: 'configured',
        isPublished: true,
        detail: loaded.detail,
      });
      expectNotFound(await call('admin', 'PUT', '/template-detail', { id: newId(), name: 'x' }));
    });

    it('refuses a detail the deploy could not read with a 400 naming what is wrong', async () => {
      const created = await newStock({ name: `${tag}-checked` });
      const save = (detail: unknown) =>
        call('admin', 'PUT', '/template-detail', { id: created.id, name: created.name, detail });
      // A name the deploy does not read is ignored, as TopoMojo ignores it (the form flags it).
      const unknownName = await save(
        JSON.stringify({ Ram: 2, Dsks: [], Disks: [{ Path: '[ds] x/a.vmdk' }] }),
      );
      expect(unknownName.status).toBe(200);
      const wrongType = await save(JSON.stringify({ Ram: '2GB', Disks: [] }));
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.errors.detail[0]).toBe('Ram must be a whole number, not "2GB"');
      const badCpu = await save(JSON.stringify({ Ram: 2, Cpu: 'two', Disks: [{ Path: 'p' }] }));
      expect(badCpu.body.errors).toEqual({
        detail: ['Cpu must be sockets x cores, such as "1x2", not "two"'],
      });
      const created2 = await call('admin', 'POST', '/template-detail', {
        name: `${tag}-nodisk`,
        detail: JSON.stringify({ Ram: 2, Disks: [{ Size: 0 }] }),
      });
      expect(created2.status).toBe(400);
      expect(created2.body.errors.detail[0]).toMatch(/^Disks\[0\]\.Path is required/);
      // Nothing was saved; a corrected detail is.
      const kept = await ok(call('admin', 'GET', `/template-detail/${created.id}`));
      expect(JSON.parse(kept.detail)).toMatchObject({ Ram: 2, Disks: [{ Path: '[ds] x/a.vmdk' }] });
      const fixed = { Ram: 2, Cpu: '1x1', Disks: [{ Path: '[ds] x/fixed.vmdk', Size: 5 }] };
      expect((await save(JSON.stringify(fixed))).status).toBe(200);
      const saved = await ok(call('admin', 'GET', `/template-detail/${created.id}`));
      expect(JSON.parse(saved.detail)).toMatchObject(fixed);
    });
  });

  describe('POST /api/template/clone (administrators)', () => {
    it('copies a template as its unpublished, unlinked child named -CLONE or vN+1', async () => {
      const source = await newStock({ name: `${tag} box v1`, isPublished: true });
      const copy = await ok(call('admin', 'POST', '/template/clone', { id: source.id }));
      expect(copy).toMatchObject({
        name: `${tag} box v2`,
        isPublished: false,
        isLinked: false,
        detail: source.detail,
        parent: { id: source.id, name: source.name },
      });
      const plain = await ok(call('admin', 'POST', '/template/clone', { id: stock.router.id }));
      expect(plain.name).toBe('router-CLONE');
      expectNotFound(await call('admin', 'POST', '/template/clone', { id: newId() }));
    });

    it('gives the clone of a linked template the detail it inherits', async () => {
      const ws = await workspace('Clone linked');
      const t = await ok(link('creator', stock.router.id, ws.id));
      const copy = await ok(call('admin', 'POST', '/template/clone', { id: t.id }));
      expect(copy.name).toBe(`${t.name}-CLONE`);
      const parent = await ok(call('admin', 'GET', `/template-detail/${stock.router.id}`));
      expect(copy.detail).toBe(parent.detail);
      expect((await ok(call('creator', 'GET', `/template/${copy.id}`))).workspaceId).toBe(ws.id);
    });
  });
});

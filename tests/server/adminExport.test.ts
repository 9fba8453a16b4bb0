import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/core/ids';
import { testEngines } from './databases';
import { startTestServer, type TestServer } from './harness';

// Export and import of workspaces as a zip (wire reference §1.8, issue 17): a workspace moves
// from one server to another with an empty database, with its guide, images, templates and
// challenge; importing again adds nothing; a zip-slip archive or a file that is not a zip is
// refused and nothing is written; nobody but an administrator reaches the routes.

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
// With a question's canary answers (ours), which travel with the rest of the spec.
const CHALLENGE = JSON.stringify({
  text: 'Find the flag',
  variants: [
    { sections: [{ questions: [{ text: 'Flag?', answer: '##f##', canaries: ['flag{x}'] }] }] },
  ],
});
const GUIDE = '# Guide\n\nConnect to **vm1**.\n';

describe.each(testEngines())('workspace export and import on %s', (engine) => {
  let a: TestServer;
  let b: TestServer;
  const keys: Record<string, string> = {};
  let wsId = '';
  let templateId = '';
  let stockId = '';

  const call = (server: TestServer, path: string, init: RequestInit = {}, key = 'admin') => {
    const apiKey = keys[`${server.url}:${key}`];
    return fetch(`${server.url}${path}`, {
      ...init,
      headers: { ...(init.headers as object), ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    });
  };
  const postJson = (server: TestServer, path: string, body: unknown, key = 'admin') =>
    call(
      server,
      path,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
      key,
    );
  const upload = (server: TestServer, bytes: Uint8Array, key = 'admin', name = 'ws.zip') => {
    const form = new FormData();
    form.append('files', new Blob([bytes]), name);
    return call(server, '/api/admin/upload', { method: 'POST', body: form }, key);
  };
  const counts = async (server: TestServer) => ({
    workspaces: (await server.app.store.db.selectFrom('workspaces').select('id').execute()).length,
    templates: (await server.app.store.db.selectFrom('templates').select('id').execute()).length,
  });

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestServer({ engine }), startTestServer({ engine })]);
    for (const server of [a, b]) {
      for (const u of ['admin', 'player']) keys[`${server.url}:${u}`] = await server.apiKeyFor(u);
    }
    const created = await postJson(a, '/api/workspace', { name: 'Exported lab' });
    expect(created.status).toBe(200);
    wsId = ((await created.json()) as { id: string }).id;
    const db = a.app.store.db;
    await db
      .updateTable('workspaces')
      .set({ challenge: CHALLENGE })
      .where('id', '=', wsId)
      .execute();
    const stock = await db
      .selectFrom('templates')
      .selectAll()
      .where('workspaceId', 'is', null)
      .executeTakeFirstOrThrow();
    stockId = stock.id;
    templateId = newId();
    await db
      .insertInto('templates')
      .values({
        ...stock,
        id: templateId,
        name: 'vm1',
        workspaceId: wsId,
        parentId: stockId,
        isLinked: 0,
        detail: JSON.stringify({ Name: 'vm1', Disks: [{ Path: '[ds] lab/vm1.vmdk' }] }),
      })
      .execute();
    const saved = await call(a, `/api/document/${wsId}`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: GUIDE,
    });
    expect(saved.status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'diagram.png');
    expect((await call(a, `/api/image/${wsId}`, { method: 'POST', body: form })).status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('moves a workspace with its guide, images, templates and challenge to an empty server', async () => {
    const download = await postJson(a, '/api/admin/download', [wsId]);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/zip');
    expect(download.headers.get('content-disposition')).toContain('topomojo-export.zip');
    const zip = new Uint8Array(await download.arrayBuffer());
    expect(Object.keys(unzipSync(zip)).sort()).toEqual(
      expect.arrayContaining(['_data.json', '_disks.txt', `${wsId}.md`]),
    );
    expect(await b.app.store.db.selectFrom('workspaces').select('id').execute()).toEqual([]);

    const uploaded = await upload(b, zip);
    expect(uploaded.status).toBe(200);
    expect(await uploaded.json()).toEqual([wsId]);

    const ws = await call(b, `/api/workspace/${wsId}`);
    expect(ws.status).toBe(200);
    expect(await ws.json()).toMatchObject({ id: wsId, name: 'Exported lab' });
    expect(await (await call(b, `/api/document/${wsId}`)).text()).toBe(GUIDE);
    const [imageA] = (await (await call(a, `/api/images/${wsId}`)).json()) as Array<{
      filename: string;
    }>;
    const imagesB = (await (await call(b, `/api/images/${wsId}`)).json()) as Array<{
      filename: string;
    }>;
    expect(imagesB.map((i) => i.filename)).toEqual([imageA!.filename]);
    const image = await fetch(`${b.url}/docs/${wsId}/${imageA!.filename}`);
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG);

    const dbB = b.app.store.db;
    const row = await dbB
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', wsId)
      .executeTakeFirst();
    expect(row?.challenge).toBe(CHALLENGE);
    const template = await dbB
      .selectFrom('templates')
      .selectAll()
      .where('id', '=', templateId)
      .executeTakeFirst();
    expect(template).toMatchObject({ workspaceId: wsId, parentId: stockId, name: 'vm1' });
    expect(JSON.parse(template!.detail!)).toMatchObject({ Disks: [{ Path: '[ds] lab/vm1.vmdk' }] });
    // The stock template it is linked to came along, with its id.
    const stock = await dbB
      .selectFrom('templates')
      .selectAll()
      .where('id', '=', stockId)
      .executeTakeFirst();
    expect(stock?.workspaceId).toBeNull();
  });

  it('adds nothing when the same archive is imported again', async () => {
    const zip = new Uint8Array(
      await (await postJson(a, '/api/admin/download', [wsId])).arrayBuffer(),
    );
    const before = await counts(b);
    const again = await upload(b, zip);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual([]);
    expect(await counts(b)).toEqual(before);
    expect(await (await call(b, `/api/images/${wsId}`)).json()).toHaveLength(1);
  });

  it('exports to the data folder and imports every *export.zip of the data folder', async () => {
    const second = await postJson(a, '/api/workspace', { name: 'Second lab' });
    const secondId = ((await second.json()) as { id: string }).id;
    expect((await postJson(a, '/api/admin/export', [secondId])).status).toBe(200);
    const [file] = readdirSync(join(a.dataDir, '_export'));
    expect(file).toMatch(/^\d{14}_export\.zip$/);

    copyFileSync(join(a.dataDir, '_export', file!), join(b.dataDir, file!));
    const imported = await call(b, '/api/admin/import');
    expect(imported.status).toBe(200);
    expect(await imported.json()).toEqual([secondId]);
    expect(existsSync(join(b.dataDir, `${file}.imported`))).toBe(true);
    expect(existsSync(join(b.dataDir, file!))).toBe(false);
    expect((await call(b, `/api/workspace/${secondId}`)).status).toBe(200);
  });

  it.each([
    ['a parent folder', '../escaped.md'],
    ['a nested parent folder', 'docs/../../escaped.md'],
    ['an absolute path', '/tmp/escaped.md'],
    ['a backslash path', '..\\escaped.md'],
  ])('refuses an archive with an entry in %s, writing nothing', async (_, name) => {
    const id = newId();
    const data = JSON.stringify([{ Id: id, Name: 'Evil', Templates: [] }]);
    const zip = zipSync({
      '_data.json': strToU8(data),
      [`${id}.md`]: strToU8('x'),
      [name]: strToU8('pwned'),
    });
    const before = await counts(b);
    const res = await upload(b, zip);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/outside its folder/);
    expect(await counts(b)).toEqual(before);
    expect(existsSync(join(b.dataDir, 'docs', `${id}.md`))).toBe(false);
    expect(existsSync(join(b.dataDir, 'escaped.md'))).toBe(false);
    expect(existsSync(join(b.dataDir, '..', 'escaped.md'))).toBe(false);
  });

  it('refuses a file that is not a zip, writing nothing', async () => {
    const before = await counts(b);
    const res = await upload(b, strToU8('[{"Id":"abc","Name":"not a zip"}]'), 'admin', 'x.zip');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/not a zip/);
    expect(await counts(b)).toEqual(before);
  });

  it('refuses an archive whose _data.json does not read, writing nothing', async () => {
    const before = await counts(b);
    const zip = zipSync({ '_data.json': strToU8('[{"Id": 5}]') });
    const res = await upload(b, zip);
    expect(res.status).toBe(400);
    expect(await counts(b)).toEqual(before);
  });

  it('answers nobody but an administrator', async () => {
    const zip = zipSync({ '_data.json': strToU8('[]') });
    for (const key of ['player', 'nobody']) {
      const expected = key === 'player' ? 403 : 401;
      expect((await postJson(a, '/api/admin/export', ['all'], key)).status).toBe(expected);
      expect((await postJson(a, '/api/admin/download', ['all'], key)).status).toBe(expected);
      expect((await call(a, '/api/admin/import', {}, key)).status).toBe(expected);
      expect((await upload(a, zip, key)).status).toBe(expected);
    }
    expect(existsSync(join(a.dataDir, '_export'))).toBe(true); // from the test above only
    expect(readdirSync(join(a.dataDir, '_export'))).toHaveLength(1);
  });
});

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { COMPACT_AFTER_ROWS, MAX_DOCUMENT_CHARS } from '../../server/core/documents';
import { DOCUMENT_TEXT } from '../../src/domain/coedit';
import { createAccount } from '../../server/identity';
import { testEngines } from './databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { connect, type Client } from './hubClients';
import { signIn } from './oidc';

// Workspace documents through the real server (wire reference §1.6, §3): the markdown file, the
// Yjs co-editing log fed by hub `Edited`, saves from our SPA (from the log) and from reference
// clients (reconciled into the log), seeding, compaction, and who may do what.

// Response bodies and hub payloads are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Reply {
  status: number;
  text: string;
  type: string;
  body: Json;
}

const b64 = (update: Uint8Array) => Buffer.from(update).toString('base64');
const bytes = (base64: string) => new Uint8Array(Buffer.from(base64, 'base64'));

/** A client's replica of a document: a Y.Doc whose local changes are collected as updates. */
function replica(state?: string) {
  const doc = new Y.Doc();
  if (state) Y.applyUpdate(doc, bytes(state), 'remote');
  const text = doc.getText(DOCUMENT_TEXT);
  return {
    doc,
    text,
    /** Runs a local change and returns its update, as the SPA sends it with Edited. */
    edit(change: (t: Y.Text) => void): { crdt: 'yjs'; update: string } {
      let update: Uint8Array | null = null;
      const keep = (u: Uint8Array, origin: unknown) => {
        if (origin !== 'remote') update = u;
      };
      doc.on('update', keep);
      doc.transact(() => change(text));
      doc.off('update', keep);
      if (!update) throw new Error('the change made no update');
      return { crdt: 'yjs', update: b64(update) };
    },
    apply(update: string) {
      Y.applyUpdate(doc, bytes(update), 'remote');
    },
  };
}

const textOf = (update: string) => replica(update).text.toString();

describe.each(testEngines())('documents on %s', (engine) => {
  let server: TestServer;
  const token: Record<string, string> = {};
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startTestServer({ engine });
    await createAccount(server.app.store.db, {
      username: 'editor',
      name: 'Eddie Editor',
      password: SEED_PASSWORD,
    });
    for (const u of ['admin', 'creator', 'player', 'editor']) {
      token[u] = (await signIn(server.url, u, SEED_PASSWORD)).accessToken;
    }
    await call('editor', 'POST', '/user/register');
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.stop()));
  });
  afterAll(async () => server?.close());

  async function call(
    who: string | null,
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const all: Record<string, string> = { ...headers };
    if (who) all.authorization = `Bearer ${token[who]}`;
    if (body !== undefined) all['content-type'] ??= 'text/plain';
    const res = await fetch(`${server.url}/api${path}`, { method, headers: all, body });
    const text = await res.text();
    let parsed: Json;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, text, type: res.headers.get('content-type') ?? '', body: parsed };
  }

  /** A workspace of the creator's with the editor as collaborator. */
  async function workspace(): Promise<string> {
    const created = await fetch(`${server.url}/api/workspace`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.creator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Doc lab' }),
    });
    const { id } = (await created.json()) as { id: string };
    const invite = await call('creator', 'PUT', `/workspace/${id}/invite`);
    expect((await call('editor', 'POST', `/worker/${invite.body.code}`)).status).toBe(200);
    return id;
  }

  const listen = async (who: string, channel: string): Promise<Client> => {
    const client = await connect(server.url, { authorization: `Bearer ${token[who]}` });
    clients.push(client);
    await client.connection.invoke('Listen', channel);
    return client;
  };

  const crdt = async (id: string, who = 'editor'): Promise<string> => {
    const res = await call(who, 'GET', `/document/${id}/crdt`);
    expect(res.status).toBe(200);
    return res.body.update;
  };

  const logRows = (id: string) =>
    server.app.store.db
      .selectFrom('documentUpdates')
      .select(['id', 'update'])
      .where('workspaceId', '=', id)
      .execute();

  const docFile = (id: string) => join(server.dataDir, 'docs', `${id}.md`);

  it('answers a document never saved with empty text', async () => {
    const id = await workspace();
    const res = await call('editor', 'GET', `/document/${id}`);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain/);
    expect(res.text).toBe('');
  });

  it('saves the body of a PUT without the CRDT header, serves it back and announces DOCUMENT.SAVED', async () => {
    const id = await workspace();
    const watcher = await listen('editor', id);
    const before = Date.now();
    const markdown = '# Lab guide\n\nStart the *router* first.\n';
    const put = await call('creator', 'PUT', `/document/${id}`, markdown);
    expect(put.status).toBe(200);
    expect(put.text).toBe('');
    const got = await call('editor', 'GET', `/document/${id}`);
    expect(got.text).toBe(markdown);
    expect(readFileSync(docFile(id), 'utf8')).toBe(markdown);
    const saved = await watcher.next((e) => e.payload.action === 'DOCUMENT.SAVED');
    expect(saved.name).toBe('DocumentEvent');
    expect(saved.payload.actor).toEqual({ id: await server.userId('creator'), name: 'Creator' });
    expect(saved.payload.model.text).toBe(markdown);
    expect(saved.payload.model.timestamp).toBeGreaterThanOrEqual(before);
    expect(saved.payload.model.timestamp).toBeLessThanOrEqual(Date.now());
  });

  it('stores the Yjs updates of Edited and serves their merge, while relaying them unchanged', async () => {
    const id = await workspace();
    const alice = await listen('creator', id);
    const bob = await listen('editor', id);
    const a = replica(await crdt(id, 'creator'));
    const b = replica(await crdt(id, 'editor'));
    // Concurrent edits at the same place, neither replica having seen the other's.
    const fromA = a.edit((t) => t.insert(0, 'alpha '));
    const fromB = b.edit((t) => t.insert(0, 'bravo '));
    await Promise.all([
      alice.connection.invoke('Edited', id, fromA),
      bob.connection.invoke('Edited', id, fromB),
    ]);
    const relayed = await bob.next((e) => e.payload.action === 'DOCUMENT.UPDATED');
    expect(relayed.payload.model).toEqual(fromA);
    expect(
      (await alice.next((e) => e.payload.action === 'DOCUMENT.UPDATED')).payload.model,
    ).toEqual(fromB);
    const merged = textOf(await crdt(id));
    expect(merged).toContain('alpha ');
    expect(merged).toContain('bravo ');
    // Each replica converges on the server's merge once it has the other's update.
    a.apply(fromB.update);
    b.apply(fromA.update);
    expect(a.text.toString()).toBe(merged);
    expect(b.text.toString()).toBe(merged);
    // The file is written on save only.
    expect(existsSync(docFile(id))).toBe(false);
  });

  it("writes the log's text on a PUT from our SPA, whatever the body", async () => {
    const id = await workspace();
    const client = await listen('editor', id);
    const mine = replica(await crdt(id));
    await client.connection.invoke(
      'Edited',
      id,
      mine.edit((t) => t.insert(0, 'from the log')),
    );
    const put = await call('editor', 'PUT', `/document/${id}`, 'a stale body', {
      'x-document-crdt': 'yjs',
    });
    expect(put.status).toBe(200);
    expect((await call('editor', 'GET', `/document/${id}`)).text).toBe('from the log');
    const saved = await client.next((e) => e.payload.action === 'DOCUMENT.SAVED');
    expect(saved.payload.model.text).toBe('from the log');
  });

  it('reconciles a PUT from a reference client into the log and relays it as a Yjs update', async () => {
    const id = await workspace();
    const client = await listen('editor', id);
    const mine = replica(await crdt(id));
    await client.connection.invoke(
      'Edited',
      id,
      mine.edit((t) => t.insert(0, 'line one\nline two\n')),
    );
    const body = 'line one\nline 2\nline three\n';
    expect((await call('creator', 'PUT', `/document/${id}`, body)).status).toBe(200);
    expect(textOf(await crdt(id))).toBe(body);
    expect((await call('editor', 'GET', `/document/${id}`)).text).toBe(body);
    const updated = await client.next((e) => e.payload.action === 'DOCUMENT.UPDATED');
    expect(updated.payload.model.crdt).toBe('yjs');
    // The open editor reaches the saved text from the relayed update alone.
    mine.apply(updated.payload.model.update);
    expect(mine.text.toString()).toBe(body);
    const saved = await client.next((e) => e.payload.action === 'DOCUMENT.SAVED');
    expect(saved.payload.model.text).toBe(body);
  });

  it('reconciles without splitting a surrogate pair', async () => {
    const id = await workspace();
    // 😀 and 😁 share their first UTF-16 unit.
    expect((await call('editor', 'PUT', `/document/${id}`, 'smile 😀 end')).status).toBe(200);
    expect((await call('editor', 'PUT', `/document/${id}`, 'smile 😁 end')).status).toBe(200);
    expect(textOf(await crdt(id))).toBe('smile 😁 end');
  });

  it('seeds the log from an existing markdown file once, even when asked concurrently', async () => {
    const id = await workspace();
    mkdirSync(join(server.dataDir, 'docs'), { recursive: true });
    writeFileSync(docFile(id), '# Written before the log existed\n');
    const updates = await Promise.all(Array.from({ length: 6 }, () => crdt(id)));
    for (const update of updates) expect(textOf(update)).toBe('# Written before the log existed\n');
    expect(new Set(updates).size).toBe(1);
    const rows = await logRows(id);
    expect(rows.map((r) => r.id)).toEqual([`seed:${id}`]);
  });

  it('compacts a long log into fewer rows and keeps the text', async () => {
    const id = await workspace();
    const client = await listen('editor', id);
    const mine = replica(await crdt(id));
    const count = COMPACT_AFTER_ROWS + 5;
    const changes = Array.from({ length: count }, (_, i) =>
      mine.edit((t) => t.insert(t.length, String(i % 10))),
    );
    await Promise.all(changes.map((c) => client.connection.invoke('Edited', id, c)));
    const rows = await logRows(id);
    expect(rows.length).toBeLessThan(COMPACT_AFTER_ROWS);
    expect(textOf(await crdt(id))).toBe(mine.text.toString());
    expect(mine.text.length).toBe(count);
    // Over 500 edits, each a commit: 14 s on PostgreSQL beside the rest of npm test here, and
    // past the default 20 s on a slower machine.
  }, 60_000);

  it('refuses a malformed Yjs update without storing or relaying it, and relays other payloads without storing them', async () => {
    const id = await workspace();
    const sender = await listen('creator', id);
    const watcher = await listen('editor', id);
    await crdt(id);
    const rows = (await logRows(id)).length;
    await expect(
      sender.connection.invoke('Edited', id, { crdt: 'yjs', update: 'not base64!' }),
    ).rejects.toThrow('InvalidOperation');
    await expect(
      sender.connection.invoke('Edited', id, { crdt: 'yjs', update: b64(Buffer.from('junk')) }),
    ).rejects.toThrow('InvalidOperation');
    const record = { changes: [{ range: {}, text: 'x' }], timestamp: 1 };
    await sender.connection.invoke('Edited', id, record);
    const relayed = await watcher.next((e) => e.payload.action === 'DOCUMENT.UPDATED');
    // The first relay the watcher gets is the reference client's record: the refused ones
    // were not relayed.
    expect(relayed.payload.model).toEqual(record);
    expect((await logRows(id)).length).toBe(rows);
  });

  it('refuses a document longer than the limit and keeps the saved one', async () => {
    const id = await workspace();
    await call('editor', 'PUT', `/document/${id}`, 'kept');
    const res = await call('editor', 'PUT', `/document/${id}`, 'x'.repeat(MAX_DOCUMENT_CHARS + 1));
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/at most 1000000/);
    expect((await call('editor', 'GET', `/document/${id}`)).text).toBe('kept');
    expect(textOf(await crdt(id))).toBe('kept');
  });

  it('lets only workers of the workspace and administrators reach the document', async () => {
    const id = await workspace();
    await call('creator', 'PUT', `/document/${id}`, 'secret answers');
    for (const [method, path, body] of [
      ['GET', `/document/${id}`],
      ['GET', `/document/${id}/crdt`],
      ['PUT', `/document/${id}`, 'defaced'],
    ] as const) {
      const res = await call('player', method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.text).toBe('');
      expect((await call(null, method, path, body)).status).toBe(401);
      expect((await call('admin', method, path, body)).status).toBe(200);
    }
    const unknown = await call('editor', 'GET', '/document/0123456789abcdef0123456789abcdef');
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('ResourceNotFound');
    // The player could not change it; the admin's PUT saved its body.
    expect(readFileSync(docFile(id), 'utf8')).toBe('defaced');
    const player = await connect(server.url, { authorization: `Bearer ${token.player}` });
    clients.push(player);
    await expect(
      player.connection.invoke('Edited', id, { crdt: 'yjs', update: '' }),
    ).rejects.toThrow('ActionForbidden');
  });

  it('stops storing the updates of a collaborator removed from the workspace', async () => {
    const id = await workspace();
    const client = await listen('editor', id);
    const mine = replica(await crdt(id));
    await client.connection.invoke(
      'Edited',
      id,
      mine.edit((t) => t.insert(0, 'kept')),
    );
    const editorId = await server.userId('editor');
    expect((await call('creator', 'DELETE', `/workspace/${id}/worker/${editorId}`)).status).toBe(
      200,
    );
    await expect(
      client.connection.invoke(
        'Edited',
        id,
        mine.edit((t) => t.insert(0, 'refused ')),
      ),
    ).rejects.toThrow('ActionForbidden');
    expect(textOf(await crdt(id, 'creator'))).toBe('kept');
  });

  it('removes the document, its log and its images with the workspace', async () => {
    const id = await workspace();
    await call('editor', 'PUT', `/document/${id}`, 'going away');
    await crdt(id);
    const form = new FormData();
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    form.append('file', new Blob([png]), 'shot.png');
    const upload = await fetch(`${server.url}/api/image/${id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.editor}` },
      body: form,
    });
    expect(upload.status).toBe(200);
    expect((await logRows(id)).length).toBeGreaterThan(0);
    expect((await call('creator', 'DELETE', `/workspace/${id}`)).status).toBe(200);
    expect(existsSync(docFile(id))).toBe(false);
    expect(existsSync(join(server.dataDir, 'docs', id))).toBe(false);
    expect(await logRows(id)).toEqual([]);
  });
});

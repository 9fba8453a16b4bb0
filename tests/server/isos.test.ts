import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EMPTY_GUID, newId } from '../../server/core/ids';
import {
  ISO_SIGNATURE,
  ISO_SIGNATURE_OFFSET,
  WRAPPED_VOLUME_LABEL,
  XORRISO_MISSING,
} from '../../server/core/isos';
import { createAccount } from '../../server/identity';
import { testEngines } from './databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import type { GamespaceTable } from '../../server/store/schema';
import { signIn } from './oidc';

// ISO files through the real server (wire reference §1.1, §1.6, §4.9): streamed uploads into
// isos/{workspace}/, wrapping of other files with xorriso, progress, the workspace's ISO list,
// usage and delete, and the rules that keep partial or misplaced files off the disk.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Reply {
  status: number;
  text: string;
  body: Json;
}

/** Small, so that the size limit is reached with little data. */
const MAX_BYTES = 512 * 1024;

/**
 * A tiny real ISO 9660 image holding one file, readme.txt, labelled TINYISO. Made once with
 * `xorriso -as mkisofs -V TINYISO -no-pad -o tests/fixtures/tiny.iso <folder>`, so that the suite
 * without xorriso needs none either.
 */
const TINY_ISO = readFileSync(join(import.meta.dirname, '../fixtures/tiny.iso'));

const signatureOf = (bytes: Buffer) =>
  bytes.subarray(ISO_SIGNATURE_OFFSET, ISO_SIGNATURE_OFFSET + ISO_SIGNATURE.length).toString();

/** The volume label of an ISO image (primary volume descriptor, bytes 40..72). */
const volumeLabelOf = (bytes: Buffer) =>
  bytes
    .subarray(ISO_SIGNATURE_OFFSET - 1 + 40, ISO_SIGNATURE_OFFSET - 1 + 72)
    .toString()
    .trim();

describe.each(testEngines())('ISO files on %s', (engine) => {
  let server: TestServer;
  const token: Record<string, string> = {};
  let wsId = '';
  let otherWsId = '';

  const isoDir = (folder: string) => join(server.dataDir, 'isos', folder);
  /** Everything in a folder, staging folders included: a failed upload must leave nothing. */
  const entries = (folder: string) =>
    existsSync(isoDir(folder)) ? readdirSync(isoDir(folder)) : [];

  async function call(who: string, method: string, path: string): Promise<Reply> {
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${token[who]}` },
    });
    const text = await res.text();
    let body: Json;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, text, body };
  }

  async function upload(
    who: string,
    meta: string,
    name: string,
    bytes: Buffer | string,
  ): Promise<Reply> {
    const form = new FormData();
    form.append('meta', meta);
    form.append('file', new Blob([bytes]), name);
    const res = await fetch(`${server.url}/api/file/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token[who]}` },
      body: form,
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
  }

  /**
   * A multipart upload written by hand: the head and the first `sent` bytes go out, then
   * `then` decides (finish the body, or destroy the socket). Resolves the status, or 0 when the
   * connection ended without a response.
   */
  function rawUpload(
    meta: string,
    name: string,
    total: number,
    sent: number,
    then: (finish: () => void, destroy: () => void) => Promise<void>,
  ): Promise<number> {
    const boundary = `----topoplay${newId()}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\n\r\n${meta}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    return new Promise((resolve) => {
      // A socket of its own, closed with the request: none is left pooled when the server stops.
      const req = httpRequest(`${server.url}/api/file/upload`, {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${token.editor}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + total + tail.length,
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.write(head);
      req.write(Buffer.alloc(sent, 0x61));
      void then(
        () => {
          req.write(Buffer.alloc(total - sent, 0x61));
          req.end(tail);
        },
        () => {
          req.destroy();
          resolve(0);
        },
      );
    });
  }

  /** Resolves with what `check` answers once it answers more than false. */
  const eventually = <T>(check: () => Promise<T | false>): Promise<T> =>
    vi.waitFor(
      async () => {
        const value = await check();
        if (value === false) throw new Error('timed out waiting');
        return value;
      },
      { timeout: 5_000, interval: 20 },
    );

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { UPLOAD_MAX_BYTES: String(MAX_BYTES) } });
    const db = server.app.store.db;
    await createAccount(db, { username: 'editor', name: 'Eddie Editor', password: SEED_PASSWORD });
    for (const u of ['admin', 'creator', 'player', 'editor']) {
      token[u] = (await signIn(server.url, u, SEED_PASSWORD)).accessToken;
    }
    await call('editor', 'POST', '/user/register');
    const create = async (name: string) => {
      const res = await fetch(`${server.url}/api/workspace`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.creator}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      return ((await res.json()) as Json).id as string;
    };
    wsId = await create('Iso lab');
    otherWsId = await create('Other lab');
    const { code } = (await call('creator', 'PUT', `/workspace/${wsId}/invite`)).body;
    expect((await call('editor', 'POST', `/worker/${code}`)).status).toBe(200);
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('upload', () => {
    it('stores an ISO image as it is, under the name without spaces, and answers true', async () => {
      const res = await upload(
        'editor',
        `size=${TINY_ISO.length}&group-key=${wsId}`,
        'tiny disk.iso',
        TINY_ISO,
      );
      expect(res).toMatchObject({ status: 200, body: true });
      expect(entries(wsId)).toEqual(['tinydisk.iso']);
      expect(readFileSync(join(isoDir(wsId), 'tinydisk.iso')).equals(TINY_ISO)).toBe(true);
    });

    it('wraps another file into an ISO image labelled UploadedFile, named {name}.iso', async () => {
      const text = 'hello from a text file\n';
      const res = await upload(
        'editor',
        `size=${text.length}&group-key=${wsId}`,
        'notes.txt',
        text,
      );
      expect(res).toMatchObject({ status: 200, body: true });
      const stored = readFileSync(join(isoDir(wsId), 'notes.txt.iso'));
      expect(signatureOf(stored)).toBe(ISO_SIGNATURE);
      expect(volumeLabelOf(stored)).toBe(WRAPPED_VOLUME_LABEL);
      expect(stored.includes(Buffer.from(text))).toBe(true);
    });

    it('judges an ISO by its signature, not its name: a fake .iso is wrapped', async () => {
      const res = await upload('editor', `size=4&group-key=${wsId}`, 'fake.iso', 'fake');
      expect(res.status).toBe(200);
      const stored = readFileSync(join(isoDir(wsId), 'fake.iso'));
      expect(signatureOf(stored)).toBe(ISO_SIGNATURE);
      expect(volumeLabelOf(stored)).toBe(WRAPPED_VOLUME_LABEL);
      await call('editor', 'DELETE', `/workspace/${wsId}/iso?path=${wsId}/fake.iso`);
    });

    it('neutralizes path traversal in the file name and in the name field', async () => {
      const a = await upload('editor', `size=4&group-key=${wsId}`, '../../../evil.iso', 'evil');
      expect(a.status).toBe(200);
      const b = await upload(
        'editor',
        `size=4&group-key=${wsId}&name=${encodeURIComponent('..\\..\\x/../sneaky .txt')}`,
        'plain.txt',
        'evil',
      );
      expect(b.status).toBe(200);
      expect(entries(wsId)).toEqual(expect.arrayContaining(['evil.iso', 'sneaky.txt.iso']));
      expect(existsSync(join(server.dataDir, 'evil.iso'))).toBe(false);
      expect(existsSync(join(server.dataDir, 'isos', 'evil.iso'))).toBe(false);
      for (const f of ['evil.iso', 'sneaky.txt.iso']) {
        await call('editor', 'DELETE', `/workspace/${wsId}/iso?path=${wsId}/${f}`);
      }
    });

    it('reports progress under the monitor key while the body streams, then 100', async () => {
      const key = `monitor-${newId()}`;
      expect((await call('editor', 'GET', `/file/progress/${key}`)).body).toBe(-1);
      const total = 200 * 1024;
      let during = -1;
      const status = await rawUpload(
        `size=${total}&group-key=${wsId}&monitor-key=${key}`,
        'progress.bin',
        total,
        total / 2,
        async (finish) => {
          during = await eventually(async () => {
            const p = (await call('editor', 'GET', `/file/progress/${key}`)).body as number;
            return p >= 40 ? p : false;
          });
          finish();
        },
      );
      expect(status).toBe(200);
      expect(during).toBeGreaterThanOrEqual(40);
      expect(during).toBeLessThan(100);
      expect((await call('editor', 'GET', `/file/progress/${key}`)).body).toBe(100);
      expect(entries(wsId)).toContain('progress.bin.iso');
      await call('editor', 'DELETE', `/workspace/${wsId}/iso?path=${wsId}/progress.bin.iso`);
    });

    it('keys progress by "{group-key}-{original name}" without a monitor key', async () => {
      await upload('editor', `size=3&group-key=${wsId}`, 'keyed.txt', 'abc');
      const key = encodeURIComponent(`${wsId}-keyed.txt`);
      expect((await call('editor', 'GET', `/file/progress/${key}`)).body).toBe(100);
      await call('editor', 'DELETE', `/workspace/${wsId}/iso?path=${wsId}/keyed.txt.iso`);
    });

    it('leaves no file behind when the client aborts mid-body', async () => {
      const before = entries(wsId);
      const key = `abort-${newId()}`;
      await rawUpload(
        `size=${200 * 1024}&group-key=${wsId}&monitor-key=${key}`,
        'aborted.bin',
        200 * 1024,
        64 * 1024,
        async (_finish, destroy) => {
          // Once the server has started writing, the client goes away.
          await eventually(async () => {
            const p = (await call('editor', 'GET', `/file/progress/${key}`)).body as number;
            return p > 0 ? p : false;
          });
          destroy();
        },
      );
      await eventually(async () => entries(wsId).length === before.length);
      expect(entries(wsId)).toEqual(before);
    });

    it('refuses a declared size over the limit and leaves no file', async () => {
      const before = entries(wsId);
      const res = await upload('editor', `size=${MAX_BYTES + 1}&group-key=${wsId}`, 'big.iso', 'x');
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^InvalidOperation The file is larger than/);
      expect(entries(wsId)).toEqual(before);
    });

    it('refuses a body that streams past the limit and leaves no file', async () => {
      const before = entries(wsId);
      // No declared size: the stream itself is counted.
      const status = await rawUpload(
        `group-key=${wsId}`,
        'huge.bin',
        MAX_BYTES + 64 * 1024,
        0,
        async (finish) => finish(),
      );
      expect([0, 400]).toContain(status);
      await eventually(async () => entries(wsId).length === before.length);
      expect(entries(wsId)).toEqual(before);
    });

    it('refuses a body larger than its declared size and leaves no file', async () => {
      const before = entries(wsId);
      const res = await upload('editor', `size=10&group-key=${wsId}`, 'liar.txt', 'x'.repeat(100));
      expect(res.status).toBe(400);
      expect(entries(wsId)).toEqual(before);
    });

    it('refuses a workspace the actor cannot edit (403) and leaves nothing', async () => {
      const res = await upload('player', `size=4&group-key=${wsId}`, 'intruder.iso', 'nope');
      expect(res.status).toBe(403);
      expect(res.text).toBe('');
      const other = await upload('editor', `size=4&group-key=${otherWsId}`, 'x.iso', 'nope');
      expect(other.status).toBe(403);
      expect(entries(otherWsId)).toEqual([]);
    });

    it('lets only administrators upload to the public folder (the reference lets anyone)', async () => {
      const anon = await upload('editor', 'size=4', 'public.txt', 'data');
      expect(anon.status).toBe(403);
      const zero = await upload('editor', `size=4&group-key=${EMPTY_GUID}`, 'public.txt', 'data');
      expect(zero.status).toBe(403);
      expect(entries(EMPTY_GUID)).toEqual([]);
      const admin = await upload('admin', `size=${TINY_ISO.length}`, 'stock.iso', TINY_ISO);
      expect(admin).toMatchObject({ status: 200, body: true });
      expect(entries(EMPTY_GUID)).toEqual(['stock.iso']);
    });

    it('answers 400 ResourceNotFound for an unknown workspace', async () => {
      const res = await upload('admin', `size=4&group-key=${newId()}`, 'x.iso', 'data');
      expect(res).toMatchObject({ status: 400, body: { message: 'ResourceNotFound' } });
    });

    it('needs authentication', async () => {
      const res = await fetch(`${server.url}/api/file/upload`, { method: 'POST' });
      expect(res.status).toBe(401);
    });
  });

  describe('the workspace ISO list', () => {
    it('answers VmOptions: the workspace and public ISOs as relative paths, net null', async () => {
      const res = await call('editor', 'GET', `/workspace/${wsId}/isos`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        iso: [`${EMPTY_GUID}/stock.iso`, `${wsId}/notes.txt.iso`, `${wsId}/tinydisk.iso`].sort(),
        net: null,
      });
    });

    it('filters by term (any case) and by local (paths containing the workspace id)', async () => {
      const term = await call('editor', 'GET', `/workspace/${wsId}/isos?term=NOTES`);
      expect(term.body.iso).toEqual([`${wsId}/notes.txt.iso`]);
      const local = await call('editor', 'GET', `/workspace/${wsId}/isos?local=true&refresh=true`);
      expect(local.body.iso).toEqual([`${wsId}/notes.txt.iso`, `${wsId}/tinydisk.iso`]);
      const both = await call('editor', 'GET', `/workspace/${wsId}/isos?term=stock&local=true`);
      expect(both.body.iso).toEqual([]);
    });

    it('is for editors of the workspace (403 otherwise)', async () => {
      const res = await call('player', 'GET', `/workspace/${wsId}/isos`);
      expect(res.status).toBe(403);
      expect((await call('admin', 'GET', `/workspace/${wsId}/isos`)).status).toBe(200);
    });

    it('answers 400 ResourceNotFound for an unknown workspace', async () => {
      const res = await call('editor', 'GET', `/workspace/${newId()}/isos`);
      expect(res.status).toBe(400);
    });
  });

  describe('usage and delete', () => {
    it('lists templates mounting the ISO and the active gamespaces of their workspace', async () => {
      const db = server.app.store.db;
      const path = `${wsId}/tinydisk.iso`;
      const templateId = newId();
      await db
        .insertInto('templates')
        .values({
          id: templateId,
          name: 'kali',
          description: '',
          audience: '',
          iso: path,
          networks: '',
          guestinfo: '',
          isHidden: 0,
          isPublished: 0,
          isLinked: 0,
          detail: null,
          parentId: null,
          replicas: 1,
          variant: 0,
          workspaceId: wsId,
          whenCreated: Date.now(),
        })
        .execute();
      const now = Date.now();
      const game = (id: string, name: string, endTime: number): GamespaceTable => ({
        id,
        name,
        managerId: 'm',
        managerName: 'M',
        graderKey: '',
        whenCreated: now,
        startTime: now - 1000,
        endTime,
        expirationTime: now + 3_600_000,
        cleanupGraceMinutes: 0,
        cleaned: 0,
        allowReset: 0,
        challenge: '',
        workspaceId: wsId,
        variant: 0,
        playerCount: 1,
      });
      const activeId = newId();
      await db
        .insertInto('gamespaces')
        .values([game(activeId, 'running game', 0), game(newId(), 'ended game', now)])
        .execute();

      const res = await call('editor', 'GET', `/workspace/${wsId}/iso-usage?path=${path}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        templates: [{ id: templateId, name: 'kali', workspaceName: 'Iso lab' }],
        activeGamespaces: [{ id: activeId, name: 'running game' }],
      });
      const unused = await call(
        'editor',
        'GET',
        `/workspace/${wsId}/iso-usage?path=${wsId}/notes.txt.iso`,
      );
      expect(unused.body).toEqual({ templates: [], activeGamespaces: [] });
    });

    it('answers usage only for the workspace folder; the public one for administrators', async () => {
      const publicPath = `${EMPTY_GUID}/stock.iso`;
      expect(
        (await call('editor', 'GET', `/workspace/${wsId}/iso-usage?path=${publicPath}`)).status,
      ).toBe(403);
      expect(
        (await call('editor', 'GET', `/workspace/${EMPTY_GUID}/iso-usage?path=${publicPath}`))
          .status,
      ).toBe(403);
      expect(
        (await call('admin', 'GET', `/workspace/${EMPTY_GUID}/iso-usage?path=${publicPath}`)).body,
      ).toEqual({ templates: [], activeGamespaces: [] });
      expect(
        (await call('player', 'GET', `/workspace/${wsId}/iso-usage?path=${wsId}/tinydisk.iso`))
          .status,
      ).toBe(403);
    });

    it('deletes only inside the workspace folder, and editors only', async () => {
      const path = `${wsId}/notes.txt.iso`;
      expect((await call('player', 'DELETE', `/workspace/${wsId}/iso?path=${path}`)).status).toBe(
        403,
      );
      const elsewhere = `/workspace/${wsId}/iso?path=${EMPTY_GUID}/stock.iso`;
      expect((await call('editor', 'DELETE', elsewhere)).status).toBe(403);
      const traversal = `/workspace/${wsId}/iso?path=${encodeURIComponent(`${wsId}/../${EMPTY_GUID}/stock.iso`)}`;
      expect((await call('editor', 'DELETE', traversal)).status).toBe(403);
      expect(entries(EMPTY_GUID)).toEqual(['stock.iso']);

      const res = await call('editor', 'DELETE', `/workspace/${wsId}/iso?path=${path}`);
      expect(res).toMatchObject({ status: 200, body: true });
      expect(entries(wsId)).not.toContain('notes.txt.iso');
      expect((await call('editor', 'DELETE', `/workspace/${wsId}/iso?path=${path}`)).status).toBe(
        404,
      );
    });

    it('deletes public ISOs for administrators only', async () => {
      const path = `${EMPTY_GUID}/stock.iso`;
      expect(
        (await call('editor', 'DELETE', `/workspace/${EMPTY_GUID}/iso?path=${path}`)).status,
      ).toBe(403);
      expect(
        (await call('admin', 'DELETE', `/workspace/${EMPTY_GUID}/iso?path=${path}`)).status,
      ).toBe(200);
      expect(entries(EMPTY_GUID)).toEqual([]);
    });
  });
});

describe('ISO uploads on a server without xorriso', () => {
  let server: TestServer;
  let creatorToken = '';
  let wsId = '';

  beforeAll(async () => {
    server = await startTestServer({
      // A limit above any disk, so that the free-space rule is what refuses a huge declared size.
      env: { XORRISO: '/nonexistent/xorriso', UPLOAD_MAX_BYTES: String(2 ** 52) },
    });
    creatorToken = (await signIn(server.url, 'creator', SEED_PASSWORD)).accessToken;
    const res = await fetch(`${server.url}/api/workspace`, {
      method: 'POST',
      headers: { authorization: `Bearer ${creatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bare lab' }),
    });
    wsId = ((await res.json()) as Json).id;
  });
  afterAll(async () => {
    await server?.close();
  });

  const files = () => {
    const dir = join(server.dataDir, 'isos', wsId);
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  const upload = async (meta: string, name: string, bytes: Buffer | string) => {
    const form = new FormData();
    form.append('meta', meta);
    form.append('file', new Blob([bytes]), name);
    const res = await fetch(`${server.url}/api/file/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${creatorToken}` },
      body: form,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  it('refuses a non-ISO file with a clear message and leaves nothing', async () => {
    const res = await upload(`size=4&group-key=${wsId}`, 'a.txt', 'data');
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(`InvalidOperation ${XORRISO_MISSING}`);
    expect(files()).toEqual([]);
  });

  it('still stores real ISO images', async () => {
    const res = await upload(`size=${TINY_ISO.length}&group-key=${wsId}`, 'bare.iso', TINY_ISO);
    expect(res).toMatchObject({ status: 200, body: true });
    expect(files()).toEqual(['bare.iso']);
  });

  it('refuses an upload that would leave less free disk space than the margin', async () => {
    const res = await upload(`size=${2 ** 50}&group-key=${wsId}`, 'vast.iso', 'data');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/not enough free disk space/);
    expect(files()).toEqual(['bare.iso']);
  });
});

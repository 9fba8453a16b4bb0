import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiKey } from './hubClients';
import { labServer } from './security/lab';
import { decodePng, expectedThumbnail } from './thumbnails/pngDecode';
import { openScreenViewer } from './thumbnails/viewer';

// GET /api/vm/{id}/thumbnail on the real server with the sim driver: the thumbnail is the
// machine's real screen (compared with what a console viewer of the same machine receives), one
// capture serves every watcher, If-None-Match gets 304, and only administrators and observers of
// the gamespace's audience may watch.

type Lab = Awaited<ReturnType<typeof labServer>>;

describe('console thumbnails', () => {
  let lab: Lab;
  let observer: Record<string, string>;
  let opens: ReturnType<typeof vi.fn>;

  const thumbnail = (who: Record<string, string>, id: string, etag?: string) =>
    fetch(`${lab.server.url}/api/vm/${id}/thumbnail`, {
      headers: { ...who, ...(etag ? { 'if-none-match': etag } : {}) },
    });

  /** The thumbnail once it has a picture: a new capture may answer 204 at first. */
  const picture = async (who: Record<string, string>, id: string) => {
    let reply: Response | undefined;
    await vi.waitFor(
      async () => {
        reply = await thumbnail(who, id);
        expect(reply.status).toBe(200);
      },
      { timeout: 10_000, interval: 100 },
    );
    return reply!;
  };

  beforeAll(async () => {
    lab = await labServer({});
    const db = lab.server.app.store.db;
    // The lab's workspace is for audience `alpha`: the observer of scope alpha reaches it, the
    // creator (an observer too, of no scope) does not.
    const game = await db
      .selectFrom('gamespaces')
      .select('workspaceId')
      .where('id', '=', lab.gameId)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('workspaces')
      .set({ audience: 'alpha' })
      .where('id', '=', game.workspaceId!)
      .execute();
    await db
      .updateTable('users')
      .set({ scope: 'alpha' })
      .where('id', '=', await lab.server.userId('observer'))
      .execute();
    observer = apiKey(await lab.server.apiKeyFor('observer'));
    const driver = lab.server.app.driver;
    const open = driver.openConsole!.bind(driver);
    opens = vi.fn(open);
    driver.openConsole = opens as typeof driver.openConsole;
  });

  afterAll(async () => {
    await lab?.server.close();
  });

  it("shows the machine's screen, shared by every watcher, and follows its changes", async () => {
    const { vmId, keys } = lab;
    const [first, second] = await Promise.all([
      picture(keys.admin!, vmId),
      picture(observer, vmId),
    ]);
    // Two watchers, one capture: the driver opened one console.
    expect(opens).toHaveBeenCalledTimes(1);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(second.headers.get('etag')).toBe(etag);
    const png = decodePng(Buffer.from(await first.arrayBuffer()));
    expect([png.width, png.height]).toEqual([320, 192]);

    // What a real console viewer of the machine sees, shrunk, is the thumbnail. The player's own
    // console: an administrator's is view-only until they take control.
    const viewer = await openScreenViewer(await lab.consoleUrl('player'));
    try {
      await viewer.refresh();
      const shrunk = () =>
        Buffer.from(expectedThumbnail(viewer.pixels, viewer.width, viewer.height, 320, 192));
      expect(Buffer.from(png.rgb).equals(shrunk())).toBe(true);

      // Unchanged: 304, with the tag again.
      const unchanged = await thumbnail(keys.admin!, vmId, etag);
      expect(unchanged.status).toBe(304);
      expect(unchanged.headers.get('etag')).toBe(etag);
      expect(await unchanged.text()).toBe('');
      expect((await thumbnail(keys.admin!, vmId, `W/${etag}, "other"`)).status).toBe(304);

      // A change on the screen comes as a new picture, still the screen the viewer sees.
      viewer.type('echo wall\n');
      await vi.waitFor(
        async () => {
          const reply = await thumbnail(keys.admin!, vmId, etag);
          expect(reply.status).toBe(200);
          expect(reply.headers.get('etag')).not.toBe(etag);
          await viewer.refresh();
          const changed = decodePng(Buffer.from(await reply.arrayBuffer()));
          expect(Buffer.from(changed.rgb).equals(shrunk())).toBe(true);
        },
        { timeout: 15_000, interval: 200 },
      );
    } finally {
      await viewer.close();
    }
    // Still the one capture (and the viewer's own console).
    expect(opens).toHaveBeenCalledTimes(2);
  });

  it('refuses players and observers out of the audience', async () => {
    const { vmId, keys } = lab;
    expect((await thumbnail(keys.player!, vmId)).status).toBe(403);
    expect((await thumbnail(keys.creator!, vmId)).status).toBe(403);
    expect((await thumbnail({}, vmId)).status).toBe(401);
  });

  it('answers an unknown machine as the other vm routes do', async () => {
    const unknown = 'f'.repeat(32);
    const admin = await thumbnail(lab.keys.admin!, unknown);
    expect(admin.status).toBe(400);
    expect(await admin.json()).toEqual({ message: 'ResourceNotFound' });
    expect((await thumbnail(observer, unknown)).status).toBe(403);
  });

  it('answers 204 for a machine that is not running', async () => {
    const { vmId, call } = lab;
    const stopped = await call('admin', 'PUT', '/vm', { id: vmId, type: 'stop' });
    expect(stopped.status, stopped.text).toBe(200);
    await vi.waitFor(
      async () => {
        const reply = await thumbnail(observer, vmId);
        expect(reply.status).toBe(204);
        expect(reply.headers.get('etag')).toBeNull();
      },
      { timeout: 10_000, interval: 100 },
    );
  });
});

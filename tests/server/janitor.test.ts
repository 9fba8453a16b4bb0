import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toVmTemplate } from '../../server/core/templates';
import { EMPTY_GUID, newId } from '../../server/core/ids';
import {
  createJanitor,
  DEFAULT_JANITOR_OPTIONS,
  JANITOR_LOCK_RETRY_MS,
} from '../../server/core/janitor';
import type { GamespaceTable } from '../../server/store/schema';
import { testEngines } from './databases';
import { startTestServer, type TestServer } from './harness';
import { apiKey, connect } from './hubClients';
import { gamespaceSpec, insertGamespace, insertWorkspace } from './gradingFixtures';
import { createManualClock } from './manualClock';
import { toMachineSpec } from '../../server/core/machineSpecs';

// The janitor (wire reference §4.6, §1.8): expiry plus grace ends gamespaces, ended ones lose
// their machines once, idle workspace machines and forgotten workspaces are reported.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe.each(testEngines())('janitor on %s', (engine) => {
  let server: TestServer;
  const keys: Record<string, string> = {};
  let managerId = '';

  beforeAll(async () => {
    // Game states are kept 10 s here: a page that sees the janitor's change at once was told.
    server = await startTestServer({ engine, env: { SIM_SPEED: '0', STATE_CACHE_MS: '10000' } });
    for (const u of ['admin', 'player']) keys[u] = await server.apiKeyFor(u);
    managerId = await server.userId('player');
  });
  afterAll(() => server?.close());

  const db = () => server.app.store.db;

  const machine = (name: string, tag: string) =>
    server.app.driver.deploy(
      toMachineSpec(
        toVmTemplate({
          Name: name,
          IsolationTag: tag,
          AutoStart: false,
          Eth: [{ Net: 'lan', Type: 'e1000' }],
          Disks: [{ Path: `[ds] ${EMPTY_GUID}/${name}.vmdk`, Source: '' }],
        }),
      ),
      false,
    );
  const machines = async (tag: string) =>
    (await server.app.driver.find(tag)).filter((vm) => vm.name.endsWith(`#${tag}`));

  const gamespace = async (row: Partial<GamespaceTable>) =>
    (await insertGamespace(db(), { workspaceId: null, managerId, spec: gamespaceSpec(), row })).id;
  const rowOf = (id: string) =>
    db().selectFrom('gamespaces').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  const janitor = async (key: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api/admin/janitor`, {
      method: 'POST',
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? (JSON.parse(text) as Json) : null };
  };

  it('is for administrators only', async () => {
    expect(await janitor(keys.player!)).toMatchObject({ status: 403, text: '' });
  });

  it('ends gamespaces past expiration plus grace and deletes the machines of ended ones once', async () => {
    const now = Date.now();
    const expired = await gamespace({ expirationTime: now - 10 * MINUTE, cleanupGraceMinutes: 5 });
    const inGrace = await gamespace({ expirationTime: now - MINUTE, cleanupGraceMinutes: 5 });
    const completed = await gamespace({ endTime: now - MINUTE });
    const alreadyCleaned = await gamespace({ endTime: now - MINUTE, cleaned: 1 });
    for (const id of [expired, inGrace, completed, alreadyCleaned]) await machine('kali', id);

    const res = await janitor(keys.admin!);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);

    const ended = await rowOf(expired);
    expect(ended.endTime).toBe(ended.expirationTime);
    expect(ended.cleaned).toBe(1);
    expect(await machines(expired)).toHaveLength(0);
    expect((await rowOf(inGrace)).endTime).toBe(0);
    expect(await machines(inGrace)).toHaveLength(1);
    expect((await rowOf(completed)).cleaned).toBe(1);
    expect(await machines(completed)).toHaveLength(0);
    // Cleaned before: its machines are not looked at again.
    expect(await machines(alreadyCleaned)).toHaveLength(1);

    // A second run finds nothing more to delete for the ended one.
    await machine('kali', expired);
    await janitor(keys.admin!);
    expect(await machines(expired)).toHaveLength(1);
  });

  it("tells an ended game's players at once, and their pages show it ended without its machines", async () => {
    const id = await gamespace({
      startTime: Date.now() - 70 * MINUTE,
      expirationTime: Date.now() - 10 * MINUTE,
      cleanupGraceMinutes: 5,
    });
    await machine('kali', id);
    const page = async () => {
      const res = await fetch(`${server.url}/api/gamespace/${id}`, {
        headers: apiKey(keys.player!),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Json;
    };
    expect((await page()).endTime).toMatch(/^0001-/);
    const client = await connect(server.url, apiKey(keys.player!));
    try {
      await client.connection.invoke('Listen', id);
      expect((await janitor(keys.admin!)).status).toBe(200);
      const update = await client.next(
        (e) => e.name === 'GameEvent' && e.payload.action === 'GAME.UPDATE',
      );
      expect(update.payload.model).toMatchObject({ id, isActive: false, vms: [] });
      const after = await page();
      expect(after.endTime).not.toMatch(/^0001-/);
      expect(after.isActive).toBe(false);
    } finally {
      await client.stop();
    }
  });

  it('reports idle workspace machines (dry run by default) and forgotten workspaces', async () => {
    const now = Date.now();
    const idle = await insertWorkspace(db(), 'everyone', gamespaceSpec());
    const unpublished = await insertWorkspace(db(), '', gamespaceSpec());
    const inactive = await insertWorkspace(db(), 'everyone', gamespaceSpec());
    const set = (id: string, values: { lastActivity: number; isPublished?: 0 | 1 }) =>
      db().updateTable('workspaces').set(values).where('id', '=', id).execute();
    await set(idle, { lastActivity: now - 1.5 * DAY });
    await set(unpublished, { lastActivity: now - 8 * DAY, isPublished: 0 });
    await set(inactive, { lastActivity: now - 400 * DAY, isPublished: 1 });
    await db()
      .insertInto('workers')
      .values({ subjectId: newId(), workspaceId: idle, subjectName: 'Owner', permission: 255 })
      .execute();
    await machine('builder', idle);

    const report = (await janitor(keys.admin!)).body as Json[];
    expect(report).toContainEqual({
      id: idle,
      name: 'Lab everyone',
      reason: 'IdleWorkspaceVms',
      age: new Date(now - 1.5 * DAY).toISOString().replace('Z', '+00:00'),
      ownerName: 'Owner',
      vmCount: 1,
    });
    expect(report).toContainEqual(
      expect.objectContaining({ id: unpublished, reason: 'UnpublishedWorkspace', vmCount: 0 }),
    );
    expect(report).toContainEqual(
      expect.objectContaining({ id: inactive, reason: 'InactiveWorkspace', ownerName: 'author' }),
    );
    expect(await machines(idle)).toHaveLength(1);

    const shorter = await janitor(keys.admin!, { idleWorkspaceVmsExpiration: '1h' });
    expect(shorter.body!.some((r: Json) => r.id === idle)).toBe(false);

    await janitor(keys.admin!, { dryRun: false });
    expect(await machines(idle)).toHaveLength(0);
    // Workspaces themselves are never deleted.
    expect(
      await db().selectFrom('workspaces').select('id').where('id', '=', inactive).execute(),
    ).toHaveLength(1);
  });

  it('refuses a malformed timespan', async () => {
    const res = await janitor(keys.admin!, { inactiveWorkspaceExpiration: 'soon' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('inactiveWorkspaceExpiration');
  });

  it('lets one of several janitors work at a time, so machines are deleted once', async () => {
    const id = await gamespace({ endTime: Date.now() - MINUTE });
    await machine('kali', id);
    const deletes: string[] = [];
    // The janitor that deletes first holds the lock until each of the three has tried to take it.
    let lockTries = 0;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const cache = {
      ...server.app.cache,
      setIfAbsent(key: string, value: string, ttlMs: number) {
        lockTries += 1;
        return server.app.cache.setIfAbsent(key, value, ttlMs);
      },
    };
    const driver = {
      machinesOf: (tag: string) => server.app.driver.machinesOf(tag),
      find: (term: string) => server.app.driver.find(term),
      deleteAll: async (term: string) => {
        deletes.push(term);
        await held;
        return server.app.driver.deleteAll(term);
      },
    };
    const log = { info() {}, warn() {} };
    // The two that find the lock taken try again JANITOR_LOCK_RETRY_MS later on this clock.
    const clock = createManualClock();
    const janitors = [1, 2, 3].map(() =>
      createJanitor({ repositories: server.app.app.repositories, driver, cache, log, clock }),
    );
    let finished = false;
    const runs = Promise.all(janitors.map((j) => j.run(DEFAULT_JANITOR_OPTIONS))).finally(
      () => (finished = true),
    );
    await vi.waitFor(() => expect(lockTries).toBeGreaterThanOrEqual(3));
    release();
    await expect
      .poll(() => {
        clock.advance(JANITOR_LOCK_RETRY_MS);
        return finished;
      })
      .toBe(true);
    await runs;
    await Promise.all(janitors.map((j) => j.tick()));
    expect(deletes.filter((d) => d === id)).toEqual([id]);
  });

  it("removes the driver's orphans with each run and logs how many", async () => {
    let orphans = 2;
    const removeOrphans = vi.fn(async () => {
      const removed = orphans;
      orphans = 0;
      return removed;
    });
    const infos: Array<{ obj: object; msg: string }> = [];
    const log = { info: (obj: object, msg: string) => infos.push({ obj, msg }), warn() {} };
    const janitor = createJanitor({
      repositories: server.app.app.repositories,
      // The sim driver has nothing to orphan: a qemu host's removal stands in for it here.
      driver: { ...server.app.driver, removeOrphans },
      cache: server.app.cache,
      log,
    });

    await janitor.run(DEFAULT_JANITOR_OPTIONS);
    expect(removeOrphans).toHaveBeenCalledTimes(1);
    expect(infos).toEqual([{ obj: { orphans: 2 }, msg: 'janitor: removed orphan machines' }]);

    // The background run asks again; with none left there is nothing to tell.
    await janitor.tick();
    expect(removeOrphans).toHaveBeenCalledTimes(2);
    expect(infos).toHaveLength(1);
  });

  it('still cleans ended gamespaces when removing orphans fails, and says why', async () => {
    const id = await gamespace({ endTime: Date.now() - MINUTE });
    await machine('kali', id);
    const warnings: Array<{ obj: Json; msg: string }> = [];
    const janitor = createJanitor({
      repositories: server.app.app.repositories,
      driver: {
        ...server.app.driver,
        removeOrphans: () => Promise.reject(new Error('the process table is unreadable')),
      },
      cache: server.app.cache,
      log: { info() {}, warn: (obj: Json, msg: string) => warnings.push({ obj, msg }) },
    });

    await janitor.run(DEFAULT_JANITOR_OPTIONS);
    expect(await machines(id)).toHaveLength(0);
    expect((await rowOf(id)).cleaned).toBe(1);
    expect(warnings).toEqual([
      {
        obj: { err: expect.objectContaining({ message: 'the process table is unreadable' }) },
        msg: 'janitor: removing orphan machines failed',
      },
    ]);
  });

  it('reports machines under a tag that is no workspace or gamespace, and removes them after the grace', async () => {
    const stray = newId();
    const workspaceId = await insertWorkspace(db(), 'everyone', gamespaceSpec());
    await machine('kali', stray);
    await machine('kali', workspaceId);
    const clock = createManualClock();
    const janitor = createJanitor({
      repositories: server.app.app.repositories,
      driver: server.app.driver,
      cache: server.app.cache,
      log: { info() {}, warn() {} },
      clock,
      orphanGraceMs: 10 * MINUTE,
    });

    // A dry run reports them; a run before the grace is over keeps them.
    const report = await janitor.run(DEFAULT_JANITOR_OPTIONS);
    expect(report.filter((r) => r.id === stray)).toEqual([
      expect.objectContaining({ reason: 'OrphanedVms', name: 'kali', vmCount: 1, ownerName: '' }),
    ]);
    expect(report.some((r) => r.id === workspaceId)).toBe(false);
    await janitor.tick();
    expect(await machines(stray)).toHaveLength(1);

    clock.advance(11 * MINUTE);
    await janitor.tick();
    expect(await machines(stray)).toEqual([]);
    expect(await machines(workspaceId)).toHaveLength(1);
  });
});

describe('janitor in the background', () => {
  let server: TestServer;
  afterAll(() => server?.close());

  it('starts on its own when enabled and ends expired gamespaces', async () => {
    // Its runs come when this clock says so: the first at once, then every second of it.
    const clock = createManualClock();
    server = await startTestServer({
      env: { JANITOR_ENABLED: 'true', JANITOR_START_SECONDS: '0', JANITOR_INTERVAL_SECONDS: '1' },
      clock,
    });
    const managerId = await server.userId('player');
    const { id } = await insertGamespace(server.app.store.db, {
      workspaceId: null,
      managerId,
      row: { expirationTime: Date.now() - MINUTE },
    });
    const read = () =>
      server.app.store.db
        .selectFrom('gamespaces')
        .select(['endTime', 'expirationTime', 'cleaned'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const row = await vi.waitFor(
      async () => {
        clock.advance(1_000);
        const row = await read();
        expect(row).toMatchObject({ cleaned: 1 });
        return row;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(row.endTime).toBe(row.expirationTime);
  });
});

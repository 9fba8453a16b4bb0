import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../server/app';
import { POOL_LOCK_TTL_MS } from '../../server/core/pools/keeper';
import { MAX_POOL_SIZE } from '../../src/domain/pools';
import { newId } from '../../server/core/ids';
import { guestSettingsOf } from '../../server/hypervisor/sim/machine';
import { testEngines } from './databases';
import { startTestServer, type TestServer } from './harness';
import { apiKey } from './hubClients';
import { createManualClock } from './manualClock';

// Warm pools through two real servers on one database and the sim driver: an administrator
// sizes a workspace's pool, the keeper deploys its sets, launches claim them (a set to one launch
// only, the rest deploying as without a pool), the keeper refills, and a template change drains
// the sets made from the old templates. The claimed machines carry the gamespace's own guest
// settings.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const CHALLENGE = {
  text: 'Find the flag.',
  transforms: [{ key: 'flag', value: 'hex:12' }],
  // The challenge ISO goes on `web`, in pooled sets and launches alike.
  variants: [
    {
      text: 'The flag is in the guest.',
      sections: [],
      iso: { file: 'challenge.iso', targets: 'web', manifest: [] },
    },
  ],
};

describe.each(testEngines())('warm pools on %s', (engine) => {
  let server: TestServer;
  let second: App;
  let secondUrl = '';
  let workspaceId = '';
  let templateId = '';
  const headers: Record<string, Record<string, string>> = {};

  async function call(
    who: string,
    method: string,
    path: string,
    body?: unknown,
    url = server.url,
  ): Promise<{ status: number; body: Json; text: string }> {
    const res = await fetch(`${url}/api${path}`, {
      method,
      headers:
        body === undefined
          ? headers[who]!
          : { ...headers[who]!, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
  }
  const ok = async (reply: Promise<{ status: number; body: Json; text: string }>) => {
    const r = await reply;
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  const pool = () => ok(call('admin', 'GET', `/admin/pools/${workspaceId}`));
  const sets = () =>
    server.app.store.db
      .selectFrom('poolSets')
      .selectAll()
      .where('workspaceId', '=', workspaceId)
      .execute();

  /** A launch of the workspace for a player of its own, by the registrar. */
  const launch = (player: string, url = server.url) =>
    call(
      'registrar',
      'POST',
      '/gamespace',
      {
        resourceId: workspaceId,
        startGamespace: true,
        players: [{ subjectId: player, subjectName: player }],
      },
      url,
    );

  /** Holds every server's keeper off the workspace, as a keeper elsewhere holding its lock. */
  const holdKeepers = (held: boolean) =>
    Promise.all(
      [server.app.cache, second.cache].map((cache) =>
        held
          ? cache.set(`pool:lock:${workspaceId}`, 'test', POOL_LOCK_TTL_MS)
          : cache.delete(`pool:lock:${workspaceId}`),
      ),
    );

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    // The second server's keeper never ticks on its own (its clock stands still): with memory
    // caches the two servers share no lock, and a tick of each at once could warm a set too many.
    // Its launches claim and deploy all the same (SIM_SPEED 0 waits on no clock).
    second = await buildApp(server.app.config, { logger: false, clock: createManualClock() });
    await second.app.listen({ port: 0, host: '127.0.0.1' });
    secondUrl = `http://127.0.0.1:${(second.app.server.address() as AddressInfo).port}`;
    const db = server.app.store.db;
    // A service account that registers players (Gameboard's): not a builder, so its launches
    // take pooled sets.
    const registrarId = await server.userId('player');
    await db
      .updateTable('users')
      .set({ registrar: 1, gamespaceLimit: 0 })
      .where('id', '=', registrarId)
      .execute();
    headers.registrar = apiKey(await server.apiKeyFor('player'));
    headers.admin = apiKey(await server.apiKeyFor('admin'));
    headers.creator = apiKey(await server.apiKeyFor('creator'));

    const ws = await ok(
      call('creator', 'POST', '/workspace', { name: 'Pooled Lab', audience: 'everyone' }),
    );
    workspaceId = ws.id;
    await ok(call('creator', 'PUT', `/challenge/${workspaceId}`, CHALLENGE));
    templateId = newId();
    for (const [id, name, guestinfo] of [
      [templateId, 'web', 'flag=##flag##\nrole=web'],
      [newId(), 'db', 'role=db'],
    ] as const) {
      await db
        .insertInto('templates')
        .values({
          id,
          name,
          description: '',
          audience: '',
          iso: '',
          networks: 'lan',
          guestinfo,
          isHidden: 0,
          isPublished: 0,
          isLinked: 0,
          detail: null,
          parentId: null,
          replicas: 1,
          variant: 0,
          workspaceId,
          whenCreated: Date.now(),
        })
        .execute();
    }
  }, 60_000);

  afterAll(async () => {
    await second?.close();
    await server?.close();
  });

  it('answers the pool routes to administrators only', async () => {
    for (const who of ['registrar', 'creator']) {
      expect((await call(who, 'GET', '/admin/pools')).status).toBe(403);
      expect((await call(who, 'PUT', `/admin/pools/${workspaceId}`, { size: 1 })).status).toBe(403);
    }
    expect(await pool()).toMatchObject({
      workspaceName: 'Pooled Lab',
      size: 0,
      ready: 0,
      warming: 0,
      misses: 0,
    });
    // The admin area's rule: a few hundred sets, for a synchronized start of that many teams.
    expect(MAX_POOL_SIZE).toBeGreaterThanOrEqual(200);
    const refused = await call('admin', 'PUT', `/admin/pools/${workspaceId}`, {
      size: MAX_POOL_SIZE + 1,
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(`must be at most ${MAX_POOL_SIZE}`);
  });

  it('keeps the pool at its size with sets deployed under their own tags', async () => {
    const view = await ok(call('admin', 'PUT', `/admin/pools/${workspaceId}`, { size: 10 }));
    expect(view).toMatchObject({ workspaceName: 'Pooled Lab', size: 10 });
    await expect.poll(async () => (await pool()).ready, { timeout: 20_000 }).toBe(10);
    const ready = await sets();
    expect(ready).toHaveLength(10);
    for (const set of ready) {
      const machines = await server.app.driver.machinesOf(set.id);
      expect(machines.map((m) => m.name)).toEqual([`db#${set.id}`, `web#${set.id}`]);
      expect(machines[1]!.nics.map((n) => n.network)).toEqual([`lan#${set.id}`]);
      const web = await server.app.store.db
        .selectFrom('vms')
        .select('iso')
        .where('name', '=', `web#${set.id}`)
        .executeTakeFirstOrThrow();
      expect(web.iso).toContain('challenge.iso');
    }
    const listed = await ok(call('admin', 'GET', '/admin/pools'));
    // Each pool names its workspace, so that the dashboard need not load the workspaces.
    expect(listed.find((p: Json) => p.workspaceId === workspaceId)).toMatchObject({
      workspaceName: 'Pooled Lab',
      ready: 10,
    });
  });

  it('hands each of 10 ready sets to one of 40 launches on two servers; 30 deploy', async () => {
    // No refill during the burst: what is claimed is exactly what was ready.
    await holdKeepers(true);
    const before = new Set((await sets()).map((s) => s.id));
    const states = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        ok(launch(`player-${i}`, i % 2 ? secondUrl : server.url)),
      ),
    );
    expect(new Set(states.map((s) => s.id)).size).toBe(40);
    const claimed = (await sets()).filter((s) => s.state === 'claimed');
    expect(claimed).toHaveLength(10);
    expect(new Set(claimed.map((s) => s.claimedBy)).size).toBe(10);
    expect(claimed.every((s) => before.has(s.id))).toBe(true);
    // Every launch has its two machines, under its own id, whichever way they came.
    for (const state of states) {
      expect(state.isActive).toBe(true);
      const machines = await server.app.driver.machinesOf(state.id);
      expect(machines.map((m) => m.name)).toEqual([`db#${state.id}`, `web#${state.id}`]);
      expect(machines.map((m) => m.nics[0]!.network)).toEqual([
        `lan#${state.id}`,
        `lan#${state.id}`,
      ]);
    }
    // The claimed sets' tags hold nothing any more: their machines are the gamespaces'.
    for (const set of claimed) expect(await server.app.driver.machinesOf(set.id)).toEqual([]);
    expect(await pool()).toMatchObject({ ready: 0, claimedLastHour: 10, misses: 30 });
  }, 60_000);

  it("gives a claimed set's machines the gamespace's own guest settings", async () => {
    const claimed = (await sets()).filter((s) => s.state === 'claimed');
    const gamespaceId = claimed[0]!.claimedBy;
    const row = await server.app.store.db
      .selectFrom('gamespaces')
      .select('challenge')
      .where('id', '=', gamespaceId)
      .executeTakeFirstOrThrow();
    const flag = JSON.parse(row.challenge).transforms.find((t: Json) => t.key === 'flag').value;
    expect(flag).toMatch(/^[0-9a-f]{12}$/);
    const web = await server.app.store.db
      .selectFrom('vms')
      .selectAll()
      .where('name', '=', `web#${gamespaceId}`)
      .executeTakeFirstOrThrow();
    const settings = new Map(guestSettingsOf(web).map((s) => [s.key, s.value]));
    // Delivered after the pooled deploy, so the gamespace's value is the one that counts.
    expect(settings.get('guestinfo.flag')).toBe(flag);
    expect(settings.get('guestinfo.role')).toBe('web');
    expect(web.guestSettings).toContain('guestinfo.flag=##flag##');
  });

  it("records a claimed set's machines in the gamespace's event log as one deploy", async () => {
    const claimed = (await sets()).filter((s) => s.state === 'claimed');
    const events = (await ok(
      call('admin', 'GET', `/gamespace/${claimed[0]!.claimedBy}/events`),
    )) as Json[];
    expect(events.filter((e) => e.kind === 'deploy')).toMatchObject([
      { detail: expect.stringMatching(/^\d+ machines? from the warm pool$/) },
    ]);
  });

  it('refills the pool after claims once its keeper may act', async () => {
    await holdKeepers(false);
    await ok(call('admin', 'PUT', `/admin/pools/${workspaceId}`, { size: 10 }));
    await expect.poll(async () => (await pool()).ready, { timeout: 20_000 }).toBe(10);
  });

  it('drains the sets made from templates since changed, and warms new ones', async () => {
    const old = new Set((await sets()).filter((s) => s.state === 'ready').map((s) => s.id));
    expect(old.size).toBe(10);
    await ok(
      call('creator', 'PUT', '/template', {
        id: templateId,
        name: 'web',
        description: '',
        networks: 'lan',
        iso: '',
        isHidden: false,
        guestinfo: 'flag=##flag##\nrole=frontend',
        replicas: 1,
        variant: 0,
      }),
    );
    await expect
      .poll(
        async () => {
          const now = await sets();
          const fresh = now.filter((s) => s.state === 'ready' && !old.has(s.id));
          return { fresh: fresh.length, old: now.filter((s) => old.has(s.id)).length };
        },
        { timeout: 20_000 },
      )
      .toEqual({ fresh: 10, old: 0 });
    // Their machines are gone with them.
    for (const id of old) expect(await server.app.driver.machinesOf(id)).toEqual([]);
    const fresh = (await sets()).find((s) => s.state === 'ready')!;
    const web = await server.app.store.db
      .selectFrom('vms')
      .select('guestSettings')
      .where('name', '=', `web#${fresh.id}`)
      .executeTakeFirstOrThrow();
    expect(web.guestSettings).toContain('role=frontend');
  });

  it('falls back to a normal launch once the pool is exhausted or off', async () => {
    await ok(call('admin', 'PUT', `/admin/pools/${workspaceId}`, { size: 0 }));
    await expect.poll(async () => (await sets()).filter((s) => s.state !== 'claimed')).toEqual([]);
    const misses = (await pool()).misses;
    const state = await ok(launch('late-player'));
    expect(state.isActive).toBe(true);
    expect((await server.app.driver.machinesOf(state.id)).map((m) => m.name)).toEqual([
      `db#${state.id}`,
      `web#${state.id}`,
    ]);
    expect((await pool()).misses).toBe(misses + 1);
  });

  it('schedules launches, raising the target near their time', async () => {
    const soon = new Date(Date.now() + 60_000).toISOString();
    const view = await ok(
      call('admin', 'POST', `/admin/pools/${workspaceId}/schedule`, { count: 3, at: soon }),
    );
    expect(view).toMatchObject({ size: 0, target: 3 });
    expect(view.schedules).toEqual([{ count: 3, at: expect.any(String) }]);
    await expect.poll(async () => (await pool()).ready, { timeout: 20_000 }).toBe(3);
  });

  it("lists a deleted workspace's pool with no name while its keeper has not dropped it", async () => {
    const gone = await ok(
      call('creator', 'POST', '/workspace', { name: 'Short-lived Lab', audience: 'everyone' }),
    );
    await ok(call('admin', 'PUT', `/admin/pools/${gone.id}`, { size: 0 }));
    // Its keepers held off, as by a keeper elsewhere, the pool outlives the workspace a while.
    const lock = `pool:lock:${gone.id}`;
    await Promise.all([server.app.cache, second.cache].map((c) => c.set(lock, 'test', 60_000)));
    await ok(call('creator', 'DELETE', `/workspace/${gone.id}`));
    const names = async () =>
      Object.fromEntries(
        (await ok(call('admin', 'GET', '/admin/pools'))).map((p: Json) => [
          p.workspaceId,
          p.workspaceName,
        ]),
      );
    expect(await names()).toEqual({ [workspaceId]: 'Pooled Lab', [gone.id]: null });
    await Promise.all([server.app.cache, second.cache].map((c) => c.delete(lock)));
  });
});

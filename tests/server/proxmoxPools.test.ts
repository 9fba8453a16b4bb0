import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/core/ids';
import { TINY_TEMPLATE } from '../../server/core/stockTemplates';
import { startPveSimulator, type PveSimulator } from '../pvesim/simulator';
import { startTestServer, type TestServer } from './harness';
import { apiKey } from './hubClients';

// A warm pool with HYPERVISOR=proxmox, through the real server and the PVE API simulator: the
// keeper deploys a set under its own tag and marks it ready once its guest agent answers; a
// player's launch claims it, and the set's machines are the gamespace's at once (running, their
// PVE names and vnets relabelled, their NICs on the same bridges), with the gamespace's guest
// settings written into the guest; then the pool is refilled.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const SETTINGS_FILE = '/etc/topoplay-guestinfo';

describe('a warm pool on a Proxmox cluster (PVE API simulator)', () => {
  let sim: PveSimulator;
  let server: TestServer;
  let workspaceId = '';
  const headers: Record<string, Record<string, string>> = {};

  async function call(who: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers:
        body === undefined
          ? headers[who]!
          : { ...headers[who]!, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return (text ? JSON.parse(text) : undefined) as Json;
  }
  const pool = () => call('admin', 'GET', `/admin/pools/${workspaceId}`);
  const sets = () =>
    server.app.store.db
      .selectFrom('poolSets')
      .selectAll()
      .where('workspaceId', '=', workspaceId)
      .execute();
  const vmOf = (name: string) => sim.vms().find((v) => v.name === name);

  beforeAll(async () => {
    sim = await startPveSimulator({ cloneMs: 40, taskMs: 20, sdnReloadMs: 60, agentDelayMs: 200 });
    server = await startTestServer({
      env: {
        HYPERVISOR: 'proxmox',
        PROXMOX_URL: sim.url,
        PROXMOX_TOKEN_ID: sim.tokenId,
        PROXMOX_TOKEN_SECRET: sim.tokenSecret,
      },
    });
    const db = server.app.store.db;
    // A service account that registers players: not a builder, so its launches take pooled sets.
    await db
      .updateTable('users')
      .set({ registrar: 1, gamespaceLimit: 0 })
      .where('id', '=', await server.userId('player'))
      .execute();
    headers.registrar = apiKey(await server.apiKeyFor('player'));
    headers.admin = apiKey(await server.apiKeyFor('admin'));
    headers.creator = apiKey(await server.apiKeyFor('creator'));
    workspaceId = (
      await call('creator', 'POST', '/workspace', {
        name: 'Pooled PVE Lab',
        audience: 'everyone',
      })
    ).id;
    await call('creator', 'PUT', `/challenge/${workspaceId}`, {
      text: 'Find the flag.',
      transforms: [{ key: 'flag', value: 'hex:12' }],
    });
    await db
      .insertInto('templates')
      .values({
        id: newId(),
        name: 'web',
        description: '',
        audience: '',
        iso: '',
        networks: 'lan',
        guestinfo: 'flag=##flag##',
        isHidden: 0,
        isPublished: 0,
        isLinked: 0,
        // A linked clone of the cluster's VM template topoplay-tiny.
        detail: JSON.stringify(TINY_TEMPLATE.detail),
        parentId: null,
        replicas: 1,
        variant: 0,
        workspaceId,
        whenCreated: Date.now(),
      })
      .execute();
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await sim?.close();
  });

  it('fills the pool, hands the set to a launch with its settings, and refills', async () => {
    await call('admin', 'PUT', `/admin/pools/${workspaceId}`, { size: 1 });
    await expect.poll(async () => (await pool()).ready, { timeout: 30_000 }).toBe(1);
    const [set] = await sets();
    const pooled = vmOf(`web--${set!.id}`);
    expect(pooled?.status).toBe('running');
    // Ready once usable: the agent answered and the pooled settings are in.
    expect(sim.agentFiles(pooled!.vmid)[SETTINGS_FILE]).toMatch(/^guestinfo\.flag=/);
    const vnet = sim.vnets().find((v) => v.alias === `lan--${set!.id}`)!;
    expect(pooled!.config.net0).toContain(`bridge=${vnet.vnet}`);

    const clonesBefore = sim.requests().filter((r) => r.path.endsWith('/clone')).length;
    const state = await call('registrar', 'POST', '/gamespace', {
      resourceId: workspaceId,
      startGamespace: true,
      players: [{ subjectId: 'p1', subjectName: 'p1' }],
    });
    expect(state.isActive).toBe(true);
    // The launch cloned nothing: the pooled machine is the gamespace's, running already.
    expect(sim.requests().filter((r) => r.path.endsWith('/clone')).length).toBe(clonesBefore);
    const claimed = (await sets()).find((s) => s.id === set!.id);
    expect(claimed).toMatchObject({ state: 'claimed', claimedBy: state.id });
    const machines = await server.app.driver.machinesOf(state.id);
    expect(machines.map((m) => [m.id, m.name, m.state])).toEqual([
      [String(pooled!.vmid), `web#${state.id}`, 'running'],
    ]);
    expect(machines[0]!.nics.map((n) => n.network)).toEqual([`lan#${state.id}`]);
    const vm = vmOf(`web--${state.id}`)!;
    expect(vm.tags).toEqual(expect.arrayContaining(['topoplay', state.id]));
    // Its NIC never moved: the same bridge, now the gamespace's vnet, and the same MAC.
    expect(vm.config.net0).toBe(pooled!.config.net0);
    expect(sim.vnets().find((v) => v.vnet === vnet.vnet)?.alias).toBe(`lan--${state.id}`);
    // The gamespace's flag, after the pooled one: the last value of a key counts.
    const row = await server.app.store.db
      .selectFrom('gamespaces')
      .select('challenge')
      .where('id', '=', state.id)
      .executeTakeFirstOrThrow();
    const flag = JSON.parse(row.challenge).transforms.find((t: Json) => t.key === 'flag').value;
    const lines = sim.agentFiles(vm.vmid)[SETTINGS_FILE]!.trim().split('\n');
    expect(lines.at(-1)).toBe(`guestinfo.flag=${flag}`);
    expect(sim.agentExecs(vm.vmid).map((e) => e.command.at(-1))).toEqual([
      '[ ! -x /etc/topoplay/settings ] || exec /etc/topoplay/settings',
    ]);

    // The pool is refilled with a set of its own.
    await expect.poll(async () => (await pool()).ready, { timeout: 30_000 }).toBe(1);
    const fresh = (await sets()).find((s) => s.state === 'ready');
    expect(fresh?.id).not.toBe(set!.id);
    expect(vmOf(`web--${fresh!.id}`)?.status).toBe('running');
  }, 90_000);
});

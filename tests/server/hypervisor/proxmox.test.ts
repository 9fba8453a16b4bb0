import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../../server/core/ids';
import type { ConsoleTickets, HypervisorDriver, MachineSpec } from '../../../server/hypervisor';
import { createPveClient, type PveClient } from '../../../server/hypervisor/proxmox/client';
import { describeMachine } from '../../../server/hypervisor/proxmox/names';
import {
  ABANDONED_DEPLOY_MS,
  createProxmoxDriver,
  type ProxmoxDriverOptions,
} from '../../../server/hypervisor/proxmox/proxmoxDriver';
import { startPveSimulator, type PveSimulator } from '../../pvesim/simulator';
import { createManualClock } from '../manualClock';
import { clusterSpec, driverContract, nic } from './contract';

// The proxmox driver against the PVE API simulator (tests/pvesim: every request checked against
// the PVE API schema, tasks that take time, clone locks, nextid races, SDN changes that need an
// apply). The contract first, then what only a cluster driver promises: fifty players launching
// at once never fail on PVE's clone lock, even with a second server cloning from the same base
// image, and every machine shows its progress while it waits.

/** The simulator's stock base image (an admin's PVE template; never removed by us). */
const STOCK = 'topoplay-tiny';
/** The contract's own base image, a copy of the stock one made before the suite: saves go there. */
const OWN = 'contract-base';

const tickets: ConsoleTickets = {
  issue: async (vmId) => ({ ticket: 't', url: `/api/console/vnc/${vmId}?ticket=t` }),
};

const spec = (name: string, tag: string, fields: Partial<MachineSpec> = {}) =>
  clusterSpec(name, tag, OWN, { nics: [{ ...nic('lan'), adapter: 'e1000' }], ...fields });

/** Fast simulator timings: every task still takes real time, and locks are really held. */
const SIM_TIMINGS = {
  cloneMs: 60,
  fullCloneMs: 300,
  taskMs: 30,
  sdnReloadMs: 120,
  lockWaitMs: 80,
  agentDelayMs: 100,
};

const clientOf = (sim: PveSimulator) =>
  createPveClient({
    url: sim.url,
    tokenId: sim.tokenId,
    tokenSecret: sim.tokenSecret,
    ca: sim.ca ?? undefined,
    taskIntervalMs: 20,
  });

/** What the drivers warned of: a failed deploy says why here. */
const warnings: Array<{ o: object; msg?: string }> = [];
const log = { warn: (o: object, msg?: string) => warnings.push({ o, msg }) };

/** A vnet the admin made in the zone: a reserved net, which builders may attach untagged. */
async function adminVnet(sim: PveSimulator, alias: string): Promise<void> {
  const client = clientOf(sim);
  await client.post('/cluster/sdn/vnets', { vnet: 'bridge', zone: 'topoplay', tag: 100, alias });
  await client.waitTask(await client.put<string>('/cluster/sdn'));
  client.close();
}

/** A clone of ours as a server that stopped after cloning would leave it; its VMID. */
async function cloneAsAbandoned(client: PveClient, name: string, since: number): Promise<string> {
  const vmid = Number(await client.get<string>('/cluster/nextid'));
  const description = describeMachine({ name, source: 9000, nets: [], since });
  await client.waitTask(
    await client.post<string>('/nodes/pve1/qemu/9000/clone', { newid: vmid, description }),
  );
  await client.put(`/nodes/pve1/qemu/${vmid}/config`, { tags: 'topoplay' });
  return String(vmid);
}

function driverOn(sim: PveSimulator, fields: Partial<ProxmoxDriverOptions> = {}): HypervisorDriver {
  const client = clientOf(sim);
  return createProxmoxDriver({
    client,
    storage: 'local-lvm',
    isoStorage: 'local',
    zone: 'topoplay',
    vnetTags: [2000, 3999],
    sdnDebounceMs: 40,
    lockBackoffMs: 20,
    agentPollMs: 50,
    console: tickets,
    log,
    ...fields,
  });
}

driverContract('proxmox (PVE API simulator)', async () => {
  const sim = await startPveSimulator({ ...SIM_TIMINGS, tls: true });
  await adminVnet(sim, 'bridge-net');
  const driver = driverOn(sim);
  const own = spec('base', 'contract', { baseImage: OWN, baseImageSource: STOCK });
  await driver.createDisks(own);
  await vi.waitFor(async () => expect(await driver.verifyDisks(own)).toEqual([100]), {
    timeout: 10_000,
    interval: 20,
  });
  return {
    driver,
    consoles: true,
    close: async () => {
      await driver.close();
      await sim.close();
    },
    specFor: (name, tag, fields) => spec(name, tag, fields),
    copiedSpecFor: (name, tag) =>
      spec(name, tag, { baseImage: `copy-${tag}`, baseImageSource: STOCK }),
    stockSpecFor: (name, tag) => spec(name, tag, { baseImage: STOCK }),
    taskDeadlineMs: 10_000,
  };
});

describe('proxmox driver on the PVE API simulator', () => {
  let sim: PveSimulator;
  let driver: HypervisorDriver;

  beforeAll(async () => {
    sim = await startPveSimulator(SIM_TIMINGS);
    driver = driverOn(sim);
  });
  afterAll(async () => {
    await driver?.close();
    await sim?.close();
  });

  it('marks its machines with the topoplay tag and keeps our exact name', async () => {
    const tag = newId();
    const vm = await driver.deploy(spec('Web Server', tag, { baseImage: STOCK }), false);
    await vi.waitFor(async () => expect((await driver.load(vm.id))?.task).toBeNull(), {
      timeout: 10_000,
      interval: 20,
    });
    const pve = sim.vms().find((v) => String(v.vmid) === vm.id);
    expect(pve?.tags).toEqual(expect.arrayContaining(['topoplay', tag]));
    expect(pve?.name).toBe(`web-server--${tag}`);
    expect((await driver.load(vm.id))?.name).toBe(`Web Server#${tag}`);
  });

  it('gives each isolated net a vnet, applied before the machine starts, removed with the tag', async () => {
    const tag = newId();
    const vm = await driver.deploy(
      spec('web', tag, { baseImage: STOCK, nics: [nic('lan'), nic('wan', 1)] }),
      false,
    );
    await vi.waitFor(async () => expect((await driver.load(vm.id))?.state).toBe('running'), {
      timeout: 10_000,
      interval: 20,
    });
    const vnets = sim.vnets().filter((v) => v.alias?.endsWith(`--${tag}`));
    expect(vnets.map((v) => [v.alias, v.state]).sort()).toEqual([
      [`lan--${tag}`, 'applied'],
      [`wan--${tag}`, 'applied'],
    ]);
    const config = sim.vms().find((v) => String(v.vmid) === vm.id)?.config ?? {};
    expect(config.net1).toContain(`bridge=${vnets.find((v) => v.alias === `wan--${tag}`)?.vnet}`);

    await driver.deleteAll(tag);
    await vi.waitFor(
      () =>
        expect(
          sim.vnets().filter((v) => v.alias?.endsWith(`--${tag}`) && v.state !== 'deleted'),
        ).toEqual([]),
      { timeout: 10_000, interval: 20 },
    );
  });

  it('refuses to deploy from a base image that does not exist, saying which', async () => {
    await expect(
      driver.deploy(spec('web', newId(), { baseImage: 'no-such-template' }), false),
    ).rejects.toMatchObject({
      code: 'invalid-state',
      message: expect.stringContaining('no-such-template'),
    });
  });

  it('writes guest settings into the guest through its agent once the agent answers', async () => {
    const tag = newId();
    const settings = [
      { key: 'guestinfo.flag', value: 'c0ffee' },
      { key: 'guestinfo.note', value: 'two\nlines' },
    ];
    const vm = await driver.deploy(
      spec('web', tag, { baseImage: STOCK, guestSettings: settings }),
      false,
    );
    await vi.waitFor(
      () =>
        expect(sim.agentFiles(Number(vm.id))['/etc/topoplay-guestinfo']).toBe(
          'guestinfo.flag=c0ffee\nguestinfo.note=two lines\n',
        ),
      { timeout: 10_000, interval: 20 },
    );
    expect(sim.vms().find((v) => String(v.vmid) === vm.id)?.config.agent).toBe('1');
  });

  it('hands a running machine to another tag on the same bridge and MAC, its vnet relabelled', async () => {
    const [pool, gamespace] = [newId(), newId()];
    const settings = [{ key: 'guestinfo.flag', value: 'pooled' }];
    const vm = await driver.deploy(
      spec('web', pool, { baseImage: STOCK, guestSettings: settings }),
      false,
    );
    await vi.waitFor(async () => expect((await driver.load(vm.id))?.task).toBeNull(), {
      timeout: 10_000,
      interval: 20,
    });
    await driver.untilUsable!(pool);
    // Usable: running, its agent answering and the deploy's settings in.
    expect(sim.agentFiles(Number(vm.id))['/etc/topoplay-guestinfo']).toBe(
      'guestinfo.flag=pooled\n',
    );
    const before = sim.vms().find((v) => String(v.vmid) === vm.id)!;
    const vnet = sim.vnets().find((v) => v.alias === `lan--${pool}`)!;
    expect(before.config.net0).toContain(`bridge=${vnet.vnet}`);
    const started = sim.vms().length;

    const [moved] = await driver.retag(pool, gamespace);
    expect(moved).toMatchObject({ id: vm.id, name: `web#${gamespace}`, state: 'running' });
    expect(moved!.nics.map((n) => n.network)).toEqual([`lan#${gamespace}`]);
    const after = sim.vms().find((v) => String(v.vmid) === vm.id)!;
    expect(after).toMatchObject({ status: 'running', name: `web--${gamespace}` });
    expect(after.tags).toEqual(expect.arrayContaining(['topoplay', gamespace]));
    expect(after.tags).not.toContain(pool);
    // The NIC never moved: same value, so the same bridge and MAC.
    expect(after.config.net0).toBe(before.config.net0);
    expect(
      sim
        .vnets()
        .filter((v) => v.vnet === vnet.vnet)
        .map((v) => v.alias),
    ).toEqual([`lan--${gamespace}`]);
    expect(sim.vnets().some((v) => v.alias?.endsWith(`--${pool}`))).toBe(false);
    expect(sim.vms()).toHaveLength(started);
    // The label is applied when convenient; the bridge was there all along.
    await vi.waitFor(
      () => expect(sim.vnets().find((v) => v.vnet === vnet.vnet)?.state).toBe('applied'),
      { timeout: 10_000, interval: 20 },
    );

    // The gamespace's settings, live: after the deploy's own, and the image's hook run.
    const claimed = [{ key: 'guestinfo.flag', value: 'c0ffee' }];
    await driver.changeConfiguration(
      vm.id,
      { kind: 'guests', settings: claimed, live: true },
      false,
    );
    expect(sim.agentFiles(Number(vm.id))['/etc/topoplay-guestinfo']).toBe(
      'guestinfo.flag=pooled\nguestinfo.flag=c0ffee\n',
    );
    expect(sim.agentExecs(Number(vm.id)).map((e) => e.command)).toEqual([
      ['/bin/sh', '-c', '[ ! -x /etc/topoplay/settings ] || exec /etc/topoplay/settings'],
    ]);
    await driver.deleteAll(gamespace);
  });

  it("adds a setting changed before the agent answers after the deploy's own settings", async () => {
    const slow = await startPveSimulator({ ...SIM_TIMINGS, agentDelayMs: 500 });
    const own = driverOn(slow);
    try {
      const deployed = [{ key: 'guestinfo.flag', value: 'one' }];
      const vm = await own.deploy(
        spec('web', newId(), { baseImage: STOCK, guestSettings: deployed }),
        false,
      );
      await vi.waitFor(async () => expect((await own.load(vm.id))?.state).toBe('running'), {
        timeout: 10_000,
        interval: 20,
      });
      const live = { kind: 'guests' as const, settings: [{ key: 'x', value: '1' }], live: true };
      await expect(own.changeConfiguration(vm.id, live, false)).rejects.toMatchObject({
        code: 'unavailable',
      });
      await own.changeConfiguration(
        vm.id,
        { kind: 'guest', key: 'guestinfo.note', value: 'two' },
        false,
      );
      await vi.waitFor(
        () =>
          expect(slow.agentFiles(Number(vm.id))['/etc/topoplay-guestinfo']).toBe(
            'guestinfo.flag=one\nguestinfo.note=two\n',
          ),
        { timeout: 10_000, interval: 20 },
      );
    } finally {
      await own.close();
      await slow.close();
    }
  });

  it('cannot pool a template with settings once its machines never answered the agent', async () => {
    const silent = await startPveSimulator({ ...SIM_TIMINGS, agentDelayMs: 60_000 });
    const said: string[] = [];
    const own = driverOn(silent, {
      agentGiveUpMs: 300,
      log: { warn: (_o: object, msg?: string) => said.push(msg ?? '') },
    });
    try {
      const tag = newId();
      const withSettings = spec('web', tag, {
        baseImage: STOCK,
        guestSettings: [{ key: 'guestinfo.flag', value: 'x' }],
      });
      expect(await own.poolable!(withSettings)).toEqual({ available: true });
      await own.deploy(withSettings, false);
      // Usable as far as anyone can tell once the driver gives up on the agent...
      await own.untilUsable!(tag);
      // ...and from then on its base image's templates with settings are not pooled.
      expect(await own.poolable!(withSettings)).toEqual({
        available: false,
        reason: expect.stringContaining(`VM template ${STOCK} (template web) never answered`),
      });
      expect(await own.poolable!({ ...withSettings, guestSettings: [] })).toEqual({
        available: true,
      });
      expect(said).toContain('proxmox: the guest agent never answered');
    } finally {
      await own.close();
      await silent.close();
    }
  });

  it('refuses live guest settings while the guest agent does not answer', async () => {
    const tag = newId();
    const quiet = await startPveSimulator({ ...SIM_TIMINGS, agentDelayMs: 60_000 });
    const own = driverOn(quiet);
    try {
      const vm = await own.deploy(spec('web', tag, { baseImage: STOCK }), false);
      await vi.waitFor(async () => expect((await own.load(vm.id))?.state).toBe('running'), {
        timeout: 10_000,
        interval: 20,
      });
      const change = { kind: 'guests' as const, settings: [{ key: 'a', value: 'b' }] };
      await expect(
        own.changeConfiguration(vm.id, { ...change, live: true }, false),
      ).rejects.toMatchObject({ code: 'unavailable' });
      expect(quiet.agentFiles(Number(vm.id))).toEqual({});
      await own.stopAll(tag);
      await expect(
        own.changeConfiguration(vm.id, { ...change, live: true }, false),
      ).rejects.toMatchObject({ code: 'unavailable' });
    } finally {
      await own.close();
      await quiet.close();
    }
  });

  it('removes a deploy its server abandoned long ago, and leaves a recent one deploying', async () => {
    const client = clientOf(sim);
    const [oldTag, newTag] = [newId(), newId()];
    const old = await cloneAsAbandoned(
      client,
      `web#${oldTag}`,
      Date.now() - 2 * ABANDONED_DEPLOY_MS,
    );
    const recent = await cloneAsAbandoned(client, `web#${newTag}`, Date.now());
    // Made behind the driver's back: seen once its listing of the cluster is renewed.
    await vi.waitFor(async () => expect((await driver.load(recent))?.task?.name).toBe('deploying'));
    expect((await driver.status()).orphans).toBeGreaterThanOrEqual(1);

    expect(await driver.removeOrphans!()).toBeGreaterThanOrEqual(1);
    expect(await driver.load(old)).toBeNull();
    expect(sim.vms().some((v) => String(v.vmid) === old)).toBe(false);
    expect((await driver.load(recent))?.name).toBe(`web#${newTag}`);
    client.close();
  });

  it('never saves into a stock base image', async () => {
    const tag = newId();
    const vm = await driver.deploy(spec('web', tag, { baseImage: STOCK }), false);
    await vi.waitFor(async () => expect((await driver.load(vm.id))?.task).toBeNull(), {
      timeout: 10_000,
      interval: 20,
    });
    await expect(driver.save(vm.id)).rejects.toMatchObject({ code: 'invalid-state' });
  });
});

describe('proxmox driver on a clock of its own (PVE API simulator)', () => {
  it('times its deploys, and judges a deploy abandoned, by the clock it is handed', async () => {
    const sim = await startPveSimulator(SIM_TIMINGS);
    const clock = createManualClock();
    const driver = driverOn(sim, { clock });
    const client = clientOf(sim);
    try {
      // The driver's time runs a day ahead of the system's: its deploy's task says so.
      clock.advance(24 * 60 * 60_000);
      const vm = await driver.deploy(
        spec('web', newId(), { baseImage: STOCK, nics: [], autoStart: false }),
        false,
      );
      expect(vm.task?.started).toBe(clock.now());
      await vi.waitFor(async () => expect((await driver.load(vm.id))?.task).toBeNull(), {
        timeout: 10_000,
        interval: 20,
      });

      // A deploy its server left, begun now by the driver's time: abandoned once that time is
      // ABANDONED_DEPLOY_MS further on, whatever the system's.
      const left = await cloneAsAbandoned(client, `web#${newId()}`, clock.now());
      expect(await driver.removeOrphans!()).toBe(0);
      clock.advance(ABANDONED_DEPLOY_MS + 1);
      expect(await driver.removeOrphans!()).toBe(1);
      expect(sim.vms().some((v) => String(v.vmid) === left)).toBe(false);
    } finally {
      await driver.close();
      client.close();
      await sim.close();
    }
  });
});

describe('proxmox driver with root credentials (PVE API simulator)', () => {
  it('gives guest settings through fw_cfg in args, which only a root@pam session may set', async () => {
    const sim = await startPveSimulator({ ...SIM_TIMINGS, rootPassword: 'root-secret' });
    const rootClient = createPveClient({
      url: sim.url,
      tokenId: '',
      tokenSecret: '',
      login: { username: 'root@pam', password: 'root-secret' },
      taskIntervalMs: 20,
    });
    const driver = driverOn(sim, { rootClient });
    try {
      const tag = newId();
      const vm = await driver.deploy(
        spec('web', tag, {
          baseImage: STOCK,
          guestSettings: [{ key: 'guestinfo.flag', value: "a,b 'x'" }],
        }),
        false,
      );
      await vi.waitFor(async () => expect((await driver.load(vm.id))?.task).toBeNull(), {
        timeout: 10_000,
        interval: 20,
      });
      const config = sim.vms().find((v) => String(v.vmid) === vm.id)?.config ?? {};
      expect(config.args).toBe(`-fw_cfg 'name=opt/guestinfo.flag,string=a,,b '\\''x'\\'''`);
    } finally {
      await driver.close();
      rootClient.close();
      await sim.close();
    }
  });
});

describe('fifty players launching at once (PVE API simulator, clone locks on)', () => {
  let sim: PveSimulator;
  let servers: HypervisorDriver[];

  beforeAll(async () => {
    sim = await startPveSimulator({ ...SIM_TIMINGS, cloneMs: 40, lockWaitMs: 30 });
    // Two servers of one installation: each queues its own clones, and they still meet PVE's
    // lock on the base image, which they wait out.
    servers = [driverOn(sim), driverOn(sim)];
  });
  afterAll(async () => {
    for (const d of servers ?? []) await d.close();
    await sim?.close();
  });

  it('deploys every machine, with no failure, and reports progress while they wait', async () => {
    const players = Array.from({ length: 50 }, () => newId());
    const seen = new Set<string>();
    const launches = players.map((tag, i) =>
      servers[i % 2]!.deployBatch(
        {
          isolationTag: tag,
          hostAffinity: false,
          privileged: false,
          specs: [spec('web', tag, { baseImage: STOCK }), spec('db', tag, { baseImage: STOCK })],
        },
        true,
      ),
    );
    const launched = await Promise.all(launches);
    expect(launched.map((vms) => vms.length)).toEqual(players.map(() => 2));

    // While the clones wait their turn, machines say so.
    await vi.waitFor(
      async () => {
        const all = (await Promise.all(servers.map((d) => d.find('')))).flat();
        for (const m of all) if (m.task) seen.add(`${m.task.name}`);
        const idle = all.filter((m) => !m.task && m.state === 'running');
        expect(new Set(idle.map((m) => m.name)).size).toBe(100);
      },
      { timeout: 60_000, interval: 50 },
    );
    expect([...seen].some((name) => /^queued \(\d+ ahead\)$/.test(name))).toBe(true);
    expect(warnings).toEqual([]);

    const machines = sim.vms().filter((v) => !v.template && v.tags.includes('topoplay'));
    expect(machines).toHaveLength(100);
    // Each server sees the other's machines too, once its listing of the cluster is renewed.
    for (const server of servers) {
      await vi.waitFor(
        async () => {
          for (const tag of players) {
            expect((await server.machinesOf(tag)).map((m) => m.name)).toEqual([
              `db#${tag}`,
              `web#${tag}`,
            ]);
          }
        },
        { timeout: 10_000, interval: 100 },
      );
    }
    const refusedClones = sim
      .requests()
      .filter((r) => r.method === 'POST' && r.path.endsWith('/clone') && r.status === 500);
    // The two servers did meet the lock, and no launch failed for it.
    expect(refusedClones.length).toBeGreaterThan(0);
  }, 120_000);
});

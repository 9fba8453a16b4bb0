import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clusterSpec, nic } from '../../../tests/server/hypervisor/contract';
import { startPveSimulator, type PveSimulator } from '../../../tests/pvesim/simulator';
import { GUEST_SETTINGS_DIR } from '../cloudInit';
import type { HypervisorDriver, MachineSpec } from '../types';
import { createPveClient } from './client';
import { cloudInitSlot } from './cloudInit';
import { createProxmoxDriver, type ProxmoxDriverOptions } from './proxmoxDriver';

// Cloud-init on the PVE API simulator (every request checked against PVE's schema): a deploy
// gives the machine PVE's cloud-init drive beside the ISO drive, with the credentials and
// addresses the `cloud.*` guest settings ask for; with a snippets storage, its own user-data
// (every guest setting as a file) and network-config, which the machine's start finds and its
// delete removes.

const ISO = '00000000-0000-0000-0000-000000000000/tools.iso';
const KEYS = ['ssh-ed25519 AAAAC3Nz one@lab', 'ssh-rsa AAAAB3Nz two@lab'];
const FLAG = 'flag{a: b # c}';

let sim: PveSimulator | null = null;
let driver: HypervisorDriver | null = null;
let snippetsDir = '';
/** Why deploys failed, as the driver logs it. */
const warnings: string[] = [];

afterEach(async () => {
  await driver?.close();
  await sim?.close();
  driver = null;
  sim = null;
  if (snippetsDir) rmSync(snippetsDir, { recursive: true, force: true });
  snippetsDir = '';
  warnings.length = 0;
});

async function start(
  fields: Partial<ProxmoxDriverOptions> = {},
  snippets?: { storage: string; dir: string },
) {
  sim = await startPveSimulator({
    cloneMs: 30,
    taskMs: 20,
    sdnReloadMs: 40,
    lockWaitMs: 80,
    agentDelayMs: 50,
    snippets,
  });
  driver = createProxmoxDriver({
    client: createPveClient({
      url: sim.url,
      tokenId: sim.tokenId,
      tokenSecret: sim.tokenSecret,
      taskIntervalMs: 10,
    }),
    storage: 'local-lvm',
    isoStorage: 'local',
    zone: 'topoplay',
    vnetTags: [2000, 3999],
    sdnDebounceMs: 20,
    lockBackoffMs: 10,
    agentPollMs: 20,
    log: { warn: (o) => warnings.push(String((o as { err?: unknown }).err ?? '')) },
    ...fields,
  });
  return { sim, driver };
}

const spec = (settings: MachineSpec['guestSettings'], fields: Partial<MachineSpec> = {}) =>
  clusterSpec('web', randomUUID(), 'topoplay-tiny', {
    nics: [nic('lan', 0), nic('dmz', 1)],
    guestSettings: settings,
    ...fields,
  });

async function deployed(d: HypervisorDriver, s: PveSimulator, machineSpec: MachineSpec) {
  const vm = await d.deploy(machineSpec, false);
  await vi.waitFor(async () => expect((await d.load(vm.id))?.task ?? null).toBeNull(), {
    timeout: 10_000,
    interval: 20,
  });
  const found = s.vms().find((v) => String(v.vmid) === vm.id);
  expect(found).toBeDefined();
  return found!;
}

describe('proxmox cloud-init', () => {
  it("gives each machine PVE's cloud-init drive beside its ISO, with the settings' options", async () => {
    const { sim, driver } = await start();
    const vm = await deployed(
      driver,
      sim,
      spec(
        [
          { key: 'guestinfo.flag', value: FLAG },
          { key: 'guestinfo.cloud.user', value: 'player' },
          { key: 'guestinfo.cloud.password', value: 'pa ss:#1' },
          { key: 'guestinfo.cloud.ssh_authorized_keys', value: KEYS[0]! },
          { key: 'guestinfo.cloud.ssh_authorized_keys', value: KEYS[1]! },
          { key: 'guestinfo.cloud.ip0', value: '10.0.0.5/24' },
          { key: 'guestinfo.cloud.gw0', value: '10.0.0.1' },
          { key: 'guestinfo.cloud.ip1', value: 'dhcp' },
          { key: 'guestinfo.cloud.dns', value: '10.0.0.53' },
        ],
        { iso: ISO },
      ),
    );
    expect(vm.status).toBe('running');
    expect(vm.config).toMatchObject({
      ide2: `local:iso/${ISO.replace('/', '__')},media=cdrom`,
      ide3: `local-lvm:vm-${vm.vmid}-cloudinit,media=cdrom`,
      ciuser: 'player',
      cipassword: 'pa ss:#1',
      ciupgrade: '0',
      ipconfig0: 'ip=10.0.0.5/24,gw=10.0.0.1',
      ipconfig1: 'ip=dhcp',
      nameserver: '10.0.0.53',
    });
    expect(decodeURIComponent(vm.config.sshkeys ?? '')).toBe(KEYS.join('\n'));
    expect(vm.config.cicustom).toBeUndefined();
  });

  it('adds the drive without credentials for a machine without cloud settings', async () => {
    const { sim, driver } = await start();
    const vm = await deployed(driver, sim, spec([{ key: 'guestinfo.flag', value: FLAG }]));
    expect(vm.config.ide3).toBe(`local-lvm:vm-${vm.vmid}-cloudinit,media=cdrom`);
    expect(vm.config.ciupgrade).toBe('0');
    for (const key of ['ciuser', 'cipassword', 'sshkeys', 'ipconfig0', 'nameserver']) {
      expect(vm.config[key]).toBeUndefined();
    }
  });

  it('with a snippets storage, writes its user-data and network-config and removes them with it', async () => {
    snippetsDir = mkdtempSync(join(tmpdir(), 'pve-snippets-'));
    const snippets = { storage: 'snip', dir: snippetsDir };
    const { sim, driver } = await start({ snippets }, snippets);
    const vm = await deployed(
      driver,
      sim,
      spec([
        { key: 'guestinfo.flag', value: FLAG },
        { key: 'guestinfo.cloud.user', value: 'player' },
      ]),
    );
    // The start found the snippets the config names.
    expect(vm.status).toBe('running');
    const user = join(snippetsDir, 'snippets', `topoplay-${vm.vmid}-user.yaml`);
    const network = join(snippetsDir, 'snippets', `topoplay-${vm.vmid}-network.yaml`);
    expect(vm.config.cicustom).toBe(
      `user=snip:snippets/topoplay-${vm.vmid}-user.yaml,` +
        `network=snip:snippets/topoplay-${vm.vmid}-network.yaml`,
    );
    const userData = readFileSync(user, 'utf8');
    expect(userData.startsWith('#cloud-config\n')).toBe(true);
    const config = JSON.parse(userData.slice('#cloud-config\n'.length)) as {
      hostname: string;
      users: unknown[];
      write_files: Array<{ path: string; content: string }>;
    };
    expect(config.hostname).toBe('web');
    expect(config.users[1]).toMatchObject({ name: 'player' });
    const flag = config.write_files.find((f) => f.path === `${GUEST_SETTINGS_DIR}/flag`);
    expect(Buffer.from(flag?.content ?? '', 'base64').toString()).toBe(FLAG);
    // The NICs by the MACs PVE gave them.
    const macs = ['net0', 'net1'].map((k) => /=([0-9A-F:]{17})/i.exec(vm.config[k] ?? '')?.[1]);
    const net = JSON.parse(readFileSync(network, 'utf8')) as {
      ethernets: Record<string, { match: { macaddress: string } }>;
    };
    expect([net.ethernets.eth0?.match.macaddress, net.ethernets.eth1?.match.macaddress]).toEqual(
      macs.map((m) => m?.toLowerCase()),
    );

    await driver.delete(String(vm.vmid));
    expect(existsSync(user)).toBe(false);
    expect(existsSync(network)).toBe(false);
  });

  it("drops a saved machine's snippets from its clones once snippets are off", async () => {
    const { sim, driver } = await start();
    const client = createPveClient({
      url: sim.url,
      tokenId: sim.tokenId,
      tokenSecret: sim.tokenSecret,
    });
    try {
      // As a base image saved from a machine deployed with snippets names them.
      await client.put('/nodes/pve1/qemu/9000/config', {
        cicustom: 'user=snip:snippets/topoplay-140-user.yaml',
      });
    } finally {
      client.close();
    }
    const vm = await deployed(driver, sim, spec([]));
    expect(vm.status).toBe('running');
    expect(vm.config.cicustom).toBeUndefined();
  });

  it('refuses to start a machine whose snippets are missing, as PVE does', async () => {
    snippetsDir = mkdtempSync(join(tmpdir(), 'pve-snippets-'));
    // The driver writes into another folder than the storage PVE reads.
    const { sim, driver } = await start(
      { snippets: { storage: 'snip', dir: join(snippetsDir, 'elsewhere') } },
      { storage: 'snip', dir: snippetsDir },
    );
    const machineSpec = spec([{ key: 'guestinfo.flag', value: FLAG }]);
    const pending = await driver.deploy(machineSpec, false);
    await vi.waitFor(
      () =>
        expect(warnings.join('\n')).toContain(
          `volume 'snip:snippets/topoplay-${pending.id}-user.yaml' does not exist`,
        ),
      { timeout: 10_000, interval: 20 },
    );
    // The failed deploy removes what it made.
    await vi.waitFor(() => expect(sim.vms().filter((v) => !v.template)).toEqual([]), {
      timeout: 10_000,
      interval: 20,
    });
  });
});

describe('cloudInitSlot', () => {
  it("keeps a base image's cloud-init drive, and moves one out of the ISO's ide2", () => {
    expect(cloudInitSlot({ ide0: 'local-lvm:vm-9000-cloudinit,media=cdrom' })).toEqual({
      keep: 'ide0',
      add: null,
      remove: [],
    });
    expect(
      cloudInitSlot({
        ide2: 'local-lvm:vm-9000-cloudinit,media=cdrom',
        ide3: 'none,media=cdrom',
      }),
    ).toEqual({ keep: null, add: 'ide1', remove: ['ide2'] });
    expect(cloudInitSlot({ scsi0: 'local-lvm:base-9000-disk-0' })).toEqual({
      keep: null,
      add: 'ide3',
      remove: [],
    });
  });
});

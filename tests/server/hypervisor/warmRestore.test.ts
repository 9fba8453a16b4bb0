import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COLD_BOOT } from '../../../server/hypervisor/qemu/power';
import { createQemuDriver, type QemuDriver } from '../../../server/hypervisor/qemu/qemuDriver';
import { screenText } from '../../../server/hypervisor/qemu/qmp';
import type { Machine, MachineSpec } from '../../../server/hypervisor/types';
import { qemuFolders, tinySpec, type QemuFolders } from './qemuMachines';
import { openSerial, tinyAddressOf, type SerialShell } from './serialShell';

// Warm images on real machines: a first deploy of a template boots and asks for its warm image;
// once that is built, machines of the template resume from it instead of booting, and each is
// made its own before anyone sees it: two gamespaces restored from one image have their own
// hostnames, MACs, addresses and generated flags, and each reaches only its own neighbour.

const BOOT_MS = 90_000;
const FW = '/sys/firmware/qemu_fw_cfg/by_name';

let folders: QemuFolders;
let driver: QemuDriver;
const shells: SerialShell[] = [];

async function shellOf(id: string): Promise<SerialShell> {
  const shell = await openSerial(driver.serialSocket(id), BOOT_MS);
  shells.push(shell);
  await shell.until(/:~# /, BOOT_MS);
  return shell;
}

const specsOf = (tag: string, flag: string, names: string[]): MachineSpec[] =>
  names.map((name) =>
    tinySpec(name, tag, {
      autoStart: true,
      guestSettings: [{ key: 'guestinfo.flag', value: `${flag}-${name}` }],
    }),
  );

const launch = (tag: string, specs: MachineSpec[]) =>
  driver.deployBatch({ isolationTag: tag, hostAffinity: false, privileged: false, specs }, true);

const named = (machines: Machine[], name: string) => machines.find((m) => m.name.startsWith(name))!;

const recordOf = (id: string) =>
  JSON.parse(readFileSync(join(folders.stateDir, 'machines', id, 'machine.json'), 'utf8'));

/** Resolves once the machine shows no task: it is up. */
const untilUp = (id: string) =>
  vi.waitFor(async () => expect((await driver.load(id))?.task).toBeNull(), {
    timeout: BOOT_MS,
    interval: 200,
  });

beforeAll(async () => {
  folders = await qemuFolders();
  driver = await createQemuDriver({
    ...folders,
    watchMs: 200,
    warmImages: true,
    log: { warn: (o, m) => console.warn(m, o), info: (o, m) => console.info(m, JSON.stringify(o)) },
  });
}, 600_000);

afterAll(async () => {
  for (const shell of shells) shell.close();
  await driver?.deleteAll('#').catch(() => undefined);
  await driver?.removeOrphans().catch(() => 0);
  await driver?.close().catch(() => undefined);
  try {
    process.kill(Number(readFileSync(join(folders.stateDir, 'switch', 'switch.pid'), 'utf8')));
  } catch {
    // No switch was left.
  }
  rmSync(folders.root, { recursive: true, force: true });
}, 120_000);

describe('qemu driver: warm images', () => {
  it('boots the first machine of a template and builds its warm image in the background', async () => {
    const tag = randomUUID();
    const [first] = await launch(tag, specsOf(tag, 'cold', ['web']));
    expect(first!.state).toBe('running');
    // It boots, and says why while it does, until it is up.
    expect(first!.task?.name).toBe(COLD_BOOT.noImage);
    await untilUp(first!.id);
    expect(recordOf(first!.id).coldBoot).toBeNull();
    // The deploy did not wait for the build: it is under way, or done already.
    await driver.warm!.settled();
    const record = JSON.parse(
      readFileSync(join(folders.stateDir, 'machines', first!.id, 'machine.json'), 'utf8'),
    );
    const image = await driver.warm!.readyFor(record);
    expect(image).not.toBeNull();
    // The saved state holds what the machine uses, not its whole memory: free memory was zeroed
    // before the save, and zero pages take no room.
    const saved = statSync(image!.memory).size;
    console.info(`warm image state: ${(saved / 2 ** 20).toFixed(1)} MiB`);
    expect(saved).toBeLessThan(0.6 * record.spec.memoryMiB * 2 ** 20);
  }, 300_000);

  it('restores two gamespaces from one warm image, each machine its own and isolated', async () => {
    const [tagB, tagC] = [randomUUID(), randomUUID()];
    const flagB = `flag-${randomUUID().slice(0, 8)}`;
    const flagC = `flag-${randomUUID().slice(0, 8)}`;
    // Other template names, same content: one warm image serves them all.
    const b = await launch(tagB, specsOf(tagB, flagB, ['alpha', 'alpha-client']));
    const c = await launch(tagC, specsOf(tagC, flagC, ['bravo', 'bravo-client']));

    const machines = [
      { m: named(b, 'alpha#'), host: 'alpha', flag: `${flagB}-alpha` },
      { m: named(b, 'alpha-client#'), host: 'alpha-client', flag: `${flagB}-alpha-client` },
      { m: named(c, 'bravo#'), host: 'bravo', flag: `${flagC}-bravo` },
      { m: named(c, 'bravo-client#'), host: 'bravo-client', flag: `${flagC}-bravo-client` },
    ];
    const seen = { macs: new Set<string>(), seeds: new Set<string>() };
    for (const { m, host, flag } of machines) {
      expect(m.state).toBe('running');
      // Restored: nothing to say.
      expect(m.task).toBeNull();
      const record = JSON.parse(
        readFileSync(join(folders.stateDir, 'machines', m.id, 'machine.json'), 'utf8'),
      );
      // Restored: its record no longer names the warm image it came from, and its disk is based
      // on the image's frozen disk.
      expect(record.warm).toBeNull();
      expect(record.restoredFrom).toMatch(/^[0-9a-f]{24}$/);
      const shell = await shellOf(m.id);
      const [mac] = driver.macsOf(m.id);
      expect((await shell.run('hostname')).output).toContain(host);
      expect((await shell.run('cat /sys/class/net/eth0/address')).output).toContain(mac);
      expect((await shell.run(`cat ${FW}/opt/guestinfo.flag/raw; echo`)).output).toContain(flag);
      expect((await shell.run('ip -4 addr show eth0')).output).toContain(tinyAddressOf(mac!));
      // The screen shows this machine alone, never the warm image's banner.
      expect((await screenText(driver.qmpSocket(m.id))).join('\n')).not.toContain('topoplay-warm');
      // The banner the new shell printed is this machine's, not the warm image's.
      expect((await shell.run('cat /etc/banner')).output).toContain(
        `Topoplay tiny machine ${host}`,
      );
      // The kernel's random pool was fed: two machines never draw the same bytes.
      seen.seeds.add(
        (await shell.run('head -c 16 /dev/urandom | hexdump -e \'16/1 "%02x"\'')).output.trim(),
      );
      seen.macs.add(mac!);
    }
    expect(seen.macs.size).toBe(4);
    expect(seen.seeds.size).toBe(4);

    // Each reaches its own neighbour, never the other gamespace's machines.
    const alpha = shells[shells.length - 4]!;
    const [clientB] = driver.macsOf(machines[1]!.m.id);
    const [clientC] = driver.macsOf(machines[3]!.m.id);
    expect((await alpha.run(`ping -c 1 -W 3 ${tinyAddressOf(clientB!)}`)).status).toBe(0);
    expect((await alpha.run(`ping -c 1 -W 2 ${tinyAddressOf(clientC!)}`)).status).not.toBe(0);

    // A restarted server keeps the warm image its restored machines' disks are based on.
    const key = JSON.parse(
      readFileSync(join(folders.stateDir, 'machines', machines[0]!.m.id, 'machine.json'), 'utf8'),
    ).restoredFrom as string;
    const again = await createQemuDriver({ ...folders, warmImages: true });
    await again.close();
    expect(existsSync(join(folders.stateDir, 'warm', key, 'disk0.qcow2'))).toBe(true);
    expect((await alpha.run('sync; echo kept > /root/kept; cat /root/kept')).output).toContain(
      'kept',
    );
  }, 300_000);

  it("hands a running pooled set to a gamespace: its segments, and the gamespace's flag at once", async () => {
    const [pool, gamespace] = [randomUUID(), randomUUID()];
    const set = await launch(pool, specsOf(pool, 'template', ['delta', 'delta-client']));
    const delta = named(set, 'delta#');
    const client = named(set, 'delta-client#');
    const shell = await shellOf(delta.id);
    const [clientMac] = driver.macsOf(client.id);

    const flag = `flag-${randomUUID().slice(0, 8)}`;
    const started = performance.now();
    const moved = await driver.retag(pool, gamespace);
    await driver.changeConfiguration(
      delta.id,
      { kind: 'guests', settings: [{ key: 'guestinfo.flag', value: flag }], live: true },
      false,
    );
    console.info(`claim: retag and settings in ${Math.round(performance.now() - started)} ms`);

    // The same machines, running on under the gamespace's tag, on its segments.
    expect(moved.map((m) => [m.id, m.name, m.state])).toEqual([
      [delta.id, `delta#${gamespace}`, 'running'],
      [client.id, `delta-client#${gamespace}`, 'running'],
    ]);
    expect(moved[0]!.nics.map((n) => n.network)).toEqual([`lan#${gamespace}`]);
    expect((await shell.run(`ping -c 1 -W 3 ${tinyAddressOf(clientMac!)}`)).status).toBe(0);
    // The flag is where the guest reads its settings, in place of the template's value.
    const raw = await shell.run(`cat ${FW}/opt/guestinfo.flag/raw; echo`);
    expect(raw.output).toContain(flag);
    expect(raw.output).not.toContain('template-delta');
    // The settings file lists them in order: the last line of a key is its value.
    const lines = (await shell.run('grep ^guestinfo.flag= /etc/topoplay-guestinfo')).output;
    expect(lines.trim().split('\n').at(-1)?.trim()).toBe(`guestinfo.flag=${flag}`);
    // Its other fw_cfg files are still there.
    expect((await shell.run(`cat ${FW}/opt/topoplay/hostname/raw; echo`)).output).toContain(
      'delta',
    );
  }, 300_000);

  it('boots a machine whose warm image cannot be restored, and says so while it boots', async () => {
    const tag = randomUUID();
    const [off] = await launch(tag, [tinySpec('echo', tag)]);
    const key = recordOf(off!.id).warm as string;
    expect(key).toMatch(/^[0-9a-f]{24}$/);
    // Its image is gone by the time it starts.
    const manifest = join(folders.stateDir, 'warm', key, 'warm.json');
    renameSync(manifest, `${manifest}.aside`);
    try {
      const started = await driver.changeState(off!.id, 'start');
      expect(started.state).toBe('running');
      expect(started.task?.name).toBe(COLD_BOOT.notRestored);
      await untilUp(off!.id);
      expect(recordOf(off!.id)).toMatchObject({ warm: null, coldBoot: null });
      expect(recordOf(off!.id).restoredFrom ?? null).toBeNull();
    } finally {
      renameSync(`${manifest}.aside`, manifest);
    }
  }, 300_000);
});

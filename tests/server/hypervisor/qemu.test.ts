import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQemuDriver, type QemuDriver } from '../../../server/hypervisor/qemu/qemuDriver';
import { qmp } from '../../../server/hypervisor/qemu/qmp';
import { DriverError, EMPTY_TAG, type DriverEvent } from '../../../server/hypervisor/types';
import { driverContract } from './contract';
import { qemuFolders, tinySpec, type QemuFolders } from './qemuMachines';
import { openSerial, tinyAddressOf, type SerialShell } from './serialShell';

// What only real machines show: two gamespaces of one workspace (same template and network
// names) each get their own `lan`, a machine reaches its neighbour and never the other gamespace's
// machines until its NIC is moved; a generated value reaches the guest; an ISO goes in while the
// machine runs; the server goes away and a new one finds every machine running, still
// controllable, its console open, and the QEMU process whose machine is gone reported as an
// orphan; a launch beyond the caps is refused whole.

const BOOT_MS = 90_000;

let folders: QemuFolders;
let driver: QemuDriver;
const shells: SerialShell[] = [];
const shellByPath = new Map<string, SerialShell>();
const opened: QemuDriver[] = [];

async function open(options: Partial<Parameters<typeof createQemuDriver>[0]> = {}) {
  const d = await createQemuDriver({ ...folders, watchMs: 200, ...options });
  opened.push(d);
  return d;
}

/** The machine's serial shell; one per machine, since its port takes one client at a time. */
async function shellOf(d: QemuDriver, id: string): Promise<SerialShell> {
  const path = d.serialSocket(id);
  const open = shellByPath.get(path);
  if (open) return open;
  const shell = await openSerial(path, BOOT_MS);
  shells.push(shell);
  shellByPath.set(path, shell);
  await shell.until(/:~# /, BOOT_MS);
  return shell;
}

beforeAll(async () => {
  folders = await qemuFolders();
  driver = await open();
}, 600_000);

afterAll(async () => {
  for (const shell of shells) shell.close();
  // Every machine of every driver instance goes, whatever the tests left behind.
  const last = await createQemuDriver({ ...folders });
  await last.deleteAll('#');
  await last.removeOrphans();
  for (const d of [...opened, last]) await d.close().catch(() => undefined);
  // Each state folder has its switch process; none outlives the tests.
  for (const state of ['s', 'c', 'm']) {
    try {
      process.kill(Number(readFileSync(join(folders.root, state, 'switch', 'switch.pid'), 'utf8')));
    } catch {
      // That folder had no switch, or it is gone already.
    }
  }
  rmSync(folders.root, { recursive: true, force: true });
}, 120_000);

describe('qemu driver: real machines', () => {
  const gameA = randomUUID();
  const gameB = randomUUID();
  let a1 = '';
  let a2 = '';
  let b1 = '';
  let shellA1: SerialShell;

  it('isolates gamespaces: a machine reaches its neighbour on lan, never the other gamespace', async () => {
    const flag = `flag-${randomUUID().slice(0, 8)}`;
    const batch = async (tag: string, names: string[]) =>
      driver.deployBatch(
        {
          isolationTag: tag,
          hostAffinity: false,
          privileged: false,
          specs: names.map((n) =>
            tinySpec(n, tag, {
              autoStart: true,
              guestSettings: [{ key: 'guestinfo.flag', value: flag }],
            }),
          ),
        },
        true,
      );
    const ofA = await batch(gameA, ['web', 'client']);
    const first = ofA.find((m) => m.name === `web#${gameA}`);
    const second = ofA.find((m) => m.name === `client#${gameA}`);
    const [other] = await batch(gameB, ['web']);
    a1 = first!.id;
    a2 = second!.id;
    b1 = other!.id;
    expect(first!.nics).toEqual([{ index: 0, network: `lan#${gameA}` }]);
    expect(other!.nics).toEqual([{ index: 0, network: `lan#${gameB}` }]);

    shellA1 = await shellOf(driver, a1);
    await shellOf(driver, a2);
    await shellOf(driver, b1);
    // The challenge's generated value reached the guest through fw_cfg.
    expect((await shellA1.run('hostname')).output).toContain('web');
    expect(
      (await shellA1.run('cat /sys/firmware/qemu_fw_cfg/by_name/opt/guestinfo.flag/raw')).output,
    ).toContain(flag);

    const neighbour = tinyAddressOf(driver.macsOf(a2)[0]!);
    const stranger = tinyAddressOf(driver.macsOf(b1)[0]!);
    expect((await shellA1.run(`ping -c 1 -W 3 ${neighbour}`)).status).toBe(0);
    expect((await shellA1.run(`ping -c 2 -W 2 ${stranger}`)).status).not.toBe(0);
  }, 240_000);

  it('moves a NIC to another network of its lab while the machine runs', async () => {
    const neighbour = tinyAddressOf(driver.macsOf(a2)[0]!);
    const moved = await driver.changeConfiguration(
      a2,
      { kind: 'net', nic: 0, network: `dmz#${gameA}` },
      false,
    );
    expect(moved.nics[0]!.network).toBe(`dmz#${gameA}`);
    expect((await shellA1.run(`ping -c 2 -W 2 ${neighbour}`)).status).not.toBe(0);
    // Another gamespace's network is not this lab's: refused.
    await expect(
      driver.changeConfiguration(a2, { kind: 'net', nic: 0, network: `lan#${gameB}` }, false),
    ).rejects.toMatchObject({ code: 'invalid-request' });
    await driver.changeConfiguration(a2, { kind: 'net', nic: 0, network: `lan#${gameA}` }, false);
    await vi.waitFor(
      async () => expect((await shellA1.run(`ping -c 1 -W 2 ${neighbour}`)).status).toBe(0),
      { timeout: 30_000, interval: 200 },
    );
  }, 90_000);

  it('inserts and ejects an ISO while the machine runs', async () => {
    mkdirSync(join(folders.isosDir, gameA), { recursive: true });
    writeFileSync(join(folders.isosDir, gameA, 'tools.iso'), Buffer.alloc(64 * 1024));
    expect(await driver.isoOptions(gameA)).toEqual([`${gameA}/tools.iso`]);
    await driver.changeConfiguration(a1, { kind: 'iso', path: `${gameA}/tools.iso` }, false);
    const inserted = await qmp<Array<{ device: string; inserted?: { file: string } }>>(
      driver.qmpSocket(a1),
      'query-block',
    );
    expect(inserted.find((b) => b.device === 'cd0')?.inserted?.file).toContain('tools.iso');
    await expect(
      driver.changeConfiguration(a1, { kind: 'iso', path: '../../etc/passwd' }, false),
    ).rejects.toBeInstanceOf(DriverError);
    await driver.changeConfiguration(a1, { kind: 'iso', path: '' }, false);
    const ejected = await qmp<Array<{ device: string; inserted?: unknown }>>(
      driver.qmpSocket(a1),
      'query-block',
    );
    expect(ejected.find((b) => b.device === 'cd0')?.inserted).toBeUndefined();
  }, 60_000);

  it('keeps every machine across a server restart, and reports a process without a machine', async () => {
    // The server goes away without stopping anything, as a killed process would (a serial port
    // takes one client at a time: the test's own go too).
    for (const shell of shells.splice(0)) shell.close();
    shellByPath.clear();
    await driver.close();
    // One machine's folder is lost while no server runs: its QEMU is now an orphan.
    unlinkSync(join(folders.stateDir, 'machines', b1, 'machine.json'));
    const again = await open();
    const found = await again.machinesOf(gameA);
    expect(found.map((m) => [m.name, m.state])).toEqual([
      [`client#${gameA}`, 'running'],
      [`web#${gameA}`, 'running'],
    ]);
    expect((await again.status()).orphans).toBe(1);
    expect(await again.removeOrphans()).toBe(1);
    await vi.waitFor(async () => expect((await again.status()).orphans).toBe(0), {
      timeout: 10_000,
    });

    // Still controllable: the console answers the viewer's ClientInit with QEMU's ServerInit
    // (the relay did the handshake with QEMU's VNC server), and a stop is a stop.
    const received: Uint8Array[] = [];
    const session = await again.openConsole!(a1, {
      send: (bytes) => received.push(bytes),
      close: () => {},
    });
    session.receive(Uint8Array.of(1));
    await vi.waitFor(
      () => {
        const init = Buffer.concat(received);
        expect(init.length).toBeGreaterThanOrEqual(24);
        expect(init.readUInt16BE(0)).toBeGreaterThan(0);
        expect(init.readUInt16BE(2)).toBeGreaterThan(0);
      },
      { timeout: 10_000 },
    );
    session.end();

    const events: DriverEvent[] = [];
    again.subscribe((e) => events.push(e));
    const stopped = await again.stop(a2);
    expect(stopped.state).toBe('off');
    expect((await again.load(a2))?.state).toBe('off');
    // The neighbour is gone from the network too.
    const shell = await shellOf(again, a1);
    expect(
      (await shell.run(`ping -c 1 -W 2 ${tinyAddressOf(again.macsOf(a2)[0]!)}`)).status,
    ).not.toBe(0);
    driver = again;
  }, 120_000);

  it('announces a machine whose guest powered off on its own', async () => {
    const events: DriverEvent[] = [];
    driver.subscribe((e) => events.push(e));
    const shell = await shellOf(driver, a1);
    shell.run('poweroff -f').catch(() => undefined);
    await vi.waitFor(
      () => expect(events.some((e) => e.type === 'stopped' && e.machine.id === a1)).toBe(true),
      { timeout: 30_000, interval: 100 },
    );
    expect((await driver.load(a1))?.state).toBe('off');
  }, 60_000);
});

describe('qemu driver: capacity', () => {
  it('refuses a launch beyond the cap whole, building nothing, and says why', async () => {
    const capped = await open({ maxRunning: 2, stateDir: join(folders.root, 'c') });
    const tag = randomUUID();
    const specs = ['a', 'b', 'c'].map((n) => tinySpec(n, tag, { autoStart: true }));
    const refusal = await capped
      .deployBatch({ isolationTag: tag, hostAffinity: false, privileged: false, specs }, true)
      .catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(DriverError);
    expect((refusal as DriverError).code).toBe('capacity');
    expect((refusal as DriverError).message).toMatch(/0 of at most 2 machines are running/);
    expect(await capped.machinesOf(tag)).toEqual([]);
    const memoryCapped = await open({ maxMemoryMiB: 100, stateDir: join(folders.root, 'm') });
    const machine = await memoryCapped.deploy(tinySpec('big', tag), false);
    await expect(memoryCapped.start(machine.id)).rejects.toMatchObject({ code: 'capacity' });
    expect((await memoryCapped.load(machine.id))?.state).toBe('off');
    await memoryCapped.delete(machine.id);
  });
});

/**
 * The contract's driver while its tests run. Each test works under tags of its own and leaves
 * its machines running; they go once it ends, rather than idling (a few per cent of a core
 * each) until the last test has run.
 */
let contractDriver: QemuDriver | null = null;
afterEach(async () => {
  await contractDriver?.deleteAll('#');
}, 60_000);

// The contract every driver passes, on machines that boot nothing: a blank disk, so the BIOS finds
// no system and idles, and dozens of machines cost this 2-core host little. Disks under a tag are
// made for it, so that saving (which writes only a lab's own disk) has one to write.
driverContract('qemu', async () => {
  const contractFolders = await qemuFolders();
  const { imagesDir, isosDir } = contractFolders;
  execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', join(imagesDir, 'blank.qcow2'), '64M']);
  mkdirSync(join(isosDir, EMPTY_TAG), { recursive: true });
  writeFileSync(join(isosDir, EMPTY_TAG, 'tools.iso'), Buffer.alloc(64 * 1024));
  const driven = await createQemuDriver({ ...contractFolders, watchMs: 200 });
  contractDriver = driven;
  const ownDisk = (name: string, tag: string) => {
    const path = `${tag}/${name}.qcow2`;
    if (!existsSync(join(imagesDir, path))) {
      mkdirSync(join(imagesDir, tag), { recursive: true });
      execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', join(imagesDir, path), '64M']);
    }
    return path;
  };
  const disk = (path: string, source: string | null = null) => [
    { index: 0, path, source, controller: null, sizeGiB: 1 },
  ];
  return {
    driver: driven,
    consoles: false,
    taskDeadlineMs: 30_000,
    specFor: (name, tag, fields) =>
      tinySpec(name, tag, { autoStart: true, disks: disk(ownDisk(name, tag)), ...fields }),
    copiedSpecFor: (name, tag) =>
      tinySpec(name, tag, { disks: disk(`${tag}/${name}-copy.qcow2`, 'blank.qcow2') }),
    stockSpecFor: (name, tag) => tinySpec(name, tag, { disks: disk('blank.qcow2') }),
    async close() {
      contractDriver = null;
      await driven.deleteAll('#');
      await driven.close();
      try {
        process.kill(
          Number(readFileSync(join(contractFolders.stateDir, 'switch', 'switch.pid'), 'utf8')),
        );
      } catch {
        // The switch is gone already.
      }
      rmSync(contractFolders.root, { recursive: true, force: true });
    },
  };
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tinySpec } from '../../../tests/server/hypervisor/qemuMachines';
import { GUEST_SETTINGS_DIR } from '../cloudInit';
import { createOverlay } from './disks';
import { layoutOf, machineFiles, type QemuLayout } from './layout';
import { launchPlanOf, recordOf } from './plans';
import { qemuArgs, SEED_DEVICE } from './processes';
import type { MachineRecord } from './records';

// A qemu machine's cloud-init seed: an ISO labelled CIDATA in the machine's folder with the three
// NoCloud files, attached beside the author's CD-ROM drive; a new instance-id when cloud-init
// must run again (settings changed, disk reverted), the same one otherwise.

let root = '';
let layout: QemuLayout;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'tq-seed-'));
  layout = layoutOf({
    images: join(root, 'images'),
    isos: join(root, 'isos'),
    state: join(root, 's'),
  });
  await mkdir(layout.images, { recursive: true });
  execFileSync('qemu-img', [
    'create',
    '-q',
    '-f',
    'qcow2',
    join(layout.images, 'base.qcow2'),
    '1M',
  ]);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const FLAG = 'flag{a: b # c}';

async function machine(): Promise<MachineRecord> {
  const spec = tinySpec('web_1', 'tag', {
    disks: [{ index: 0, path: 'base.qcow2', source: null, controller: null, sizeGiB: 1 }],
    nics: [
      { index: 0, network: 'lan', adapter: null, mac: '52:54:00:12:34:56' },
      { index: 1, network: 'dmz', adapter: null, mac: null },
    ],
    guestSettings: [
      { key: 'guestinfo.flag', value: FLAG },
      { key: 'guestinfo.cloud.user', value: 'player' },
    ],
    iso: 'tools.iso',
  });
  const id = '00000000-0000-4000-8000-000000000001';
  const disks = [{ ...spec.disks[0]!, full: join(layout.images, 'base.qcow2') }];
  const record = recordOf(id, spec, false, disks, [], 0);
  const files = machineFiles(layout, id);
  await mkdir(files.dir, { recursive: true });
  await createOverlay(disks[0]!.full, files.overlay(0));
  return record;
}

const plan = (record: MachineRecord) => launchPlanOf(record, { layout, acceleration: 'tcg' });

/** A file of the ISO, read with xorriso. */
function fileOf(iso: string, name: string): string {
  const out = join(root, `out-${name}`);
  rmSync(out, { force: true });
  execFileSync('xorriso', ['-osirrox', 'on', '-indev', iso, '-extract', `/${name}`, out], {
    stdio: 'ignore',
  });
  return readFileSync(out, 'utf8');
}

const instanceIdOf = (iso: string) =>
  (JSON.parse(fileOf(iso, 'meta-data')) as Record<string, string>)['instance-id'];

describe('qemu cloud-init seed', () => {
  it('makes a CIDATA ISO with the NoCloud files in the machine folder', async () => {
    const record = await machine();
    const { seed } = await plan(record);
    expect(seed).toBe(join(machineFiles(layout, record.id).dir, 'seed.iso'));
    const info = execFileSync('xorriso', ['-indev', seed!, '-pvd_info'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    expect(info).toMatch(/^Volume Id\s*:\s*CIDATA$/m);
    const listing = execFileSync('xorriso', ['-indev', seed!, '-ls', '/'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    expect(listing.trim().split('\n').sort()).toEqual([
      "'meta-data'",
      "'network-config'",
      "'user-data'",
    ]);
    expect(JSON.parse(fileOf(seed!, 'meta-data'))).toMatchObject({ 'local-hostname': 'web-1' });
    const userData = fileOf(seed!, 'user-data');
    expect(userData.startsWith('#cloud-config\n')).toBe(true);
    const config = JSON.parse(userData.slice('#cloud-config\n'.length)) as {
      hostname: string;
      users: unknown[];
      write_files: Array<{ path: string; content: string }>;
    };
    expect(config.hostname).toBe('web-1');
    expect(config.users[1]).toMatchObject({ name: 'player' });
    const flag = config.write_files.find((f) => f.path === `${GUEST_SETTINGS_DIR}/flag`);
    expect(Buffer.from(flag!.content, 'base64').toString()).toBe(FLAG);
    const network = JSON.parse(fileOf(seed!, 'network-config')) as {
      ethernets: Record<string, { match: { macaddress: string } }>;
    };
    expect(network.ethernets.eth0?.match.macaddress).toBe('52:54:00:12:34:56');
    expect(network.ethernets.eth1?.match.macaddress).toBe(record.nics[1]!.mac);
  });

  it('attaches the seed as a second CD-ROM and leaves the ISO drive as it was', async () => {
    const launch = await plan(await machine());
    const args = qemuArgs(launch);
    const drives = args.filter((_, i) => args[i - 1] === '-drive');
    const devices = args.filter((_, i) => args[i - 1] === '-device');
    expect(drives).toContain(
      `if=none,id=cd0,media=cdrom,file=${join(layout.isos, 'tools.iso')},readonly=on`,
    );
    expect(drives).toContain(
      `if=none,id=seed,media=cdrom,format=raw,readonly=on,file=${launch.seed}`,
    );
    expect(devices).toContain('ide-cd,drive=cd0,bus=ide.1,id=cdrom0');
    expect(devices).toContain(`ide-cd,drive=seed,bus=ide.1,id=${SEED_DEVICE}`);
    // Images without cloud-init still read their settings through fw_cfg.
    expect(args).toContain('name=opt/topoplay/hostname,string=web-1');
    expect(args.filter((a) => a.startsWith('name=opt/guestinfo.'))).toHaveLength(2);
    expect(qemuArgs({ ...launch, seed: null }).join(' ')).not.toContain('id=seed');
  });

  it('gives a new instance-id when the settings change or the disk is reverted, only then', async () => {
    const record = await machine();
    const first = instanceIdOf((await plan(record)).seed!);
    expect(first).toMatch(new RegExp(`^topoplay-${record.id}-[0-9a-f]{16}$`));
    expect(instanceIdOf((await plan(record)).seed!)).toBe(first);
    record.guestSettings = [...record.guestSettings, { key: 'guestinfo.flag', value: 'other' }];
    const changed = instanceIdOf((await plan(record)).seed!);
    expect(changed).not.toBe(first);
    // A revert makes the overlay anew.
    await createOverlay(record.disks[0]!.base!, machineFiles(layout, record.id).overlay(0));
    expect(instanceIdOf((await plan(record)).seed!)).not.toBe(changed);
  });

  it('still starts the machine, without a seed, where xorriso cannot run', async () => {
    const warnings: string[] = [];
    const record = await machine();
    const launch = await launchPlanOf(record, {
      layout,
      acceleration: 'tcg',
      xorriso: join(root, 'no-xorriso'),
      log: { warn: (_o, msg) => warnings.push(msg ?? '') },
    });
    expect(launch.seed).toBeNull();
    expect(warnings).toContain('no cloud-init seed for this machine');
    expect(existsSync(join(machineFiles(layout, record.id).dir, 'seed.iso'))).toBe(false);
  });
});

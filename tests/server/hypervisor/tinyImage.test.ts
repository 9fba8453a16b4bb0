import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { kernelCommandLine } from '../../../server/hypervisor/qemu/processes';
import { openQmp, type QmpConnection } from '../../../server/hypervisor/qemu/qmp';
import {
  buildTinyImage,
  TINY_MIN_MEMORY_MB,
  type TinyImageFiles,
} from '../../../server/hypervisor/qemu/tinyImage';
import { freePort } from '../ports';

// The stock tiny image booted for real under QEMU's software emulation: two machines joined by a
// socket netdev, each named and given a guest setting through fw_cfg. The image is built once
// into node_modules/.cache, so only the first run pays for the download. Serial and QMP are unix
// sockets; the machines start paused (-S) and are continued once the test listens to the serial
// port, so no byte of the boot is missed.

const CACHE = resolve('node_modules/.cache/topoplay-images');
const available = spawnSync('qemu-system-x86_64', ['--version']).status === 0;
// A boot takes 3 to 6 s on an idle host without KVM and 19 s at a load average of 9; a reboot
// under that load was seen to need more than 30 s. The wait is for the boot's own line, so a
// generous bound costs nothing when the boot is quick.
const BOOT_MS = 180_000;

interface Vm {
  process: ChildProcess;
  qmp: QmpConnection;
  serial: Socket;
  output: string;
}

const run = promisify(execFile);
const processes: ChildProcess[] = [];
let work = '';
let image: TinyImageFiles;

async function boot(name: string, mac: string, netdev: string): Promise<Vm> {
  const disk = join(work, `${name}.qcow2`);
  await run('qemu-img', ['create', '-q', '-f', 'qcow2', '-F', 'qcow2', '-b', image.disk, disk]);
  const qmpPath = join(work, `${name}.qmp`);
  const serialPath = join(work, `${name}.serial`);
  // As the qemu driver boots it under software emulation.
  const cmdline = kernelCommandLine((await readFile(image.cmdline, 'utf8')).trim(), 'tcg');
  const child = spawn(
    'qemu-system-x86_64',
    [
      ...['-accel', 'tcg', '-m', String(TINY_MIN_MEMORY_MB), '-nodefaults', '-S'],
      ...['-display', 'none', '-vga', 'std'],
      ...['-kernel', image.kernel, '-initrd', image.initrd, '-append', cmdline],
      ...['-drive', `file=${disk},if=virtio,format=qcow2`],
      ...['-qmp', `unix:${qmpPath},server=on,wait=off`],
      ...['-chardev', `socket,id=serial,path=${serialPath},server=on,wait=off`],
      ...['-serial', 'chardev:serial'],
      // No option ROM on the NIC: the kernel is booted directly, and iPXE would only cost time.
      ...[
        '-netdev',
        `socket,id=n0,${netdev}`,
        '-device',
        `virtio-net-pci,netdev=n0,mac=${mac},romfile=`,
      ],
      ...['-fw_cfg', 'name=opt/topoplay/hostname,string=web'],
      ...['-fw_cfg', 'name=opt/guestinfo.flag,string=ABC123'],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  processes.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // The monitor answers only once QEMU has set up every device, the listening netdev included.
  const qmp = await vi.waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`qemu exited: ${stderr}`);
      if (!existsSync(qmpPath) || !existsSync(serialPath)) throw new Error('no sockets yet');
      return openQmp(qmpPath);
    },
    { timeout: 10_000, interval: 50 },
  );
  const vm: Vm = { process: child, qmp, serial: connect(serialPath), output: '' };
  vm.serial.setEncoding('utf8');
  vm.serial.on('data', (chunk: string) => (vm.output += chunk));
  await new Promise((ready) => vm.serial.once('connect', ready));
  await qmp.execute('cont');
  return vm;
}

/** Waits until `text` appears in the serial output after `from`; returns where it ends. */
async function serialShows(vm: Vm, text: string, from = 0, timeout = BOOT_MS): Promise<number> {
  return vi.waitFor(
    () => {
      const at = vm.output.indexOf(text, from);
      if (at < 0)
        throw new Error(`serial never showed ${JSON.stringify(text)}:\n${vm.output.slice(from)}`);
      return at + text.length;
    },
    { timeout, interval: 100 },
  );
}

/**
 * The VGA text screen, 80x25, read from guest memory: each cell is a character byte followed by
 * an attribute byte, and `xp` prints the bytes as hexadecimal numbers after an address.
 */
async function screen(vm: Vm): Promise<string[]> {
  const dump = await vm.qmp.execute<string>('human-monitor-command', {
    'command-line': 'xp /4000xb 0xb8000',
  });
  const bytes = dump
    .split('\n')
    .flatMap((line) => line.split(':').slice(1).join(':').trim().split(/\s+/))
    .filter(Boolean)
    .map((hex) => parseInt(hex, 16));
  const text = bytes.filter((_, i) => i % 2 === 0).map((code) => String.fromCharCode(code));
  return Array.from({ length: 25 }, (_, row) => text.slice(row * 80, row * 80 + 80).join(''));
}

describe.skipIf(!available)('the tiny image under QEMU', () => {
  let a: Vm;
  let b: Vm;

  beforeAll(async () => {
    image = await buildTinyImage(CACHE);
    work = mkdtempSync(join(tmpdir(), 'tiny-'));
    const port = await freePort();
    a = await boot('a', '52:54:00:0a:00:01', `listen=127.0.0.1:${port}`);
    b = await boot('b', '52:54:00:0a:00:02', `connect=127.0.0.1:${port}`);
  }, 240_000);

  afterAll(() => {
    for (const child of processes) child.kill('SIGKILL');
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it(
    'boots to a root prompt named from fw_cfg and prints its address and guest settings',
    async () => {
      const end = await serialShows(a, 'web:~# ');
      const banner = a.output.slice(a.output.indexOf('Topoplay tiny machine'), end);
      expect(banner).toContain('Topoplay tiny machine web');
      expect(banner).toContain('eth0 52:54:00:0a:00:01 10.10.0.1/8');
      expect(banner).toContain('guestinfo.flag = ABC123');
    },
    // The boot's own wait (BOOT_MS), not vitest's default 20 s, decides when it is too slow.
    BOOT_MS + 10_000,
  );

  it(
    'shows the banner and the prompt on the VGA text screen',
    async () => {
      await vi.waitFor(
        async () => {
          const rows = (await screen(a)).join('\n');
          expect(rows).toContain('guestinfo.flag = ABC123');
          expect(rows).toContain('web:~# ');
        },
        { timeout: BOOT_MS, interval: 250 },
      );
    },
    BOOT_MS + 10_000,
  );

  it('reaches the other machine at the address its MAC gives it', async () => {
    await serialShows(b, 'web:~# ');
    const from = a.output.length;
    a.serial.write('ping -c 1 -W 2 10.10.0.2\n');
    await serialShows(a, '1 packets received', from, 10_000);
  });

  it(
    'keeps what is written to /root on its disk across a reboot',
    async () => {
      const from = a.output.length;
      a.serial.write('echo kept-$((6 * 7)) > /root/note; sync; reboot\n');
      const rebooted = await serialShows(a, 'Topoplay tiny machine web', from);
      const prompt = await serialShows(a, 'web:~# ', rebooted);
      a.serial.write('cat /root/note\n');
      await serialShows(a, 'kept-42', prompt, 10_000);
    },
    // Two waits of up to BOOT_MS each: the boot's line, then its prompt.
    2 * BOOT_MS + 20_000,
  );
});

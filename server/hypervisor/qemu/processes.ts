import { execFile, spawn } from 'node:child_process';
import { constants, accessSync, realpathSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { DriverError } from '../types';
import { probeKey, readProbe, writeProbe } from './accelerationCache';
import { messageOf } from './disks';
import { MACS_FW_CFG } from './guestAgent';
import { openQmp } from './qmp';
import type { ImageDevice } from './debianRecipes';
import type { machineFiles } from './layout';

// One QEMU process per machine. It is started daemonized (it outlives the server, which re-attaches
// to it after a restart through its pid file and its monitor socket) and named
// `topoplay-{machine id}` so that a process whose machine is gone can be found and removed. It has
// no network but its NICs' sockets (which only the switch connects to), its VNC display only on a
// unix socket (which only the console WebSocket bridges to, behind a one-time ticket), and its
// monitor and serial port on unix sockets in the machine's folder.

const run = promisify(execFile);

export const QEMU_BINARY = 'qemu-system-x86_64';

/**
 * How machines run: `kvm` with the host's CPU model, `kvm-default-cpu` with QEMU's default model
 * (a nested or restricted host whose KVM cannot take the host's model: QEMU aborts on "failed to
 * set MSR"), or `tcg`, software emulation.
 */
export type Acceleration = 'kvm' | 'kvm-default-cpu' | 'tcg';

/** How long a probe guest may take to show it runs: with working KVM, well under a second. */
const PROBE_MS = 8_000;

/**
 * Whether a guest really runs with these arguments: with a kernel, it prints its banner on the
 * serial port; without one, the firmware prints its own on QEMU's debug port. Some hosts open
 * /dev/kvm and start QEMU, yet no guest kernel runs (a paravirtualized KVM inside a cloud VM that
 * only runs kernels built for it): only a guest that prints something tells.
 */
function guestRuns(args: string[], kernel: string | null): Promise<boolean> {
  const [output, expected] = kernel
    ? [
        ['-serial', 'stdio', '-kernel', kernel, '-append', 'console=ttyS0 panic=-1', '-no-reboot'],
        'Linux version',
      ]
    : [
        ['-chardev', 'stdio,id=probe', '-device', 'isa-debugcon,iobase=0x402,chardev=probe'],
        'SeaBIOS',
      ];
  return new Promise((resolve) => {
    let seen = '';
    let done = false;
    const child = spawn(
      QEMU_BINARY,
      [...args, '-nodefaults', '-display', 'none', '-m', '128', ...output],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const finish = (runs: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve(runs);
    };
    const timer = setTimeout(() => finish(false), PROBE_MS);
    child.on('error', () => finish(false));
    child.on('exit', () => finish(seen.includes(expected)));
    child.stdout.on('data', (chunk: Buffer) => {
      // Only the tail is kept: the banner is all that is looked for.
      seen = (seen + chunk.toString('latin1')).slice(-4096);
      if (seen.includes(expected)) finish(true);
    });
  });
}

/**
 * What the host can do does not change while the process runs: it is probed once per kernel
 * file, however many image folders link to it (each driver's folder has its own path to it).
 */
const probed = new Map<string, Promise<Acceleration>>();

function fileKey(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * KVM when /dev/kvm can be opened and a guest really runs with it, with the host's CPU model
 * when that works too; software emulation otherwise. Probed once per process, when a driver
 * starts, or read from what another process of this boot of the host probed; the probe boots
 * `kernel` (the tiny image's) when there is one.
 */
export function detectAcceleration(kernel: string | null): Promise<Acceleration> {
  const key = kernel === null ? '' : fileKey(kernel);
  const known = probed.get(key);
  if (known) return known;
  const result = probeAcceleration(kernel);
  probed.set(key, result);
  return result;
}

const ACCELERATIONS: readonly string[] = ['kvm', 'kvm-default-cpu', 'tcg'] satisfies Acceleration[];

async function probeAcceleration(kernel: string | null): Promise<Acceleration> {
  try {
    accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
  } catch {
    return 'tcg';
  }
  // Another process of this boot of the host may have probed already (accelerationCache.ts).
  const key = probeKey(QEMU_BINARY, kernel);
  const kept = key === null ? undefined : readProbe(key);
  if (kept !== undefined && ACCELERATIONS.includes(kept)) return kept as Acceleration;
  const found: Acceleration = (await guestRuns(
    ['-machine', 'pc,accel=kvm', '-cpu', 'host'],
    kernel,
  ))
    ? 'kvm'
    : (await guestRuns(['-machine', 'pc,accel=kvm'], kernel))
      ? 'kvm-default-cpu'
      : 'tcg';
  if (key !== null) writeProbe(key, found);
  return found;
}

/**
 * A directly booted kernel's command line as QEMU gets it. Under software emulation on a busy
 * host, the kernel's early check that timer interrupts arrive through the IO-APIC can miss them
 * and panic ("IO-APIC + timer doesn't work!"), which costs the boot a reboot, or the boot itself
 * with `panic=-1`: `no_timer_check` skips that check, as cloud images do in virtual machines.
 */
export function kernelCommandLine(cmdline: string, acceleration: Acceleration): string {
  if (acceleration !== 'tcg' || /(^|\s)no_timer_check(\s|$)/.test(cmdline)) return cmdline;
  return `${cmdline} no_timer_check`.trim();
}

export const accelerationLabel = (a: Acceleration): string =>
  a === 'kvm'
    ? 'KVM'
    : a === 'kvm-default-cpu'
      ? "KVM (QEMU's default CPU model: the host's is refused)"
      : 'software emulation (no KVM)';

export interface LaunchPlan {
  id: string;
  hostname: string;
  files: ReturnType<typeof machineFiles>;
  acceleration: Acceleration;
  sockets: number;
  coresPerSocket: number;
  memoryMiB: number;
  disks: Array<{ overlay: string; controller: string | null }>;
  /** `model`: the adapter as the template names it (nicModelOf makes QEMU's device of it). */
  nics: Array<{ index: number; mac: string; model?: string | null }>;
  /** An absolute ISO path in the CD-ROM drive, or null for an empty drive. */
  iso: string | null;
  boot: { kernel: string; initrd: string | null; cmdline: string } | null;
  /** UEFI firmware (OVMF): its shared code and the machine's own variables; null: a BIOS. */
  uefi?: { code: string; vars: string } | null;
  /** fw_cfg entries: `opt/guestinfo.{key}` with its value written to a file. */
  guestSettings: Array<{ name: string; file: string }>;
  /** The cloud-init seed ISO (CIDATA) in a second CD-ROM drive, or null for none. */
  seed: string | null;
  /** Devices the machine's image needs (its `{disk}.devices`, disks.ts devicesOf). */
  devices?: readonly ImageDevice[];
  /**
   * A saved machine's memory and device state to resume from (`-incoming`) instead of booting:
   * the file a warm image saved (warm.ts). Its machine must be launched exactly as the saved one.
   */
  incoming?: string | null;
}

/** The process name that marks a machine's QEMU: `topoplay-{id}`. */
export const processNameOf = (id: string): string => `topoplay-${id}`;

/** The id of every machine's CD-ROM drive, which ISO changes name. */
export const CDROM_DEVICE = 'cdrom0';

/** The id of the drive of a machine's cloud-init seed, beside the CD-ROM drive. */
export const SEED_DEVICE = 'seed0';

/** fw_cfg names are at most 55 bytes. */
export const FW_CFG_NAME_MAX = 55;

/**
 * The bus of a disk by the controller its template names: IDE, SATA (an AHCI controller), or
 * virtio for anything else (virtio, and vSphere's SCSI controllers: lsilogic, pvscsi, ...).
 */
export function diskBusOf(controller: string | null): 'ide' | 'sata' | 'virtio' {
  if (controller && /^(ide|ata)$/i.test(controller)) return 'ide';
  if (controller && /^(sata|ahci)$/i.test(controller)) return 'sata';
  return 'virtio';
}

/** QEMU's NIC device for a template's adapter: e1000, e1000e, rtl8139, else virtio (vmxnet3 too). */
export function nicModelOf(adapter: string | null | undefined): string {
  const model = (adapter ?? '').toLowerCase();
  return ['e1000', 'e1000e', 'rtl8139'].includes(model) ? model : 'virtio-net-pci';
}

/**
 * The clipboard of an image with spice-vdagent: QEMU's own vdagent (no SPICE server) on the port
 * the guest's agent looks for, which shares the clipboard with the VNC display's viewers (VNC's
 * extended clipboard); and a USB tablet, so that the desktop's pointer is where the viewer's is.
 */
export const VDAGENT_ARGS: readonly string[] = [
  '-device',
  'virtio-serial-pci',
  '-chardev',
  'qemu-vdagent,id=vdagent,name=vdagent,clipboard=on',
  '-device',
  'virtserialport,chardev=vdagent,name=com.redhat.spice.0',
  '-device',
  'qemu-xhci,id=usb',
  '-device',
  'usb-tablet,bus=usb.0',
];

/** An AHCI controller has six ports. */
const SATA_PORTS = 6;

/** QEMU's option values escape a comma by doubling it. */
const escaped = (value: string): string => value.replace(/,/g, ',,');

export function qemuArgs(plan: LaunchPlan): string[] {
  const { files } = plan;
  const args = [
    '-name',
    `${escaped(plan.hostname)},process=${processNameOf(plan.id)}`,
    '-nodefaults',
    '-machine',
    `pc,accel=${plan.acceleration === 'tcg' ? 'tcg' : 'kvm'}`,
    '-smp',
    `sockets=${plan.sockets},cores=${plan.coresPerSocket}`,
    '-m',
    String(plan.memoryMiB),
    '-vga',
    'std',
    '-vnc',
    `unix:${files.vnc}`,
    '-qmp',
    `unix:${files.qmp},server=on,wait=off`,
    '-serial',
    `unix:${files.serial},server=on,wait=off`,
    // The second serial port is the guest agent's (guestAgent.ts).
    '-serial',
    `unix:${files.agent},server=on,wait=off`,
    '-daemonize',
    '-pidfile',
    files.pid,
    '-D',
    files.log,
  ];
  if (plan.acceleration === 'kvm') args.push('-cpu', 'host');
  if (plan.uefi) {
    args.push(
      '-drive',
      `if=pflash,format=raw,unit=0,readonly=on,file=${escaped(plan.uefi.code)}`,
      '-drive',
      `if=pflash,format=raw,unit=1,file=${escaped(plan.uefi.vars)}`,
    );
  }
  // IDE disks fill the first IDE bus and then the second, SATA disks the AHCI controller's ports.
  let ide = 0;
  let sata = 0;
  plan.disks.forEach((disk, i) => {
    const bus = diskBusOf(disk.controller);
    if (bus === 'sata' && sata < SATA_PORTS) {
      if (sata === 0) args.push('-device', 'ahci,id=sata0');
      args.push(
        '-drive',
        `if=none,id=disk${i},file=${escaped(disk.overlay)},format=qcow2`,
        '-device',
        `ide-hd,drive=disk${i},bus=sata0.${sata++},id=sata-disk${i}`,
      );
    } else if (bus === 'ide' && ide < 4) {
      args.push('-drive', `file=${escaped(disk.overlay)},format=qcow2,if=ide,index=${ide++}`);
    } else {
      args.push('-drive', `file=${escaped(disk.overlay)},format=qcow2,if=virtio,index=${i}`);
    }
  });
  // The CD-ROM drive is always there, so that an ISO can be inserted while the machine runs.
  args.push(
    '-drive',
    `if=none,id=cd0,media=cdrom${plan.iso ? `,file=${escaped(plan.iso)},readonly=on` : ''}`,
    '-device',
    `ide-cd,drive=cd0,bus=ide.1,id=${CDROM_DEVICE}`,
  );
  // The seed takes the second IDE bus's other unit, unless a third IDE disk took one.
  if (plan.seed && ide <= 2) {
    // Read-only; cloud-init finds it by its label, whatever its device.
    args.push(
      '-drive',
      `if=none,id=seed,media=cdrom,format=raw,readonly=on,file=${escaped(plan.seed)}`,
      '-device',
      `ide-cd,drive=seed,bus=ide.1,id=${SEED_DEVICE}`,
    );
  }
  for (const nic of plan.nics) {
    args.push(
      '-netdev',
      `stream,id=n${nic.index},server=on,addr.type=unix,addr.path=${files.nic(nic.index)}`,
      '-device',
      // No option ROM: the machines boot from their disks or kernels, never from the network,
      // and iPXE's ROM costs a second of boot under software emulation.
      `${nicModelOf(nic.model)},netdev=n${nic.index},mac=${nic.mac},romfile=`,
    );
  }
  if (plan.boot) {
    args.push('-kernel', plan.boot.kernel);
    if (plan.boot.initrd) args.push('-initrd', plan.boot.initrd);
    const cmdline = kernelCommandLine(plan.boot.cmdline, plan.acceleration);
    if (cmdline) args.push('-append', cmdline);
  } else {
    // The disk first and the CD-ROM after it: a machine whose disk is empty (or holds nothing
    // bootable) boots the ISO it has, one whose disk holds a system boots that, even with the
    // installer still in the drive.
    args.push('-boot', plan.iso ? 'order=cd' : 'order=c');
  }
  if (plan.devices?.includes('vdagent')) args.push(...VDAGENT_ARGS);
  // A new VM generation ID at every launch: a guest restored from a warm image learns that it
  // is a copy and reseeds its random number generator (Linux's vmgenid driver, Windows).
  args.push('-device', 'vmgenid,guid=auto');
  args.push('-fw_cfg', `name=opt/topoplay/hostname,string=${escaped(plan.hostname)}`);
  if (plan.nics.length > 0) {
    args.push('-fw_cfg', `name=${MACS_FW_CFG},string=${plan.nics.map((nic) => nic.mac).join(' ')}`);
  }
  for (const setting of plan.guestSettings) {
    args.push('-fw_cfg', `name=${escaped(setting.name)},file=${escaped(setting.file)}`);
  }
  // `exec:` runs a shell: the path is quoted for it.
  if (plan.incoming) args.push('-incoming', `exec:cat '${plan.incoming.replace(/'/g, `'\\''`)}'`);
  return args;
}

let version: Promise<string> | null = null;

/** QEMU's version line (`QEMU emulator version 7.2.x ...`), read once. */
export function qemuVersion(): Promise<string> {
  version ??= run(QEMU_BINARY, ['--version']).then(
    ({ stdout }) => stdout.split('\n')[0]?.trim() ?? '',
    () => '',
  );
  return version;
}

/** Starts the machine's QEMU; resolves with its pid once it daemonized, or says why it failed. */
export async function launch(plan: LaunchPlan): Promise<number> {
  try {
    await run(QEMU_BINARY, qemuArgs(plan), { timeout: 30_000 });
  } catch (error) {
    throw new DriverError('unavailable', `QEMU could not start the machine: ${messageOf(error)}`);
  }
  const pid = await readPid(plan.files.pid);
  if (!pid) throw new DriverError('unavailable', 'QEMU started but wrote no pid');
  return pid;
}

export async function readPid(file: string): Promise<number | null> {
  try {
    const pid = Number((await readFile(file, 'utf8')).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

async function cmdlineOf(pid: number): Promise<string | null> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replace(/\0/g, ' ');
  } catch {
    return null;
  }
}

/** The machine's QEMU process is alive (and is that machine's, not a recycled pid). */
export async function isRunning(pid: number | null, id: string): Promise<boolean> {
  if (!pid) return false;
  const cmdline = await cmdlineOf(pid);
  return cmdline !== null && cmdline.includes(processNameOf(id)) && !(await isZombie(pid));
}

async function isZombie(pid: number): Promise<boolean> {
  try {
    const status = await readFile(`/proc/${pid}/stat`, 'utf8');
    return status.slice(status.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Every QEMU process of machines under this folder: pid and machine id. */
export async function qemuProcessesUnder(
  machinesDir: string,
): Promise<Array<{ pid: number; id: string }>> {
  const found: Array<{ pid: number; id: string }> = [];
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const cmdline = await cmdlineOf(pid);
    if (!cmdline || !cmdline.includes(`${machinesDir}/`)) continue;
    const match = /process=topoplay-([0-9a-f-]{36})/.exec(cmdline);
    if (match && !(await isZombie(pid))) found.push({ pid, id: match[1]! });
  }
  return found;
}

/** Waits until the process is gone (or the deadline passes), then kills it hard. */
export async function ended(pid: number, id: string, deadlineMs = 5_000): Promise<void> {
  // Real time: a QEMU process takes its own time to exit, whatever clock the driver runs on.
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (!(await isRunning(pid, id))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone in the meantime.
  }
}

/**
 * Stops the machine and saves its memory and device state into `file`: QMP's `migrate` to a
 * command that writes the stream, then `quit` once it has completed.
 */
export async function saveState(qmpPath: string, file: string): Promise<void> {
  const monitor = await openQmp(qmpPath);
  try {
    await monitor.execute('stop');
    await monitor.execute('migrate', { uri: `exec:cat > '${file.replace(/'/g, `'\\''`)}'` });
    // Real time: QEMU writes the state at its own pace.
    const until = Date.now() + 120_000;
    for (;;) {
      const status = await monitor.execute<{ status?: string; 'error-desc'?: string }>(
        'query-migrate',
      );
      if (status.status === 'completed') break;
      if (status.status === 'failed' || status.status === 'cancelled') {
        throw new DriverError(
          'unavailable',
          `QEMU could not save the machine: ${status['error-desc'] ?? status.status}`,
        );
      }
      if (Date.now() > until) throw new DriverError('unavailable', 'saving the machine timed out');
      await new Promise((r) => setTimeout(r, 100));
    }
    await monitor.execute('quit').catch(() => {});
  } finally {
    monitor.close();
  }
}

/**
 * Resolves once a machine launched with `-incoming` runs: QEMU loads the state, and the machine,
 * saved stopped, is continued. Rejects when the load fails (QEMU exits) or takes longer than `timeoutMs`.
 */
export async function resumed(
  qmpPath: string,
  process: { pid: number; id: string },
  timeoutMs = 60_000,
): Promise<void> {
  // Real time: the load takes what it takes.
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (!(await isRunning(process.pid, process.id))) {
      throw new DriverError('unavailable', 'QEMU could not load the saved state');
    }
    try {
      const monitor = await openQmp(qmpPath, undefined, 5_000);
      try {
        const status = await monitor.execute<{ status?: string }>('query-status');
        if (status.status === 'running') return;
        // The saved machine was stopped to be saved: once loaded, it waits to be continued.
        if (status.status === 'paused') {
          await monitor.execute('cont');
          continue;
        }
        if (status.status !== 'inmigrate' && status.status !== 'prelaunch') {
          throw new DriverError('unavailable', `the restored machine is ${status.status}`);
        }
      } finally {
        monitor.close();
      }
    } catch (error) {
      if (error instanceof DriverError && /restored machine is/.test(error.message)) throw error;
      if (Date.now() > until) throw error;
    }
    if (Date.now() > until) throw new DriverError('unavailable', 'restoring the machine timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

import { execFile } from 'node:child_process';
import {
  access,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { COPY_COMMAND, COPY_SCRIPT } from '../guestClipboard';
import { AGENT_PATH, AGENT_SCRIPT, PERSONALIZE_HOOK, SETTINGS_HOOK } from './guestAgent';
import {
  TINY_IDENTITY,
  TINY_IDENTITY_SCRIPT,
  TINY_INIT,
  TINY_INITTAB,
  TINY_GROUP,
  TINY_PERSONALIZE_HOOK,
  TINY_MODULES_DIR,
  TINY_MODULES_LIST,
  TINY_PASSWD,
  TINY_PROFILE,
  TINY_SCSI_MODULES_LIST,
} from './tinyInit';

// The stock image every qemu deployment can use without an author uploading anything: Debian's
// cloud kernel booted directly (`-kernel`/`-initrd`/`-append`) with an initramfs holding a static
// busybox and the few kernel modules a QEMU machine needs, plus a blank disk that the guest
// formats on its first boot. Built from Debian packages by `npm run images` or on the driver's
// first start; it boots to a shell prompt in a few seconds without KVM.

export const TINY_DISK = 'topoplay-tiny.qcow2';
export const TINY_KERNEL = 'topoplay-tiny.vmlinuz';
export const TINY_INITRD = 'topoplay-tiny.initrd';
export const TINY_CMDLINE = 'topoplay-tiny.cmdline';
/** What the boot files were built from (a digest): files of an older build are built again. */
export const TINY_RECIPE = 'topoplay-tiny.recipe';

/** The blank disk's virtual size: room for a player's files, nothing preallocated. */
export const TINY_DISK_SIZE = '256M';

/** The Debian packages the image is made of. */
export const TINY_KERNEL_PACKAGE = 'linux-image-cloud-amd64';
export const TINY_BUSYBOX_PACKAGE = 'busybox-static';

/**
 * The memory (MiB) the tiny machine should get at least. The kernel's own start needs the most:
 * with 72 MiB it runs out of memory before /init (while it parses its BTF type information),
 * 76 MiB is the least that boots, and this leaves room above that for what a player runs.
 */
export const TINY_MIN_MEMORY_MB = 96;

// `quiet` and `dmesg -n 1` keep kernel messages off the consoles, where they would interleave with
// the banner and the prompt; `no-scroll` makes the VGA console redraw instead of moving its start
// address, so the visible screen is always the 80x25 cells at 0xb8000. Two UARTs instead of four
// (the console's and the guest agent's, guestAgent.ts), no speculative-execution mitigations and
// no self-tests of the crypto algorithms (a quarter of a second of the kernel's start) save time
// under software emulation.
export const TINY_KERNEL_ARGS =
  'console=tty0 console=ttyS0,115200n8 quiet loglevel=3 no-scroll 8250.nr_uarts=2 ' +
  'mitigations=off cryptomgr.notests panic=5';

/**
 * Modules the guest loads on every boot, each with the kernel option that builds it: an option
 * set to `y` needs no module, one that is unset is skipped. qemu_fw_cfg gives the guest its
 * hostname and guest settings; there is no framebuffer or DRM module here, so the VGA console
 * stays in text mode and its screen can be read from guest memory.
 */
const BOOT_MODULES: ReadonlyArray<readonly [module: string, option: string]> = [
  ['virtio_pci', 'CONFIG_VIRTIO_PCI'],
  ['virtio_net', 'CONFIG_VIRTIO_NET'],
  ['virtio_blk', 'CONFIG_VIRTIO_BLK'],
  ['qemu_fw_cfg', 'CONFIG_FW_CFG_SYSFS'],
  ['e1000', 'CONFIG_E1000'],
  ['ext4', 'CONFIG_EXT4_FS'],
];

/** Modules for machines whose disk is IDE or virtio-scsi rather than virtio-blk. */
const SCSI_MODULES: ReadonlyArray<readonly [module: string, option: string]> = [
  ['ata_piix', 'CONFIG_ATA_PIIX'],
  ['virtio_scsi', 'CONFIG_SCSI_VIRTIO'],
  ['sd_mod', 'CONFIG_BLK_DEV_SD'],
];

const run = promisify(execFile);

export interface TinyImageFiles {
  disk: string;
  kernel: string;
  initrd: string;
  cmdline: string;
  recipe: string;
}

export const tinyImageFiles = (imagesDir: string): TinyImageFiles => ({
  disk: join(imagesDir, TINY_DISK),
  kernel: join(imagesDir, TINY_KERNEL),
  initrd: join(imagesDir, TINY_INITRD),
  cmdline: join(imagesDir, TINY_CMDLINE),
  recipe: join(imagesDir, TINY_RECIPE),
});

/** The userland and kernel arguments the boot files are built from. */
const USERLAND: Record<string, string> = {
  init: TINY_INIT,
  'etc/inittab': TINY_INITTAB,
  'etc/profile': TINY_PROFILE,
  'etc/passwd': TINY_PASSWD,
  'etc/group': TINY_GROUP,
  [TINY_IDENTITY.slice(1)]: TINY_IDENTITY_SCRIPT,
  [PERSONALIZE_HOOK.slice(1)]: TINY_PERSONALIZE_HOOK,
  // New settings show in the banner, which the shells started again print.
  [SETTINGS_HOOK.slice(1)]: TINY_PERSONALIZE_HOOK,
  [AGENT_PATH.slice(1)]: AGENT_SCRIPT,
  [COPY_COMMAND.slice(1)]: COPY_SCRIPT,
};

/** The digest of what the image is built from (the packages' versions aside). */
export const tinyRecipe = (): string =>
  createHash('sha256')
    .update(JSON.stringify({ userland: USERLAND, args: TINY_KERNEL_ARGS }))
    .digest('hex');

const NEEDS =
  `Building the tiny Linux image needs Debian's apt-get and dpkg-deb (with apt lists: ` +
  `apt-get update) to download the packages ${TINY_KERNEL_PACKAGE} and ${TINY_BUSYBOX_PACKAGE}, ` +
  `and qemu-img (package qemu-utils)`;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

async function tool(name: string, args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout } = await run(name, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    const detail =
      failure.code === 'ENOENT'
        ? `${name} is not installed`
        : `${name} ${args.join(' ')} failed: ${(failure.stderr ?? failure.message).trim().split('\n').slice(-3).join(' ')}`;
    throw new Error(`${NEEDS}; ${detail}.`, { cause: error });
  }
}

/**
 * Builds the tiny image into `imagesDir` unless all its files are already there. Files are written
 * under temporary names and renamed, so an interrupted build leaves nothing that looks complete;
 * an existing disk is never replaced, since overlays of deployed machines may be based on it.
 */
export async function buildTinyImage(
  imagesDir: string,
  log: (line: string) => void = () => {},
): Promise<TinyImageFiles> {
  const files = tinyImageFiles(imagesDir);
  const present = await Promise.all(Object.values(files).map(exists));
  if (present.every(Boolean) && (await readFile(files.recipe, 'utf8')).trim() === tinyRecipe()) {
    return files;
  }
  // Callers that ask while a build of the same folder runs wait for it instead of downloading
  // the packages a second time.
  const running = building.get(files.initrd);
  if (running) return running;
  const build = buildInto(files, imagesDir, log).finally(() => building.delete(files.initrd));
  building.set(files.initrd, build);
  return build;
}

const building = new Map<string, Promise<TinyImageFiles>>();

async function buildInto(
  files: TinyImageFiles,
  imagesDir: string,
  log: (line: string) => void,
): Promise<TinyImageFiles> {
  // Real time: how long the build took, for the log.
  const started = Date.now();
  await mkdir(imagesDir, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'topoplay-tiny-'));
  const suffix = `.tmp-${process.pid}`;
  try {
    const kernelPackage = versionedKernelPackage(
      await tool('apt-cache', ['depends', TINY_KERNEL_PACKAGE]),
    );
    log(`downloading ${kernelPackage} and ${TINY_BUSYBOX_PACKAGE}`);
    await tool('apt-get', ['download', '-q', kernelPackage, TINY_BUSYBOX_PACKAGE], work);
    const root = join(work, 'root');
    for (const deb of (await readdir(work)).filter((f) => f.endsWith('.deb'))) {
      await tool('dpkg-deb', ['-x', join(work, deb), root]);
    }

    const boot = await readdir(join(root, 'boot'));
    const kernelFile = boot.find((f) => f.startsWith('vmlinuz-'));
    const configFile = boot.find((f) => f.startsWith('config-'));
    if (!kernelFile || !configFile) throw new Error(`${NEEDS}; ${kernelPackage} holds no kernel.`);
    const version = kernelFile.slice('vmlinuz-'.length);
    const config = parseKernelConfig(await readFile(join(root, 'boot', configFile), 'utf8'));
    const modules = await indexModules(join(root, 'lib', 'modules', version));
    const bootModules = await loadOrder(modulesToLoad(BOOT_MODULES, config), modules);
    const scsiModules = (await loadOrder(modulesToLoad(SCSI_MODULES, config), modules)).filter(
      (m) => !bootModules.includes(m),
    );
    log(`kernel ${version}; modules ${[...bootModules, ...scsiModules].join(' ')}`);

    const entries: CpioEntry[] = [
      ...['bin', 'dev', 'etc', 'lib', TINY_MODULES_DIR.slice(1), 'proc', 'root', 'sys', 'tmp'].map(
        (name) => dir(name),
      ),
      { name: 'dev/console', mode: S_IFCHR | 0o600, rdev: [5, 1] },
      file('bin/busybox', await readFile(join(root, 'bin', 'busybox')), 0o755),
      { name: 'bin/sh', mode: S_IFLNK | 0o777, data: Buffer.from('busybox') },
      ...['etc/topoplay', 'usr', 'usr/bin', 'usr/sbin'].map((name) => dir(name)),
      ...Object.entries(USERLAND).map(([name, text]) =>
        file(name, text, text.startsWith('#!') ? 0o755 : 0o644),
      ),
      file(TINY_MODULES_LIST.slice(1), bootModules.map((m) => `${m}\n`).join('')),
      file(TINY_SCSI_MODULES_LIST.slice(1), scsiModules.map((m) => `${m}\n`).join('')),
    ];
    for (const name of [...bootModules, ...scsiModules]) {
      const path = modules.get(name);
      if (path) entries.push(file(`${TINY_MODULES_DIR.slice(1)}/${name}.ko`, await readFile(path)));
    }

    await writeFile(files.initrd + suffix, gzipSync(cpio(entries), { level: 6 }));
    await copyFile(join(root, 'boot', kernelFile), files.kernel + suffix);
    await writeFile(files.cmdline + suffix, `${TINY_KERNEL_ARGS}\n`);
    if (!(await exists(files.disk))) {
      await tool('qemu-img', ['create', '-q', '-f', 'qcow2', files.disk + suffix, TINY_DISK_SIZE]);
      await rename(files.disk + suffix, files.disk);
    }
    await writeFile(files.recipe + suffix, `${tinyRecipe()}\n`);
    for (const path of [files.kernel, files.initrd, files.cmdline, files.recipe]) {
      await rename(path + suffix, path);
    }
    log(`built the tiny image in ${imagesDir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return files;
  } finally {
    await rm(work, { recursive: true, force: true });
    await Promise.all(Object.values(files).map((path) => rm(path + suffix, { force: true })));
  }
}

/** The versioned kernel package the metapackage depends on (linux-image-6.1.0-56-cloud-amd64). */
function versionedKernelPackage(depends: string): string {
  const match = /Depends:\s*(linux-image-\d[\w.+-]*-cloud-amd64)\b/.exec(depends);
  if (!match?.[1]) throw new Error(`${NEEDS}; apt-cache knows no ${TINY_KERNEL_PACKAGE}.`);
  return match[1];
}

function parseKernelConfig(text: string): Map<string, string> {
  const options = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^(CONFIG_\w+)=(.*)$/.exec(line);
    if (match?.[1] && match[2] !== undefined) options.set(match[1], match[2]);
  }
  return options;
}

const modulesToLoad = (
  wanted: ReadonlyArray<readonly [string, string]>,
  config: Map<string, string>,
): string[] => wanted.filter(([, option]) => config.get(option) === 'm').map(([name]) => name);

/** Module name (dashes read as underscores, as the kernel does) to its .ko file. */
async function indexModules(modulesDir: string): Promise<Map<string, string>> {
  const index = new Map<string, string>();
  for (const entry of await readdir(modulesDir, { recursive: true })) {
    if (!entry.endsWith('.ko')) continue;
    const base = entry.slice(entry.lastIndexOf('/') + 1, -'.ko'.length);
    index.set(base.replace(/-/g, '_'), join(modulesDir, entry));
  }
  return index;
}

/**
 * The modules with everything they depend on, dependencies first. Debian ships no modules.dep in
 * the package (depmod writes it on install), so the dependencies are read from each module's own
 * `.modinfo` section, which is where depmod reads them too.
 */
async function loadOrder(roots: string[], modules: Map<string, string>): Promise<string[]> {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = async (name: string): Promise<void> => {
    if (seen.has(name)) return;
    seen.add(name);
    const path = modules.get(name);
    if (!path) throw new Error(`The kernel package has no module ${name}.`);
    const depends = modinfo(await readFile(path)).get('depends') ?? '';
    for (const dependency of depends.split(',').filter(Boolean)) {
      await visit(dependency.replace(/-/g, '_'));
    }
    order.push(name);
  };
  for (const name of roots) await visit(name);
  return order;
}

/** The `key=value` strings of an x86-64 kernel module's `.modinfo` ELF section. */
export function modinfo(elf: Buffer): Map<string, string> {
  const info = new Map<string, string>();
  if (elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2) return info;
  const sectionsAt = Number(elf.readBigUInt64LE(0x28));
  const sectionSize = elf.readUInt16LE(0x3a);
  const sectionCount = elf.readUInt16LE(0x3c);
  const namesSection = sectionsAt + elf.readUInt16LE(0x3e) * sectionSize;
  const namesAt = Number(elf.readBigUInt64LE(namesSection + 0x18));
  for (let i = 0; i < sectionCount; i++) {
    const header = sectionsAt + i * sectionSize;
    const nameAt = namesAt + elf.readUInt32LE(header);
    if (elf.toString('latin1', nameAt, elf.indexOf(0, nameAt)) !== '.modinfo') continue;
    const offset = Number(elf.readBigUInt64LE(header + 0x18));
    const size = Number(elf.readBigUInt64LE(header + 0x20));
    for (const field of elf.toString('latin1', offset, offset + size).split('\0')) {
      const equals = field.indexOf('=');
      if (equals > 0 && !info.has(field.slice(0, equals))) {
        info.set(field.slice(0, equals), field.slice(equals + 1));
      }
    }
  }
  return info;
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFCHR = 0o020000;

export interface CpioEntry {
  /** The path inside the archive, without a leading slash. */
  name: string;
  mode: number;
  data?: Buffer;
  /** Major and minor number of a device node. */
  rdev?: readonly [number, number];
}

const dir = (name: string): CpioEntry => ({ name, mode: S_IFDIR | 0o755 });
const file = (name: string, data: Buffer | string, permissions = 0o644): CpioEntry => ({
  name,
  mode: S_IFREG | permissions,
  data: Buffer.isBuffer(data) ? data : Buffer.from(data),
});

/**
 * A "newc" cpio archive, the format the kernel unpacks an initramfs from: per entry a 110-byte
 * ASCII header of hexadecimal fields, the NUL-terminated name and the data, each padded to four
 * bytes, ended by the `TRAILER!!!` entry. Everything belongs to root, with time 0, so the same
 * inputs give the same bytes.
 */
export function cpio(entries: readonly CpioEntry[]): Buffer {
  const parts: Buffer[] = [];
  let length = 0;
  const push = (part: Buffer) => {
    parts.push(part);
    length += part.length;
  };
  const pad = () => {
    if (length % 4) push(Buffer.alloc(4 - (length % 4)));
  };
  const hex = (value: number) => value.toString(16).padStart(8, '0');
  [...entries, { name: 'TRAILER!!!', mode: 0 }].forEach((entry, index) => {
    const data = entry.data ?? Buffer.alloc(0);
    const name = Buffer.from(`${entry.name}\0`);
    const fields = [
      index + 1,
      entry.mode,
      0,
      0,
      (entry.mode & S_IFMT) === S_IFDIR ? 2 : 1,
      0,
      data.length,
      0,
      0,
      entry.rdev?.[0] ?? 0,
      entry.rdev?.[1] ?? 0,
      name.length,
      0,
    ];
    push(Buffer.from(`070701${fields.map(hex).join('')}`, 'latin1'));
    push(name);
    pad();
    push(data);
    pad();
  });
  return Buffer.concat(parts, length);
}

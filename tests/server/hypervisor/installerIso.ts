import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { cpio, TINY_KERNEL_ARGS } from '../../../server/hypervisor/qemu/tinyImage';
import { TINY_MODULES_DIR, TINY_MODULES_LIST } from '../../../server/hypervisor/qemu/tinyInit';

// A small bootable installer ISO made from the tiny image, for the ISO install test: isolinux
// boots the tiny kernel with an initramfs whose /init writes a prepared system disk to the
// machine's empty disk and powers off. The system is a FAT disk that syslinux boots (its boot
// sector at sector 0, no partition table) into the tiny kernel with an /init that shows a marker
// on the screen. Debian's packages: xorriso, isolinux, syslinux, syslinux-common, dosfstools and
// mtools.

const run = promisify(execFile);

/** What the installed system shows on its screen. */
export const INSTALLED_MARKER = 'TOPOPLAY-INSTALLED-SYSTEM';
/** What the installer shows before it writes the disk. */
export const INSTALLING_MARKER = 'TOPOPLAY-INSTALLER-WRITING';

const ISOLINUX_BIN = '/usr/lib/ISOLINUX/isolinux.bin';
const LDLINUX = '/usr/lib/syslinux/modules/bios/ldlinux.c32';

export const INSTALLER_TOOLS = ['xorriso', 'syslinux', 'mkfs.vfat', 'mcopy'] as const;
export const INSTALLER_FILES = [ISOLINUX_BIN, LDLINUX] as const;

/** The tiny image's initramfs with `init` replaced (the kernel unpacks archives in turn). */
async function withInit(tinyInitrd: string, init: string, extra: Record<string, Buffer> = {}) {
  const overlay = cpio([
    { name: 'init', mode: 0o100755, data: Buffer.from(init) },
    ...Object.entries(extra).map(([name, data]) => ({ name, mode: 0o100644, data })),
  ]);
  return Buffer.concat([await readFile(tinyInitrd), gzipSync(overlay, { level: 1 })]);
}

const SYSTEM_INIT = `#!/bin/busybox sh
/bin/busybox mount -t devtmpfs devtmpfs /dev
/bin/busybox printf '\\033[H\\033[2J%s\\n' '${INSTALLED_MARKER}' > /dev/tty1
/bin/busybox echo '${INSTALLED_MARKER}' > /dev/ttyS0
while :; do /bin/busybox sleep 3600; done
`;

// The disk is written whole and synced before the power goes off.
const INSTALLER_INIT = `#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/sbin:/usr/sbin:/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat ${TINY_MODULES_LIST}); do insmod ${TINY_MODULES_DIR}/$m.ko 2>/dev/null; done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do usleep 100000; i=$((i + 1)); done
printf '\\033[H\\033[2J%s\\n' '${INSTALLING_MARKER}' > /dev/tty1
dd if=/system.img of=/dev/vda bs=1M conv=fsync 2>/dev/null
sync
# The marker stays on the screen for a while: a test that reads the screen every so often on a
# loaded host would miss it between the write, which is quick, and the power-off.
sleep 5
poweroff -f
`;

const syslinuxCfg = (label: string, initrd: string) =>
  [
    `DEFAULT ${label}`,
    'PROMPT 0',
    'TIMEOUT 0',
    `LABEL ${label}`,
    '  KERNEL /vmlinuz',
    `  INITRD /${initrd}`,
    `  APPEND ${TINY_KERNEL_ARGS}`,
    '',
  ].join('\n');

/** The system the installer writes: a FAT disk image that syslinux boots. */
async function systemImage(work: string, kernel: string, tinyInitrd: string): Promise<string> {
  const image = join(work, 'system.img');
  const initrd = join(work, 'system.initrd');
  const cfg = join(work, 'syslinux.cfg');
  await writeFile(initrd, await withInit(tinyInitrd, SYSTEM_INIT));
  await writeFile(cfg, syslinuxCfg('system', 'initrd'));
  // 24 MiB: the kernel, the initramfs and room to spare.
  await run('mkfs.vfat', ['-C', '-n', 'SYSTEM', image, String(24 * 1024)]);
  for (const [from, to] of [
    [kernel, '::vmlinuz'],
    [initrd, '::initrd'],
    [cfg, '::syslinux.cfg'],
  ] as const) {
    await run('mcopy', ['-i', image, from, to]);
  }
  await run('syslinux', ['--install', image]);
  return image;
}

/**
 * Writes `{work}/installer.iso`: isolinux boots the tiny kernel with the installer's initramfs,
 * which carries the system image.
 */
export async function makeInstallerIso(
  work: string,
  tiny: { kernel: string; initrd: string },
  iso: string,
): Promise<void> {
  await mkdir(join(work, 'iso', 'isolinux'), { recursive: true });
  const system = await systemImage(work, tiny.kernel, tiny.initrd);
  const tree = join(work, 'iso');
  await copyFile(ISOLINUX_BIN, join(tree, 'isolinux', 'isolinux.bin'));
  await copyFile(LDLINUX, join(tree, 'isolinux', 'ldlinux.c32'));
  await writeFile(join(tree, 'isolinux', 'isolinux.cfg'), syslinuxCfg('install', 'install.gz'));
  await copyFile(tiny.kernel, join(tree, 'vmlinuz'));
  await writeFile(
    join(tree, 'install.gz'),
    await withInit(tiny.initrd, INSTALLER_INIT, { 'system.img': await readFile(system) }),
  );
  await run('xorriso', [
    ...['-as', 'mkisofs', '-quiet', '-o', iso, '-V', 'INSTALLER'],
    ...['-b', 'isolinux/isolinux.bin', '-c', 'isolinux/boot.cat'],
    ...['-no-emul-boot', '-boot-load-size', '4', '-boot-info-table'],
    tree,
  ]);
}

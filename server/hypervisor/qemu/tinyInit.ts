import { FW_CFG_BY_NAME } from '../guestFiles';
import { AGENT_PATH } from './guestAgent';

// The tiny image's userland: busybox alone, configured by the files below. /init sets the
// machine up once (modules, hostname, addresses, guest settings, disk) and then hands PID 1 to
// busybox init, which keeps a root shell on the VGA console and one on the serial port.

/** Where the initramfs keeps the modules, named `<module>.ko`, and the lists that order them. */
export const TINY_MODULES_DIR = '/lib/modules';
/** Modules loaded on every boot, one name a line, each after the modules it depends on. */
export const TINY_MODULES_LIST = '/etc/modules';
/**
 * Modules for SCSI and IDE disks, loaded only when no virtio disk showed up: probing the IDE
 * ports under software emulation costs time a machine with a virtio disk should not pay.
 */
export const TINY_SCSI_MODULES_LIST = '/etc/modules.scsi';

/** The fw_cfg entry that names the machine, and the prefix of its guest settings. */
export const TINY_HOSTNAME_FW_CFG = 'opt/topoplay/hostname';
export const GUESTINFO_FW_CFG_PREFIX = 'opt/guestinfo.';

export const TINY_DEFAULT_HOSTNAME = 'tiny';

/** Where the tiny image keeps the script that names the machine and addresses its NICs. */
export const TINY_IDENTITY = '/etc/topoplay/identity';

// The machine's name, addresses and banner, from fw_cfg and its NICs' MACs: run by /init at boot,
// and again by the agent's personalization after a restore (its hook below).
export const TINY_IDENTITY_SCRIPT = `#!/bin/busybox sh
fw=${FW_CFG_BY_NAME}
name=${TINY_DEFAULT_HOSTNAME}
if [ -r $fw/${TINY_HOSTNAME_FW_CFG}/raw ]; then name=$(cat $fw/${TINY_HOSTNAME_FW_CFG}/raw); fi
hostname "$name"
echo "$name" > /etc/hostname

banner=/etc/banner
echo "Topoplay tiny machine $name" > $banner.new
for dev in /sys/class/net/eth*; do
  [ -e "$dev" ] || continue
  nic=\${dev##*/}
  mac=$(cat $dev/address)
  set -- $(echo $mac | tr ':' ' ')
  address=10.$((0x$4)).$((0x$5)).$((0x$6))/8
  ip addr flush dev $nic
  ip addr add $address dev $nic
  ip link set $nic up
  echo "$nic $mac $address" >> $banner.new
done

for entry in $fw/${GUESTINFO_FW_CFG_PREFIX}*; do
  [ -r "$entry/raw" ] || continue
  echo "\${entry##*/} = $(cat "$entry/raw")" >> $banner.new
done
mv $banner.new $banner
`;

// After a restore: the identity again, then the screens cleared of the saved machine's banner and
// the shells on the VGA console and the serial port ended, so that init starts new ones that print
// the new banner and prompt.
export const TINY_PERSONALIZE_HOOK = `#!/bin/busybox sh
${TINY_IDENTITY}
printf '\\033[H\\033[2J' > /dev/tty1
printf '\\033[H\\033[2J' > /dev/ttyS0
for p in /proc/[0-9]*; do
  case "$(readlink $p/fd/0)" in
    /dev/tty1|/dev/ttyS0) kill -KILL \${p#/proc/} ;;
  esac
done
`;

// Each NIC's IPv4 address comes from the last three bytes of its MAC, so whoever chose the MAC
// (the driver, a test) knows the address without asking the guest. The disk is formatted only
// when blkid finds no filesystem on it, so what a player leaves in /root survives a reboot.
export const TINY_INIT = `#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /run /tmp /root /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/sbin:/usr/sbin:/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
dmesg -n 1

for m in $(cat ${TINY_MODULES_LIST}); do insmod ${TINY_MODULES_DIR}/$m.ko 2>/dev/null; done

disk=
find_disk() {
  for d in /dev/vda /dev/sda; do
    if [ -b $d ]; then disk=$d; return 0; fi
  done
  return 1
}
if ! find_disk; then
  for m in $(cat ${TINY_SCSI_MODULES_LIST}); do insmod ${TINY_MODULES_DIR}/$m.ko 2>/dev/null; done
  # ATA ports are probed asynchronously after the driver loads.
  i=0
  while [ $i -lt 30 ] && ! find_disk; do usleep 100000; i=$((i + 1)); done
fi

ip link set lo up
${TINY_IDENTITY}

# An ext2/3/4 superblock has its magic number 0xef53 at byte 1080. A disk that has none and whose
# first MiB is all zeros is blank and gets a filesystem; any other disk is left as it is. One inode
# per 64 KiB keeps the inode tables small, so that formatting takes a fraction of a second.
if [ -n "$disk" ]; then
  magic=$(dd if=$disk bs=1 skip=1080 count=2 2>/dev/null | hexdump -e '1/2 "%04x"')
  if [ "$magic" != ef53 ] && [ -z "$(dd if=$disk bs=64k count=16 2>/dev/null | tr -d '\\000')" ]; then
    mke2fs -q -i 65536 -L topoplay $disk >/dev/null 2>&1
    magic=ef53
  fi
  if [ "$magic" = ef53 ]; then mount -t ext4 $disk /root; fi
fi

# The VGA screen still shows the BIOS and the kernel's decompressor; the banner starts a clean one.
printf '\\033[H\\033[2J' > /dev/tty1
exec /bin/busybox init
`;

// A login shell on each console reads /etc/profile, which prints the banner just above the prompt.
// `no-scroll` on the kernel command line keeps the VGA screen at 0xb8000; a shell that exits is
// started again; a reboot unmounts the disk first so that nothing written to it is lost.
export const TINY_INITTAB = `tty1::respawn:-/bin/sh
ttyS0::respawn:-/bin/sh
ttyS1::respawn:${AGENT_PATH}
::ctrlaltdel:/sbin/reboot
::shutdown:/bin/umount -a -r
`;

/** The shell finds root's home (the prompt's `~`) in /etc/passwd. */
export const TINY_PASSWD = 'root:x:0:0:root:/root:/bin/sh\n';
export const TINY_GROUP = 'root:x:0:\n';

export const TINY_PROFILE = `export PATH=/sbin:/usr/sbin:/bin:/usr/bin
export HOME=/root
cd /root
cat /etc/banner
PS1='\\h:\\w# '
`;

import { GUEST_SETTINGS_DIR } from '../cloudInit';
import { GUEST_SETTINGS_FILE } from '../guestFiles';
import { COPY_COMMAND, COPY_SCRIPT } from '../guestClipboard';
import {
  AGENT_PATH,
  AGENT_PORT,
  AGENT_SCRIPT,
  PERSONALIZE_HOOK,
  SETTINGS_HOOK,
} from './guestAgent';

// What the Debian stock images are made of, as data: the packages mmdebstrap installs, the files
// written into the root filesystem afterwards, the systemd units enabled or masked, and the kernel
// command line written beside the disk. `debianImage.ts` builds them; nothing here touches disk, so
// the recipes can be checked without building. `debian-12.qcow2` is a small Debian bookworm server
// configured by cloud-init from a NoCloud seed (an ISO labelled CIDATA); `router.qcow2` is the same
// plus nftables and dnsmasq, routing and masquerading from its first NIC (lan) to its second (wan).

export const DEBIAN_SUITE = 'bookworm';
export const DEBIAN_MIRROR = 'http://deb.debian.org/debian';
const SECURITY_MIRROR = 'http://deb.debian.org/debian-security';

/** The apt sources the image is installed from, which it keeps for `apt update`. */
export const DEBIAN_SOURCES: readonly string[] = [
  `deb ${DEBIAN_MIRROR} ${DEBIAN_SUITE} main`,
  `deb ${DEBIAN_MIRROR} ${DEBIAN_SUITE}-updates main`,
  `deb ${SECURITY_MIRROR} ${DEBIAN_SUITE}-security main`,
];

export interface RecipeFile {
  /** Absolute path inside the image. */
  path: string;
  content: string;
  mode?: number;
}

export interface ImageRecipe {
  /** The disk's file name in the images folder; its boot files sit beside it. */
  image: string;
  hostname: string;
  packages: readonly string[];
  files: readonly RecipeFile[];
  enable: readonly string[];
  mask: readonly string[];
  /** The kernel command line, written to `{image without .qcow2}.cmdline`. */
  cmdline: string;
  /** The disk's virtual size (qemu-img/mkfs notation); the ext4 filesystem fills it. */
  diskSize: string;
  /**
   * Devices the image's machines get besides the usual ones (written to `{image}.devices`, which
   * goes wherever the disk goes): `vdagent`, QEMU's clipboard channel to the guest's
   * spice-vdagent. Left out for images without.
   */
  devices?: readonly ImageDevice[];
}

/** A device a machine gets because its image has what uses it (processes.ts). */
export const IMAGE_DEVICES = ['vdagent'] as const;
export type ImageDevice = (typeof IMAGE_DEVICES)[number];

/** The label of the root filesystem, which the kernel command line mounts. */
export const ROOT_LABEL = 'root';

/**
 * The disk is one ext4 filesystem without a partition table, found by its label so that it mounts
 * whether the machine's disk is virtio (/dev/vda) or IDE (/dev/sda). `net.ifnames=0` names the
 * NICs eth0, eth1... in the machine's order; the last `console=` (the serial port) is where
 * systemd writes its status, and both consoles get a login prompt. `nomodeset` keeps the kernel's
 * bochs-drm driver off the VGA card, so tty1 stays in VGA text mode: the console shows the same
 * screen, and the machine's monitor can read its text (qmp.ts `screenText`) as it does the tiny
 * image's.
 */
export const DEBIAN_KERNEL_ARGS =
  `root=LABEL=${ROOT_LABEL} rw console=tty0 console=ttyS0,115200n8 net.ifnames=0 quiet ` +
  'mitigations=off nomodeset';

/** No Recommends, so only these and what they depend on are installed. */
export const BASE_PACKAGES: readonly string[] = [
  'systemd',
  'systemd-sysv',
  'systemd-resolved',
  'udev',
  'dbus',
  'kmod',
  'e2fsprogs',
  'netbase',
  'linux-image-amd64',
  'initramfs-tools',
  'openssh-server',
  'cloud-init',
  'qemu-guest-agent',
  'sudo',
  'curl',
  'ca-certificates',
  'python3',
  'iproute2',
  'iputils-ping',
  'netcat-openbsd',
  'bind9-dnsutils',
  'traceroute',
  'less',
  'vim-tiny',
];

export const ROUTER_PACKAGES: readonly string[] = [...BASE_PACKAGES, 'nftables', 'dnsmasq'];

/** Directories dpkg leaves out of the image (copyright files are kept). */
export const DPKG_EXCLUDES: readonly string[] = [
  'path-exclude=/usr/share/doc/*',
  'path-include=/usr/share/doc/*/copyright',
  'path-exclude=/usr/share/man/*',
  'path-exclude=/usr/share/info/*',
  'path-exclude=/usr/share/locale/*',
  'path-include=/usr/share/locale/locale.alias',
];

// cloud-init looks only at a NoCloud seed (or nothing), never for a cloud's metadata server. The
// image has no locales but C.UTF-8, and makes no RSA or DSA host keys (seconds under emulation).
const CLOUD_INIT_CFG = `# Topoplay: configured by a NoCloud seed (an ISO labelled CIDATA), or not at all.
datasource_list: [ NoCloud, None ]
locale: C.UTF-8
ssh_genkeytypes: [ ed25519, ecdsa ]
system_info:
  network:
    renderers: [ networkd ]
`;

// The router's network is its own (below); a seed still sets users, keys and files.
const ROUTER_CLOUD_INIT_CFG = `# Topoplay router: the interfaces are configured by the image.
network:
  config: disabled
`;

// The image ships without SSH host keys (every machine would share them); cloud-init makes new
// ones on first boot, and this makes them when cloud-init did not run.
const SSH_HOST_KEYS = `[Service]
ExecStartPre=
ExecStartPre=/bin/sh -c 'ls /etc/ssh/ssh_host_*_key >/dev/null 2>&1 || ssh-keygen -A'
ExecStartPre=/usr/sbin/sshd -t
`;

// The qemu driver hands each machine its name through fw_cfg; a seed's hostname comes later.
const FW_CFG_HOSTNAME = `[Unit]
Description=Hostname from QEMU fw_cfg (Topoplay)
DefaultDependencies=no
After=systemd-remount-fs.service
Before=sysinit.target cloud-init-local.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'modprobe qemu_fw_cfg; f=/sys/firmware/qemu_fw_cfg/by_name/opt/topoplay/hostname/raw; if [ -r "$f" ]; then hostname "$(cat "$f")" || true; fi'

[Install]
WantedBy=sysinit.target
`;

// The guest agent (guestAgent.ts) answers once cloud-init has finished. It is not ordered after
// cloud-final.service, which runs after multi-user.target: that would be an ordering cycle, and
// systemd would drop the agent.
const AGENT_UNIT = `[Unit]
Description=Topoplay guest agent on ${AGENT_PORT}
After=systemd-networkd.service ssh.service getty.target

[Service]
ExecStart=${AGENT_PATH} ${AGENT_PORT}
Restart=always
RestartSec=1

[Install]
WantedBy=multi-user.target
`;

// The guest settings given through fw_cfg, as files (what cloud-init writes at a cold boot).
const COPY_SETTINGS = `mkdir -p ${GUEST_SETTINGS_DIR}
for entry in $fw/opt/guestinfo.*; do
  [ -r "$entry/raw" ] || continue
  key=\${entry##*/opt/guestinfo.}
  cat "$entry/raw" > "${GUEST_SETTINGS_DIR}/$key"
done
`;

// Guest settings given while the machine runs (the agent's settings, which writes them all to
// ${GUEST_SETTINGS_FILE} and says which cloud.* ones changed): the same files, and what
// cloud-init does with the \`cloud.*\` settings at a boot that a running machine can take, when
// they changed: its user, that user's password, keys and sudo (the image's default user, debian,
// without cloud.user). Addresses change at the next start. Unchanged settings cost nothing: a
// password hashed again takes seconds under software emulation.
const SETTINGS = `#!/bin/sh
conf=${GUEST_SETTINGS_FILE}
# Each setting as a file, from the agent's list (the last value of a key wins), with the shell's
# own commands: every program started costs tens of milliseconds under emulation.
[ -d ${GUEST_SETTINGS_DIR} ] || mkdir -p ${GUEST_SETTINGS_DIR}
while IFS= read -r line; do
  name=\${line%%=*}
  name=\${name#guestinfo.}
  case "$name" in '' | */* | . | .. | *[!A-Za-z0-9_.-]*) continue ;; esac
  if [ "$name" = cloud.password ]; then
    (umask 077; printf '%s' "\${line#*=}" > "${GUEST_SETTINGS_DIR}/$name")
  else
    printf '%s' "\${line#*=}" > "${GUEST_SETTINGS_DIR}/$name"
  fi
done < $conf
# The cloud.* settings as before (the agent says which changed): nothing more to do.
[ -n "$TOPOPLAY_CHANGED" ] || exit 0
changed() { case " $TOPOPLAY_CHANGED " in *" $1 "*) return 0 ;; esac; return 1; }
# A setting's values in the list, keys with or without their guestinfo. prefix.
values() { sed -n "s/^\\(guestinfo\\.\\)\\{0,1\\}$1=//p" $conf; }
last() { values "$1" | tail -n 1; }
user=$(last cloud.user)
if [ -n "$user" ] && ! id "$user" >/dev/null 2>&1; then useradd -m -s /bin/bash "$user"; fi
target=\${user:-debian}
id "$target" >/dev/null 2>&1 || exit 0
password=$(last cloud.password)
if [ -n "$password" ] && { changed cloud.password || changed cloud.user; }; then
  printf '%s:%s\\n' "$target" "$password" | chpasswd
fi
home=$(getent passwd "$target" | cut -d: -f6)
keys=$(values cloud.ssh_authorized_keys)
if [ -n "$keys" ] && [ -n "$home" ] && { changed cloud.ssh_authorized_keys || changed cloud.user; }; then
  mkdir -p "$home/.ssh"
  printf '%s\\n' "$keys" >> "$home/.ssh/authorized_keys"
  chown -R "$target:" "$home/.ssh"
  chmod 700 "$home/.ssh"
  chmod 600 "$home/.ssh/authorized_keys"
fi
if [ "$(last cloud.sudo)" = true ]; then
  echo "$target ALL=(ALL) NOPASSWD:ALL" > /etc/sudoers.d/90-topoplay-$target
  chmod 440 /etc/sudoers.d/90-topoplay-$target
fi
`;

// After a restore, the rest of what makes the machine its own: its name in /etc/hosts, its guest
// settings as files, its NICs configured again (their MACs changed), its screens cleared of the
// saved machine's and given login prompts that show its name; then, after the agent has answered,
// SSH host keys and a machine-id of its own. SSH is stopped first and starts only with the new
// keys: the warm image's keys are never served.
const PERSONALIZE = `#!/bin/sh
fw=/sys/firmware/qemu_fw_cfg/by_name
systemctl stop ssh.service
name=$(hostname)
sed -i "s/^127.0.1.1.*/127.0.1.1\t$name/" /etc/hosts
${COPY_SETTINGS}networkctl reload
for dev in /sys/class/net/eth*; do networkctl reconfigure "\${dev##*/}"; done
printf '\\033[H\\033[2J' > /dev/tty1
printf '\\033[H\\033[2J' > /dev/ttyS0
systemctl --no-block restart getty@tty1.service serial-getty@ttyS0.service
(
  rm -f /etc/ssh/ssh_host_*
  ssh-keygen -q -N '' -t ed25519 -f /etc/ssh/ssh_host_ed25519_key
  ssh-keygen -q -N '' -t ecdsa -f /etc/ssh/ssh_host_ecdsa_key
  rm -f /etc/machine-id
  systemd-machine-id-setup >/dev/null
  systemctl start ssh.service
) </dev/null >/dev/null 2>&1 &
`;

export const baseFiles = (hostname: string): RecipeFile[] => [
  { path: '/etc/hostname', content: `${hostname}\n` },
  {
    path: '/etc/hosts',
    content: `127.0.0.1\tlocalhost\n127.0.1.1\t${hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
  },
  { path: '/etc/default/locale', content: 'LANG=C.UTF-8\n' },
  // Devices of QEMU's pc machine that nobody uses in a lab, each a moment of the boot.
  { path: '/etc/modprobe.d/topoplay.conf', content: 'blacklist floppy\nblacklist pcspkr\n' },
  { path: '/etc/fstab', content: `LABEL=${ROOT_LABEL}\t/\text4\terrors=remount-ro\t0\t1\n` },
  { path: '/etc/cloud/cloud.cfg.d/90_topoplay.cfg', content: CLOUD_INIT_CFG },
  { path: '/etc/systemd/system/ssh.service.d/host-keys.conf', content: SSH_HOST_KEYS },
  { path: '/etc/systemd/system/topoplay-hostname.service', content: FW_CFG_HOSTNAME },
  { path: AGENT_PATH, content: AGENT_SCRIPT, mode: 0o755 },
  { path: COPY_COMMAND, content: COPY_SCRIPT, mode: 0o755 },
  { path: PERSONALIZE_HOOK, content: PERSONALIZE, mode: 0o755 },
  { path: SETTINGS_HOOK, content: SETTINGS, mode: 0o755 },
  { path: '/etc/systemd/system/topoplay-agent.service', content: AGENT_UNIT },
];

/** eth0 faces the lab's `lan` network, eth1 its `wan`. */
export const ROUTER_LAN = { device: 'eth0', address: '10.0.0.1/24' } as const;
export const ROUTER_WAN = { device: 'eth1' } as const;
export const ROUTER_DHCP_RANGE = '10.0.0.100,10.0.0.199,255.255.255.0,12h';

const ROUTER_NFTABLES = `#!/usr/sbin/nft -f
# Topoplay router: forward everything, masquerade what leaves by wan (${ROUTER_WAN.device}).
flush ruleset

table ip nat {
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    oifname "${ROUTER_WAN.device}" masquerade
  }
}
`;

// Upstream DNS is what systemd-resolved learned on wan (dnsmasq rereads the file when it
// changes), not resolved's stub or a resolvconf file that nothing fills.
const ROUTER_DNSMASQ = `# Topoplay router: DHCP and DNS for lan (${ROUTER_LAN.device}) only.
interface=${ROUTER_LAN.device}
except-interface=lo
bind-dynamic
resolv-file=/run/systemd/resolve/resolv.conf
dhcp-range=${ROUTER_DHCP_RANGE}
dhcp-option=option:router,${ROUTER_LAN.address.split('/')[0]}
dhcp-option=option:dns-server,${ROUTER_LAN.address.split('/')[0]}
`;

const routerFiles = (): RecipeFile[] => [
  {
    path: '/etc/systemd/network/10-lan.network',
    content:
      `[Match]\nName=${ROUTER_LAN.device}\n\n[Network]\nAddress=${ROUTER_LAN.address}\n` +
      'ConfigureWithoutCarrier=yes\n',
  },
  {
    path: '/etc/systemd/network/20-wan.network',
    content: `[Match]\nName=${ROUTER_WAN.device}\n\n[Network]\nDHCP=ipv4\n`,
  },
  { path: '/etc/sysctl.d/90-router.conf', content: 'net.ipv4.ip_forward=1\n' },
  { path: '/etc/nftables.conf', content: ROUTER_NFTABLES, mode: 0o755 },
  { path: '/etc/dnsmasq.d/lan.conf', content: ROUTER_DNSMASQ },
  // Debian's script would pass `-r /run/dnsmasq/resolv.conf`, since systemd-resolved provides a
  // resolvconf command; the package's CONFIG_DIR line is kept.
  {
    path: '/etc/default/dnsmasq',
    content:
      'CONFIG_DIR=/etc/dnsmasq.d,.dpkg-dist,.dpkg-old,.dpkg-new\n' +
      'IGNORE_RESOLVCONF=yes\nDNSMASQ_EXCEPT="lo"\n',
  },
  { path: '/etc/cloud/cloud.cfg.d/91_router.cfg', content: ROUTER_CLOUD_INIT_CFG },
];

export const BASE_ENABLE = [
  'topoplay-hostname.service',
  'topoplay-agent.service',
  'systemd-networkd.service',
  'systemd-resolved.service',
  'ssh.service',
  'getty@tty1.service',
  'serial-getty@ttyS0.service',
];

// Lab networks have no DHCP unless a router serves it: nothing waits for the network to be up.
export const BASE_MASK = ['systemd-networkd-wait-online.service'];

export const DEBIAN_RECIPE: ImageRecipe = {
  image: 'debian-12.qcow2',
  hostname: 'debian',
  packages: BASE_PACKAGES,
  files: baseFiles('debian'),
  enable: BASE_ENABLE,
  mask: BASE_MASK,
  cmdline: DEBIAN_KERNEL_ARGS,
  diskSize: '4G',
};

export const ROUTER_RECIPE: ImageRecipe = {
  image: 'router.qcow2',
  hostname: 'router',
  packages: ROUTER_PACKAGES,
  files: [...baseFiles('router'), ...routerFiles()],
  enable: [...BASE_ENABLE, 'nftables.service', 'dnsmasq.service'],
  mask: BASE_MASK,
  cmdline: DEBIAN_KERNEL_ARGS,
  diskSize: '2G',
};

export const DEBIAN_RECIPES: readonly ImageRecipe[] = [DEBIAN_RECIPE, ROUTER_RECIPE];

/** The mmdebstrap arguments that install a recipe's packages into `target` (a directory). */
export function mmdebstrapArgs(recipe: ImageRecipe, target: string, aptCache: string): string[] {
  return [
    '--mode=root',
    '--variant=minbase',
    '--format=directory',
    '--aptopt=APT::Install-Recommends "false"',
    ...DPKG_EXCLUDES.map((option) => `--dpkgopt=${option}`),
    `--include=${recipe.packages.join(',')}`,
    // The downloaded packages are kept in aptCache for the next build, and not in the image.
    '--skip=download/empty',
    '--skip=essential/unlink',
    '--setup-hook=mkdir -p "$1"/var/cache/apt/archives/',
    `--setup-hook=sync-in '${aptCache}' /var/cache/apt/archives/`,
    `--customize-hook=sync-out /var/cache/apt/archives '${aptCache}'`,
    '--customize-hook=rm -f "$1"/var/cache/apt/archives/*.deb',
    DEBIAN_SUITE,
    target,
    ...DEBIAN_SOURCES,
  ];
}

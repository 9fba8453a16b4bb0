import {
  BASE_ENABLE,
  BASE_MASK,
  BASE_PACKAGES,
  baseFiles,
  DEBIAN_RECIPES,
  ROOT_LABEL,
  type ImageRecipe,
  type RecipeFile,
} from './debianRecipes';

// `debian-desktop.qcow2`: the Debian server of debianRecipes.ts with a small X desktop (Xorg,
// IceWM, xterm, Mousepad) that user debian is logged in to on tty1, and spice-vdagent, which
// shares the desktop's clipboard with the console through QEMU's qemu-vdagent channel (the
// image's `vdagent` device, processes.ts).

/** The server's packages, and X with a window manager, a terminal, an editor and the agent. */
export const DESKTOP_PACKAGES: readonly string[] = [
  ...BASE_PACKAGES,
  'libpam-systemd',
  'dbus-user-session',
  'xserver-xorg-core',
  'xserver-xorg-legacy',
  'xserver-xorg-input-libinput',
  'xserver-xorg-video-fbdev',
  'xinit',
  'xauth',
  'xfonts-base',
  'fonts-dejavu-core',
  'icewm',
  'xterm',
  'mousepad',
  'xclip',
  'spice-vdagent',
];

/**
 * Without `nomodeset`: the kernel's bochs-drm driver takes QEMU's standard VGA, and X draws on it
 * with the modesetting driver (no acceleration, which software emulation would not have anyway).
 * The boot's messages go to the serial port, the last console.
 */
export const DESKTOP_KERNEL_ARGS =
  `root=LABEL=${ROOT_LABEL} rw console=tty0 console=ttyS0,115200n8 net.ifnames=0 quiet ` +
  'mitigations=off';

const XORG_CONF = `# Topoplay desktop: QEMU's standard VGA through the kernel's bochs-drm, drawn in software.
Section "Device"
  Identifier "vga"
  Driver "modesetting"
  Option "AccelMethod" "none"
EndSection
`;

// The user logged in on tty1 starts X there; X runs with root rights (it needs the VGA and the
// input devices whichever way the session was made).
const XWRAPPER = 'allowed_users=anybody\nneeds_root_rights=yes\n';

const AUTOLOGIN = `[Service]
ExecStart=
ExecStart=-/sbin/agetty -o '-p -f -- \\\\u' --noclear --autologin debian %I $TERM
`;

const START_X = `# Topoplay desktop: the login on tty1 starts the desktop; leaving it gives the shell.
if [ -z "$DISPLAY" ] && [ "$(tty)" = /dev/tty1 ]; then
  startx -- -nolisten tcp >"$HOME/.xsession-errors" 2>&1
fi
`;

// spice-vdagent (the session's half of the agent) forks and talks to spice-vdagentd, which the
// system starts when the machine has the vdagent port.
const XINITRC = `#!/bin/sh
# Topoplay desktop session.
if command -v dbus-update-activation-environment >/dev/null; then
  dbus-update-activation-environment --systemd DISPLAY XAUTHORITY
fi
spice-vdagent
xterm -geometry 90x26+24+24 &
exec icewm-session
`;

const desktopFiles = (): RecipeFile[] => [
  { path: '/etc/X11/xorg.conf.d/10-topoplay.conf', content: XORG_CONF },
  { path: '/etc/X11/Xwrapper.config', content: XWRAPPER },
  { path: '/etc/systemd/system/getty@tty1.service.d/autologin.conf', content: AUTOLOGIN },
  { path: '/etc/profile.d/topoplay-desktop.sh', content: START_X },
  { path: '/etc/X11/xinit/xinitrc', content: XINITRC, mode: 0o755 },
];

export const DESKTOP_RECIPE: ImageRecipe = {
  image: 'debian-desktop.qcow2',
  hostname: 'desktop',
  packages: DESKTOP_PACKAGES,
  files: [...baseFiles('desktop'), ...desktopFiles()],
  enable: BASE_ENABLE,
  mask: BASE_MASK,
  cmdline: DESKTOP_KERNEL_ARGS,
  diskSize: '4G',
  devices: ['vdagent'],
};

/** Every Debian image `npm run images` builds. */
export const STOCK_DEBIAN_RECIPES: readonly ImageRecipe[] = [...DEBIAN_RECIPES, DESKTOP_RECIPE];

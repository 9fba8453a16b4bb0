import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DESKTOP_RECIPE, STOCK_DEBIAN_RECIPES } from './debianDesktop';
import { buildDebianImages, lockEmptyPasswords } from './debianImage';
import {
  DEBIAN_RECIPE,
  DEBIAN_RECIPES,
  mmdebstrapArgs,
  ROUTER_LAN,
  ROUTER_RECIPE,
  ROUTER_WAN,
  type ImageRecipe,
} from './debianRecipes';
import { devicesOf, sidecarOf } from './disks';
import {
  decide,
  inputsOf,
  manifestPathOf,
  parsePackages,
  type ImageManifest,
} from './imageManifest';

// The Debian stock images without building them: what goes in, the manifest, and when an image
// already in the folder is kept.

const fileOf = (recipe: ImageRecipe, path: string) =>
  recipe.files.find((file) => file.path === path)?.content ?? '';

describe('Debian recipes', () => {
  it('builds exactly the images the stock templates name, with boot files beside the disk', () => {
    expect(STOCK_DEBIAN_RECIPES.map((recipe) => recipe.image)).toEqual([
      'debian-12.qcow2',
      'router.qcow2',
      'debian-desktop.qcow2',
    ]);
    expect(STOCK_DEBIAN_RECIPES.slice(0, 2)).toEqual(DEBIAN_RECIPES);
    expect(sidecarOf('/i/debian-12.qcow2', 'vmlinuz')).toBe('/i/debian-12.vmlinuz');
  });

  it('installs a server with cloud-init and a kernel, and the router adds its services', () => {
    for (const name of ['systemd-sysv', 'openssh-server', 'cloud-init', 'linux-image-amd64']) {
      expect(DEBIAN_RECIPE.packages).toContain(name);
    }
    expect(ROUTER_RECIPE.packages).toEqual([...DEBIAN_RECIPE.packages, 'nftables', 'dnsmasq']);
    expect(ROUTER_RECIPE.enable).toEqual(
      expect.arrayContaining(['nftables.service', 'dnsmasq.service']),
    );
  });

  it('boots from the labelled root with a login on both consoles and no wait for the network', () => {
    expect(DEBIAN_RECIPE.cmdline).toMatch(/root=LABEL=root rw/);
    expect(DEBIAN_RECIPE.cmdline).toMatch(/console=tty0 .*console=ttyS0/);
    // tty1 in VGA text mode, which the console shows and the monitor reads (screenText).
    expect(DEBIAN_RECIPE.cmdline.split(' ')).toContain('nomodeset');
    expect(ROUTER_RECIPE.cmdline.split(' ')).toContain('nomodeset');
    expect(DEBIAN_RECIPE.enable).toEqual(
      expect.arrayContaining(['getty@tty1.service', 'serial-getty@ttyS0.service']),
    );
    expect(DEBIAN_RECIPE.mask).toContain('systemd-networkd-wait-online.service');
    expect(DEBIAN_RECIPE.enable).toContain('topoplay-hostname.service');
    expect(fileOf(DEBIAN_RECIPE, '/etc/systemd/system/topoplay-hostname.service')).toMatch(
      'qemu_fw_cfg/by_name/opt/topoplay/hostname/raw',
    );
    expect(fileOf(DEBIAN_RECIPE, '/etc/cloud/cloud.cfg.d/90_topoplay.cfg')).toMatch(
      /datasource_list: \[ NoCloud, None \]/,
    );
  });

  it('makes the desktop the server with X, logged in on tty1, and the vdagent for the clipboard', () => {
    expect(DESKTOP_RECIPE.packages).toEqual(expect.arrayContaining([...DEBIAN_RECIPE.packages]));
    for (const name of ['xserver-xorg-core', 'icewm', 'xterm', 'mousepad', 'spice-vdagent']) {
      expect(DESKTOP_RECIPE.packages).toContain(name);
    }
    // A framebuffer for X: the kernel's driver takes the VGA card.
    expect(DESKTOP_RECIPE.cmdline.split(' ')).not.toContain('nomodeset');
    expect(DESKTOP_RECIPE.cmdline).toMatch(/root=LABEL=root rw/);
    expect(
      fileOf(DESKTOP_RECIPE, '/etc/systemd/system/getty@tty1.service.d/autologin.conf'),
    ).toMatch(/--autologin debian /);
    expect(fileOf(DESKTOP_RECIPE, '/etc/profile.d/topoplay-desktop.sh')).toMatch(/startx/);
    expect(fileOf(DESKTOP_RECIPE, '/etc/X11/xinit/xinitrc')).toMatch(/^spice-vdagent$/m);
    expect(DESKTOP_RECIPE.devices).toEqual(['vdagent']);
    // The server images' inputs are as before: a desktop field left out changes no hash.
    expect(DEBIAN_RECIPE.devices).toBeUndefined();
  });

  it('routes lan to wan: an address and DHCP on lan, forwarding, masquerade out of wan', () => {
    expect(fileOf(ROUTER_RECIPE, '/etc/systemd/network/10-lan.network')).toMatch(
      `Name=${ROUTER_LAN.device}\n\n[Network]\nAddress=10.0.0.1/24`,
    );
    expect(fileOf(ROUTER_RECIPE, '/etc/sysctl.d/90-router.conf')).toBe('net.ipv4.ip_forward=1\n');
    expect(fileOf(ROUTER_RECIPE, '/etc/nftables.conf')).toMatch(
      `oifname "${ROUTER_WAN.device}" masquerade`,
    );
    expect(fileOf(ROUTER_RECIPE, '/etc/dnsmasq.d/lan.conf')).toMatch(
      /interface=eth0\n[\s\S]*dhcp-option=option:router,10\.0\.0\.1\n/,
    );
    expect(fileOf(ROUTER_RECIPE, '/etc/dnsmasq.d/lan.conf')).toMatch(
      'resolv-file=/run/systemd/resolve/resolv.conf',
    );
    expect(fileOf(ROUTER_RECIPE, '/etc/default/dnsmasq')).toMatch('IGNORE_RESOLVCONF=yes');
    expect(fileOf(DEBIAN_RECIPE, '/etc/dnsmasq.d/lan.conf')).toBe('');
  });

  it('installs without recommends, docs or the downloaded packages, reusing the apt cache', () => {
    const args = mmdebstrapArgs(DEBIAN_RECIPE, '/t/root', '/i/.apt-cache');
    expect(args).toContain('--aptopt=APT::Install-Recommends "false"');
    expect(args).toContain('--dpkgopt=path-exclude=/usr/share/doc/*');
    expect(args).toContain(`--include=${DEBIAN_RECIPE.packages.join(',')}`);
    expect(args).toContain("--setup-hook=sync-in '/i/.apt-cache' /var/cache/apt/archives/");
    expect(args).toContain('--customize-hook=rm -f "$1"/var/cache/apt/archives/*.deb');
    expect(args.slice(-5)).toEqual([
      'bookworm',
      '/t/root',
      'deb http://deb.debian.org/debian bookworm main',
      'deb http://deb.debian.org/debian bookworm-updates main',
      'deb http://deb.debian.org/debian-security bookworm-security main',
    ]);
  });
});

describe('lockEmptyPasswords', () => {
  it('gives accounts without a password one nothing matches, and leaves the others', () => {
    const shadow = 'root::19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\nme:$y$abc:1::::::\n';
    expect(lockEmptyPasswords(shadow)).toBe(
      'root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\nme:$y$abc:1::::::\n',
    );
  });
});

describe('image manifest', () => {
  const manifestOf = (inputs: string): ImageManifest => ({
    image: 'debian-12.qcow2',
    inputs,
    suite: 'bookworm',
    sources: [],
    kernel: '6.1.0-50-amd64',
    builtAt: '2026-11-29T21:00:00.000Z',
    buildSeconds: 300,
    files: {
      'debian-12.qcow2': { bytes: 100, sha256: 'a' },
      'debian-12.vmlinuz': { bytes: 7, sha256: 'b' },
    },
    packages: { bash: '5.2.15-2+b7' },
  });
  const sizes = { 'debian-12.qcow2': 100, 'debian-12.vmlinuz': 7 };
  const inputs = inputsOf(DEBIAN_RECIPE);

  it('names the manifest after the disk', () => {
    expect(manifestPathOf('/i/router.qcow2')).toBe('/i/router.manifest.json');
  });

  it('hashes the recipe: the same recipe gives the same inputs, any change others', () => {
    expect(inputsOf({ ...DEBIAN_RECIPE })).toBe(inputs);
    expect(inputsOf({ ...DEBIAN_RECIPE, packages: [...DEBIAN_RECIPE.packages].reverse() })).toBe(
      inputs,
    );
    expect(inputsOf({ ...DEBIAN_RECIPE, cmdline: 'root=/dev/vda' })).not.toBe(inputs);
    expect(inputsOf(ROUTER_RECIPE)).not.toBe(inputs);
  });

  it('keeps an image built from the same inputs whose files are all there', () => {
    const base = { inputs, sizes, diskName: 'debian-12.qcow2', rebuild: false };
    expect(decide({ ...base, manifest: manifestOf(inputs) })).toBe('keep');
    expect(decide({ ...base, manifest: manifestOf(inputs), rebuild: true })).toBe('build');
  });

  it('builds a missing image and leaves one from other inputs or a broken build alone', () => {
    const base = { inputs, diskName: 'debian-12.qcow2', rebuild: false };
    const missing = { ...sizes, 'debian-12.qcow2': null };
    expect(decide({ ...base, sizes: missing, manifest: null })).toBe('build');
    expect(decide({ ...base, sizes, manifest: null })).toBe('stale');
    expect(decide({ ...base, sizes, manifest: manifestOf('other') })).toBe('stale');
    const truncated = { ...sizes, 'debian-12.vmlinuz': null };
    expect(decide({ ...base, sizes: truncated, manifest: manifestOf(inputs) })).toBe('stale');
  });

  it('reads the installed packages from dpkg-query', () => {
    expect(parsePackages('zsh\t5.9-4\nbash\t5.2.15-2+b7\n\n')).toEqual({
      bash: '5.2.15-2+b7',
      zsh: '5.9-4',
    });
  });
});

describe('buildDebianImages', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('does not build again what a manifest says is built from the same recipe', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tq-debian-'));
    const disk = join(dir, DEBIAN_RECIPE.image);
    const files: ImageManifest['files'] = {};
    for (const path of [
      disk,
      ...(['vmlinuz', 'initrd', 'cmdline'] as const).map((k) => sidecarOf(disk, k)),
    ]) {
      writeFileSync(path, 'x');
      files[path.slice(dir.length + 1)] = { bytes: 1, sha256: '' };
    }
    const manifest = { image: DEBIAN_RECIPE.image, inputs: inputsOf(DEBIAN_RECIPE), files };
    writeFileSync(manifestPathOf(disk), JSON.stringify(manifest));
    const lines: string[] = [];
    const results = await buildDebianImages(dir, {
      recipes: [DEBIAN_RECIPE],
      log: (line) => lines.push(line),
    });
    expect(results.map((result) => result.decision)).toEqual(['keep']);
    expect(lines.join('\n')).toMatch(/debian-12\.qcow2: up to date/);
  });

  it('keeps a desktop image only with its devices file, which says what its machines get', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tq-debian-'));
    const disk = join(dir, DESKTOP_RECIPE.image);
    const files: ImageManifest['files'] = {};
    for (const path of [
      disk,
      ...(['vmlinuz', 'initrd', 'cmdline', 'devices'] as const).map((k) => sidecarOf(disk, k)),
    ]) {
      writeFileSync(path, path.endsWith('.devices') ? 'vdagent\n' : 'x');
      files[path.slice(dir.length + 1)] = { bytes: path.endsWith('.devices') ? 8 : 1, sha256: '' };
    }
    const manifest = { image: DESKTOP_RECIPE.image, inputs: inputsOf(DESKTOP_RECIPE), files };
    writeFileSync(manifestPathOf(disk), JSON.stringify(manifest));
    const keep = await buildDebianImages(dir, { recipes: [DESKTOP_RECIPE] });
    expect(keep.map((result) => result.decision)).toEqual(['keep']);
    expect(await devicesOf(disk)).toEqual(['vdagent']);
    rmSync(sidecarOf(disk, 'devices'));
    expect(await devicesOf(disk)).toEqual([]);
    const stale = await buildDebianImages(dir, { recipes: [DESKTOP_RECIPE] });
    expect(stale.map((result) => result.decision)).toEqual(['stale']);
  });
});

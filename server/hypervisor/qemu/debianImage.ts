import { execFile, spawn } from 'node:child_process';
import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { realClock, type Clock } from '../../clock';
import { STOCK_DEBIAN_RECIPES } from './debianDesktop';
import {
  DEBIAN_SOURCES,
  DEBIAN_SUITE,
  mmdebstrapArgs,
  ROOT_LABEL,
  type ImageRecipe,
} from './debianRecipes';
import { BOOT_SIDECARS, sidecarOf } from './disks';

import {
  decide,
  describeFile,
  inputsOf,
  manifestPathOf,
  parsePackages,
  readManifest,
  sizeOf,
  type ImageDecision,
  type ImageManifest,
} from './imageManifest';

// Builds the Debian stock images (`debian-12.qcow2`, `router.qcow2`, see debianRecipes.ts, and
// `debian-desktop.qcow2`, debianDesktop.ts) for
// `npm run images`: mmdebstrap installs a recipe's packages from Debian's mirror into a directory,
// the recipe's files and units are applied, the directory becomes an ext4 filesystem
// (`mkfs.ext4 -d`, no partition table) compressed into a qcow2, and the kernel and initrd are
// copied out beside it for direct kernel boot. Downloaded packages are kept in
// `{images}/.apt-cache` for the next build. Needs root and the mmdebstrap, e2fsprogs and
// qemu-utils packages.

const run = promisify(execFile);

const NEEDS =
  'Building the Debian images needs root, Debian mirror access and the packages mmdebstrap, ' +
  'e2fsprogs and qemu-utils (apt-get install -y mmdebstrap e2fsprogs qemu-utils)';

export interface DebianImageResult {
  disk: string;
  decision: ImageDecision;
  manifest: ImageManifest | null;
}

async function tool(name: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(name, args, { maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    const detail =
      failure.code === 'ENOENT'
        ? `${name} is not installed`
        : `${name} failed: ${(failure.stderr ?? failure.message).trim().split('\n').slice(-3).join(' ')}`;
    throw new Error(`${NEEDS}; ${detail}.`, { cause: error });
  }
}

/** Runs mmdebstrap, passing its progress lines (`I: ...`) to the log as they come. */
function mmdebstrap(args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('mmdebstrap', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const tail: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => {
      tail.push(line);
      if (tail.length > 5) tail.shift();
      if (line.startsWith('I: ') || line.startsWith('E: ')) log(`  ${line}`);
    });
    child.on('error', (error) => reject(new Error(`${NEEDS}; ${error.message}.`)));
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${NEEDS}; mmdebstrap failed (${code}): ${tail.join(' ')}`)),
    );
  });
}

/** Every account with an empty password gets `*`, which no password matches. */
export function lockEmptyPasswords(shadow: string): string {
  return shadow
    .split('\n')
    .map((line) => {
      const fields = line.split(':');
      if (fields.length < 2 || fields[1] !== '') return line;
      fields[1] = '*';
      return fields.join(':');
    })
    .join('\n');
}

/** Writes the recipe's files, enables and masks its units, and removes what no image should share. */
async function configure(root: string, recipe: ImageRecipe): Promise<void> {
  for (const file of recipe.files) {
    const path = join(root, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.content, { mode: file.mode ?? 0o644 });
  }
  await tool('systemctl', [`--root=${root}`, 'enable', ...recipe.enable]);
  await tool('systemctl', [`--root=${root}`, 'mask', ...recipe.mask]);
  const shadow = join(root, 'etc', 'shadow');
  await writeFile(shadow, lockEmptyPasswords(await readFile(shadow, 'utf8')), { mode: 0o640 });
  // Per-machine identity is made on first boot: SSH host keys, machine id.
  const ssh = join(root, 'etc', 'ssh');
  for (const key of (await readdir(ssh)).filter((f) => f.startsWith('ssh_host_'))) {
    await rm(join(ssh, key));
  }
  await writeFile(join(root, 'etc', 'machine-id'), '');
  await rm(join(root, 'var', 'lib', 'dbus', 'machine-id'), { force: true });
  await rm(join(root, 'etc', 'resolv.conf'), { force: true });
  await symlink('../run/systemd/resolve/stub-resolv.conf', join(root, 'etc', 'resolv.conf'));
  // Package lists are fetched again by `apt update` in the guest.
  await rm(join(root, 'var', 'lib', 'apt', 'lists'), { recursive: true, force: true });
  await mkdir(join(root, 'var', 'lib', 'apt', 'lists', 'partial'), { recursive: true });
  for (const cache of (await readdir(join(root, 'var', 'cache', 'apt'))).filter((f) =>
    f.endsWith('.bin'),
  )) {
    await rm(join(root, 'var', 'cache', 'apt', cache));
  }
}

/** The kernel version and its vmlinuz and initrd in the root's /boot. */
async function bootFiles(root: string) {
  const boot = await readdir(join(root, 'boot'));
  const kernel = boot.find((f) => f.startsWith('vmlinuz-'));
  const version = kernel?.slice('vmlinuz-'.length);
  if (!kernel || !version || !boot.includes(`initrd.img-${version}`)) {
    throw new Error(`${NEEDS}; the image has no kernel and initrd in /boot.`);
  }
  const at = (file: string) => join(root, 'boot', file);
  return { version, vmlinuz: at(kernel), initrd: at(`initrd.img-${version}`) };
}

/** The disk, its boot files and, when its machines get devices of their own, their file. */
const outputsOf = (recipe: ImageRecipe, disk: string): string[] => [
  disk,
  ...BOOT_SIDECARS.map((kind) => sidecarOf(disk, kind)),
  ...(recipe.devices?.length ? [sidecarOf(disk, 'devices')] : []),
];

async function buildImage(
  recipe: ImageRecipe,
  imagesDir: string,
  inputs: string,
  clock: Clock,
  log: (line: string) => void,
): Promise<ImageManifest> {
  const started = clock.now();
  const disk = join(imagesDir, recipe.image);
  const aptCache = join(imagesDir, '.apt-cache');
  await mkdir(aptCache, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'topoplay-debian-'));
  const suffix = `.tmp-${process.pid}`;
  const outputs = outputsOf(recipe, disk);
  try {
    const root = join(work, 'root');
    log(`${recipe.image}: installing ${recipe.packages.length} packages with mmdebstrap`);
    await mmdebstrap(mmdebstrapArgs(recipe, root, aptCache), log);
    await configure(root, recipe);
    const boot = await bootFiles(root);
    await copyFile(boot.vmlinuz, sidecarOf(disk, 'vmlinuz') + suffix);
    await copyFile(boot.initrd, sidecarOf(disk, 'initrd') + suffix);
    await writeFile(sidecarOf(disk, 'cmdline') + suffix, `${recipe.cmdline}\n`);
    if (recipe.devices?.length) {
      await writeFile(sidecarOf(disk, 'devices') + suffix, `${recipe.devices.join('\n')}\n`);
    }
    const packages = parsePackages(
      await tool('dpkg-query', [
        `--admindir=${join(root, 'var', 'lib', 'dpkg')}`,
        '-W',
        '-f',
        '${Package}\t${Version}\n',
      ]),
    );
    log(`${recipe.image}: making the filesystem and the qcow2 disk`);
    const raw = join(work, 'root.raw');
    await tool('mkfs.ext4', ['-q', '-F', '-L', ROOT_LABEL, '-d', root, raw, recipe.diskSize]);
    await rm(root, { recursive: true, force: true });
    const options = 'compression_type=zstd';
    await tool('qemu-img', ['convert', '-c', '-O', 'qcow2', '-o', options, raw, disk + suffix]);
    for (const path of outputs) await rename(path + suffix, path);
    const manifest: ImageManifest = {
      image: recipe.image,
      inputs,
      suite: DEBIAN_SUITE,
      sources: DEBIAN_SOURCES,
      kernel: boot.version,
      ...(recipe.devices?.length ? { devices: recipe.devices } : {}),
      builtAt: new Date(clock.now()).toISOString(),
      buildSeconds: Math.round((clock.now() - started) / 100) / 10,
      files: Object.fromEntries(await Promise.all(outputs.map(describeFile))),
      packages,
    };
    // The manifest goes last: an image with a manifest is complete.
    await writeFile(manifestPathOf(disk), `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } finally {
    await rm(work, { recursive: true, force: true });
    await Promise.all(outputs.map((path) => rm(path + suffix, { force: true })));
  }
}

/**
 * Builds each Debian image that is missing (or every one when `rebuild`), keeps those built from
 * the same recipe, and leaves a different image of the same name alone (with a warning).
 */
export async function buildDebianImages(
  imagesDir: string,
  options: {
    rebuild?: boolean;
    log?: (line: string) => void;
    recipes?: readonly ImageRecipe[];
    clock?: Clock;
  },
): Promise<DebianImageResult[]> {
  const log = options.log ?? (() => {});
  const clock = options.clock ?? realClock;
  await mkdir(imagesDir, { recursive: true });
  const results: DebianImageResult[] = [];
  for (const recipe of options.recipes ?? STOCK_DEBIAN_RECIPES) {
    const disk = join(imagesDir, recipe.image);
    const inputs = inputsOf(recipe);
    const manifest = await readManifest(manifestPathOf(disk));
    const names = outputsOf(recipe, disk);
    const sizes = Object.fromEntries(
      await Promise.all(names.map(async (path) => [basename(path), await sizeOf(path)] as const)),
    );
    const decision = decide({
      inputs,
      manifest,
      sizes,
      diskName: recipe.image,
      rebuild: options.rebuild ?? false,
    });
    if (decision === 'build') {
      const built = await buildImage(recipe, imagesDir, inputs, clock, log);
      log(`${recipe.image}: built in ${built.buildSeconds} s`);
      results.push({ disk, decision, manifest: built });
    } else {
      log(
        decision === 'keep'
          ? `${recipe.image}: up to date (built ${manifest?.builtAt} in ${manifest?.buildSeconds} s)`
          : `${recipe.image}: present but not built from the current recipe; kept, since ` +
              'deployed machines may be based on it (npm run images -- --rebuild replaces it)',
      );
      results.push({ disk, decision, manifest });
    }
  }
  return results;
}

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { DEBIAN_SOURCES, DEBIAN_SUITE, type ImageDevice, type ImageRecipe } from './debianRecipes';

// The manifest written beside each built Debian image (`{image without .qcow2}.manifest.json`):
// what went in (a hash of the recipe, the suite and apt sources, every package's version), what came
// out (each file's size and sha256) and when and how long the build took. `npm run images` reads
// it to keep an image that was built from the same recipe instead of building it again.

/** Bump when the build itself changes in a way the recipe does not show. */
export const BUILDER_VERSION = 1;

export interface ManifestFile {
  bytes: number;
  sha256: string;
}

export interface ImageManifest {
  image: string;
  /** sha256 of the recipe, suite, sources and builder version: equal inputs, equal image. */
  inputs: string;
  suite: string;
  sources: readonly string[];
  kernel: string;
  /** The devices the image's machines get besides the usual ones (`{image}.devices`). */
  devices?: readonly ImageDevice[];
  builtAt: string;
  buildSeconds: number;
  /** File name (in the images folder) to its size and digest. */
  files: Record<string, ManifestFile>;
  /** Every installed package to its version. */
  packages: Record<string, string>;
}

export const manifestPathOf = (disk: string): string =>
  `${disk.replace(/\.qcow2$/i, '')}.manifest.json`;

export function inputsOf(recipe: ImageRecipe): string {
  const inputs = {
    builder: BUILDER_VERSION,
    suite: DEBIAN_SUITE,
    sources: DEBIAN_SOURCES,
    recipe: { ...recipe, packages: [...recipe.packages].sort() },
  };
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
}

/**
 * What to do with an image: `build` it (it is not there, or a rebuild was asked for), `keep` it
 * (built from these inputs, every file as the manifest says), or leave it `stale` (there, but from
 * other inputs or not by us): replacing a disk would corrupt the overlays of machines deployed on
 * it, so that takes an explicit rebuild.
 */
export type ImageDecision = 'build' | 'keep' | 'stale';

export function decide(options: {
  inputs: string;
  manifest: ImageManifest | null;
  /** File name to its size on disk, null when absent. */
  sizes: Record<string, number | null>;
  diskName: string;
  rebuild: boolean;
}): ImageDecision {
  const { inputs, manifest, sizes, diskName, rebuild } = options;
  if (rebuild || sizes[diskName] == null) return 'build';
  if (!manifest || manifest.inputs !== inputs) return 'stale';
  const complete = Object.entries(manifest.files).every(
    ([name, file]) => sizes[name] === file.bytes,
  );
  return complete ? 'keep' : 'stale';
}

export async function readManifest(path: string): Promise<ImageManifest | null> {
  try {
    const manifest = JSON.parse(await readFile(path, 'utf8')) as ImageManifest;
    return typeof manifest.inputs === 'string' && manifest.files ? manifest : null;
  } catch {
    return null;
  }
}

export async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch {
    return null;
  }
}

export async function describeFile(path: string): Promise<[string, ManifestFile]> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return [basename(path), { bytes: (await stat(path)).size, sha256: hash.digest('hex') }];
}

/** `dpkg-query -W -f '${Package}\t${Version}\n'` output as a sorted record. */
export function parsePackages(listing: string): Record<string, string> {
  const entries = listing
    .split('\n')
    .map((line) => line.split('\t'))
    .filter((fields): fields is [string, string] => fields.length === 2 && Boolean(fields[0]))
    .sort(([a], [b]) => a.localeCompare(b));
  return Object.fromEntries(entries);
}

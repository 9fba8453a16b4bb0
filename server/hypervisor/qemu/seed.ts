import { execFile } from 'node:child_process';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { seedFiles, type CloudInitMachine } from '../cloudInit';
import { DriverError } from '../types';
import { messageOf } from './disks';

// A machine's NoCloud seed: an ISO labelled CIDATA holding the cloud-init files (../cloudInit.ts),
// made with xorriso in the machine's folder (so it goes with the machine) before each start, and
// attached as a second CD-ROM drive. cloud-init finds it by its label; an image without
// cloud-init ignores it.

const run = promisify(execFile);

/** The volume label NoCloud looks for. */
export const SEED_LABEL = 'CIDATA';

/** The seed's ISO and the folder its files are written in, inside a machine's folder. */
export const seedPaths = (machineDir: string) => ({
  iso: join(machineDir, 'seed.iso'),
  files: join(machineDir, 'seed'),
});

/** Writes the machine's seed ISO (replacing an earlier one); its path. */
export async function writeSeed(
  machineDir: string,
  machine: CloudInitMachine,
  xorriso = 'xorriso',
): Promise<string> {
  const paths = seedPaths(machineDir);
  await rm(paths.files, { recursive: true, force: true });
  await mkdir(paths.files, { recursive: true });
  for (const [name, text] of Object.entries(seedFiles(machine))) {
    await writeFile(join(paths.files, name), text);
  }
  // Written beside and renamed, so that a running machine's seed is never half-written.
  const temporary = `${paths.iso}.tmp`;
  try {
    await run(
      xorriso,
      ['-as', 'mkisofs', '-quiet', '-V', SEED_LABEL, '-J', '-r', '-o', temporary, paths.files],
      { timeout: 30_000 },
    );
  } catch (error) {
    await rm(temporary, { force: true });
    throw new DriverError('unavailable', `xorriso could not make the seed: ${messageOf(error)}`);
  }
  await rename(temporary, paths.iso);
  return paths.iso;
}

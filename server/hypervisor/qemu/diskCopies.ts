import type { Clock } from '../../clock';
import { DriverError, EMPTY_TAG, type MachineSpec } from '../types';
import { copyDisk, createEmptyDisk, exists, removeDisk, type DiskCopy } from './disks';
import { inside, type QemuLayout } from './layout';
import { diskPathsOf, startsEmpty } from './plans';

// A template's disks on the qemu host: copied from their source image once (a copy under way
// has its progress), or made empty (plans.ts startsEmpty), removed with the template's own
// folder, never a stock image. A disk that names no image is each machine's own: nothing to make.

export interface DiskCopiesOptions {
  layout: QemuLayout;
  /** When a copy starts. */
  clock: Clock;
  log?: { warn(o: object, msg?: string): void };
}

export function createDiskCopies({ layout, clock, log }: DiskCopiesOptions) {
  /** Copies under way, by the full path of the disk they make. */
  const copies = new Map<string, DiskCopy>();
  const diskPaths = (spec: MachineSpec) => diskPathsOf(layout, spec);

  /** Each disk of the spec: -1 missing, 0..99 copying, 100 present. */
  async function progress(spec: MachineSpec): Promise<number[]> {
    return Promise.all(
      diskPaths(spec).map(async (d) => {
        if (!d.full) return 100;
        const copy = copies.get(d.full);
        if (copy) return copy.progress;
        return (await exists(d.full)) ? 100 : -1;
      }),
    );
  }

  /** When the earliest copy under way for the spec began; null when none runs. */
  function copyStarted(spec: MachineSpec): number | null {
    const running = diskPaths(spec)
      .map((d) => (d.full ? copies.get(d.full) : undefined))
      .filter((c): c is DiskCopy => !!c);
    return running.length ? Math.min(...running.map((c) => c.started)) : null;
  }

  /** Starts copying the spec's missing disks; the least progress over its disks. */
  async function create(spec: MachineSpec): Promise<number> {
    for (const disk of diskPaths(spec)) {
      if (!disk.full || copies.has(disk.full) || (await exists(disk.full))) continue;
      if (startsEmpty(disk)) {
        await createEmptyDisk(disk.full, disk.sizeGiB);
        continue;
      }
      if (!disk.source) {
        throw new DriverError('invalid-state', `disk ${disk.path} does not exist`);
      }
      const source = inside(layout.images, disk.source, 'disk');
      if (!(await exists(source))) {
        throw new DriverError('invalid-state', `disk ${disk.source} does not exist`);
      }
      const full = disk.full;
      const copy = copyDisk(source, full, clock.now());
      copies.set(full, copy);
      copy.done.then(
        () => copies.delete(full),
        (error: unknown) => {
          copies.delete(full);
          log?.warn({ err: error, disk: disk.path }, 'disk copy failed');
        },
      );
    }
    return Math.min(100, ...(await progress(spec)));
  }

  async function remove(spec: MachineSpec): Promise<void> {
    const tag = spec.isolationTag;
    // Only disks under the tag's own folder: never a stock image, never another lab's disk.
    if (!tag || tag === EMPTY_TAG) return;
    for (const disk of diskPaths(spec)) {
      if (disk.full && disk.path.startsWith(`${tag}/`)) await removeDisk(disk.full);
    }
  }

  return { diskPaths, progress, copyStarted, create, remove };
}

export type DiskCopies = ReturnType<typeof createDiskCopies>;

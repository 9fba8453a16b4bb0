import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bareKey } from '../cloudInit';
import { DriverError, type GuestSetting } from '../types';
import type { Agentless } from './agentless';
import type { Capacity, Reservation } from './capacity';
import { bootFilesOf, devicesOf, fileStamp, freshDisk, messageOf } from './disks';
import { callAgent } from './guestAgent';
import { filesIn, type QemuLayout } from './layout';
import { launchPlanOf } from './plans';
import { ended, isRunning, launch, readPid, saveState, type Acceleration } from './processes';
import type { MachineRecord } from './records';
import { startWarmImage, type WarmImageActorRef } from '../warmImage';

// Warm images: a machine booted once, until its guest agent answers, then saved (memory and device
// state through QMP's migration to a file) beside a frozen copy of its disks. A player's machine
// made from the same template is then resumed from that state (`-incoming`) on a fresh overlay of
// the frozen disks, and made its own by the agent (guestAgent.ts) before anyone sees it: a launch
// costs a restore, not a boot.
//
// A warm image is named by what its machine is made of (warmKeyOf): the disks it starts from (and
// when they last changed), the kernel it boots, its memory, CPUs, NIC models, CD-ROM, the cloud-init
// settings it was booted with, QEMU and the acceleration. A changed template or image has another
// name, so nothing is ever invalidated in place: an image nobody's machine is based on any more is
// removed by `prune`. Builds run one at a time in the background; a deploy never waits for one.
// Each build's lifecycle is a warm image machine (../warmImage.ts).

/** Bump when a warm image's layout or what its key covers changes. */
const WARM_FORMAT = 1;
/** The hostname a warm image's machine boots with; a restored machine never keeps it. */
export const WARM_HOSTNAME = 'topoplay-warm';
/** How long a build waits for the agent: a Debian system under software emulation is slow. */
export const WARM_BOOT_MS = 15 * 60_000;
/**
 * How long the agent may take to prepare the machine for its save: zeroing the free memory of a
 * Debian machine of 1 GiB took over a minute under software emulation on a loaded host.
 */
const PREPARE_MS = 5 * 60_000;
/** A failed build is not tried again for this long. */
const RETRY_AFTER_MS = 10 * 60_000;

export interface WarmImage {
  key: string;
  dir: string;
  /** The saved memory and device state. */
  memory: string;
  /** The frozen disk of a machine disk index, which restored overlays are based on. */
  disk(index: number): string;
}

/** The files of a warm image's folder, and of its build (a machine folder of its own). */
export const warmFiles = (dir: string) => ({
  ...filesIn(dir),
  manifest: join(dir, 'warm.json'),
  memory: join(dir, 'memory.state'),
});

/** Settings the image's boot itself takes (cloud-init's); the rest reach it after a restore. */
const bootSettings = (settings: readonly GuestSetting[]) =>
  settings.filter((s) => bareKey(s.key).startsWith('cloud.'));

/**
 * The name of the warm image a machine can be restored from, or null when it cannot be: a builder
 * machine (its disk is saved into its template's), an empty disk or an installer, UEFI (its
 * variables live in a file of its own), an image with the vdagent (QEMU cannot save it).
 */
export async function warmKeyOf(
  record: MachineRecord,
  context: { acceleration: Acceleration; qemu: string },
): Promise<string | null> {
  if (record.privileged || record.spec.firmware === 'uefi' || record.disks.length === 0) {
    return null;
  }
  if (record.disks.some((d) => d.base === null)) return null;
  try {
    const first = record.disks[0]?.base ?? null;
    // QEMU 7.2 cannot save a machine with the vdagent ("The vdagent chardev doesn't yet support
    // migration"): a desktop that shares its clipboard always boots.
    if (first && (await devicesOf(first)).includes('vdagent')) return null;
    const boot = first ? await bootFilesOf(first) : null;
    const input = {
      format: WARM_FORMAT,
      qemu: context.qemu,
      acceleration: context.acceleration,
      memoryMiB: record.spec.memoryMiB,
      cpu: record.spec.cpu,
      disks: await Promise.all(
        record.disks.map(async (d) => ({
          index: d.index,
          controller: d.controller,
          base: d.base ? await fileStamp(d.base) : null,
        })),
      ),
      nics: record.nics.map((n) => ({
        index: n.index,
        model: record.spec.nics.find((s) => s.index === n.index)?.adapter ?? null,
      })),
      boot: boot && {
        kernel: await fileStamp(boot.kernel),
        initrd: boot.initrd ? await fileStamp(boot.initrd) : null,
        cmdline: boot.cmdline,
      },
      iso: record.iso,
      settings: bootSettings(record.guestSettings),
    };
    return createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 24);
  } catch {
    // A disk or boot file that cannot be read: the machine boots, and says why.
    return null;
  }
}

export interface WarmImagesOptions {
  layout: QemuLayout;
  acceleration: Acceleration;
  /** QEMU's version: a warm image saved by another QEMU may not load. */
  qemu: string;
  log?: { info?(o: object, msg?: string): void; warn(o: object, msg?: string): void };
  now(): number;
  /** Told of a build whose machine ran and whose agent never answered. */
  agentless?: Agentless;
  /** The host's caps, which a build's machine counts against (capacity.ts). */
  capacity?: Pick<Capacity, 'admitLeaving' | 'release'>;
}

export function createWarmImages(options: WarmImagesOptions) {
  const { layout, acceleration, qemu, log, now } = options;
  const root = join(layout.state, 'warm');
  const builds = new Map<string, WarmImageActorRef>();
  const failedAt = new Map<string, number>();
  let queue: Promise<void> = Promise.resolve();
  let closed = false;
  // Aborted by close: a build under way (a Debian boot takes minutes) never holds a shutdown.
  const stopping = new AbortController();

  const imageOf = (key: string): WarmImage => {
    const files = warmFiles(join(root, key));
    return { key, dir: files.dir, memory: files.memory, disk: files.overlay };
  };

  async function isReady(key: string): Promise<boolean> {
    try {
      const manifest = JSON.parse(await readFile(warmFiles(join(root, key)).manifest, 'utf8'));
      return manifest.key === key;
    } catch {
      return false;
    }
  }

  /** The warm image the record's machine can be restored from, when it is ready. */
  async function readyFor(record: MachineRecord): Promise<WarmImage | null> {
    const key = await warmKeyOf(record, { acceleration, qemu });
    return key && (await isReady(key)) ? imageOf(key) : null;
  }

  /** A warm image of the key, when it is ready (a restore names its image by key). */
  async function byKey(key: string): Promise<WarmImage | null> {
    return (await isReady(key)) ? imageOf(key) : null;
  }

  /**
   * Asks for the warm image of the record's machine: built in the background unless it is ready,
   * being built, or failed a short while ago. Resolves once the request is settled, not the build.
   */
  async function request(record: MachineRecord): Promise<void> {
    if (closed) return;
    const key = await warmKeyOf(record, { acceleration, qemu });
    if (!key || builds.has(key) || (await isReady(key))) return;
    const failed = failedAt.get(key);
    if (failed !== undefined && now() - failed < RETRY_AFTER_MS) return;
    const actor = startWarmImage({ key, requested: now() });
    builds.set(key, actor);
    queue = queue.then(async () => {
      if (closed) {
        actor.send({ type: 'warm.failed', error: 'the driver closed' });
      } else {
        try {
          await build(key, record, actor);
          actor.send({ type: 'warm.saved', at: now() });
          log?.info?.({ key, template: record.spec.name }, 'warm image ready');
        } catch (error) {
          actor.send({ type: 'warm.failed', error: messageOf(error) });
          if (error instanceof DriverError && error.code === 'capacity') {
            // Not tried again later, but at the next deploy that asks for it.
            log?.info?.({ key, reason: error.message }, 'no room for a warm image build now');
          } else {
            failedAt.set(key, now());
            log?.warn({ key, err: error }, 'warm image not built');
          }
        }
      }
      builds.delete(key);
    });
  }

  async function build(key: string, record: MachineRecord, actor: WarmImageActorRef) {
    const target = join(root, key);
    const files = warmFiles(`${target}.build`);
    await rm(files.dir, { recursive: true, force: true });
    await mkdir(files.dir, { recursive: true });
    const id = randomUUID();
    const machine: MachineRecord = {
      ...record,
      id,
      name: WARM_HOSTNAME,
      spec: { ...record.spec, name: WARM_HOSTNAME },
      nics: record.nics.map((n) => ({
        ...n,
        mac: `52:54:00:${[...randomBytes(3)].map((b) => b.toString(16).padStart(2, '0')).join(':')}`,
      })),
      guestSettings: bootSettings(record.guestSettings),
    };
    let pid: number | null = null;
    let room: Reservation | null = null;
    try {
      // Within the host's caps, leaving room for a player's machine of its size.
      const memory = machine.spec.memoryMiB;
      room = (await options.capacity?.admitLeaving([memory], [memory])) ?? null;
      for (const disk of machine.disks) await freshDisk(disk, files.overlay(disk.index));
      actor.send({ type: 'warm.booting', at: now() });
      pid = await launch(await launchPlanOf(machine, { layout, acceleration, log }, files));
      const booted = pid;
      await callAgent(files.agent, {
        line: 'ping',
        answer: 'TOPOPLAY pong',
        timeoutMs: WARM_BOOT_MS,
        repeatMs: 1_000,
        signal: stopping.signal,
      }).catch(async (error: unknown) => {
        if (!stopping.signal.aborted && (await isRunning(booted, id))) {
          await options.agentless?.learn(record.disks[0]?.base);
        }
        throw error;
      });
      await callAgent(files.agent, {
        line: 'prepare',
        answer: 'TOPOPLAY prepared',
        timeoutMs: PREPARE_MS,
        signal: stopping.signal,
      });
      actor.send({ type: 'warm.booted', at: now() });
      await saveState(files.qmp, files.memory);
      await ended(pid, id, 30_000);
      for (const disk of machine.disks) await chmod(files.overlay(disk.index), 0o444);
      await writeFile(
        files.manifest,
        `${JSON.stringify({ key, template: record.spec.name, saved: now() }, null, 1)}\n`,
      );
      await rm(target, { recursive: true, force: true });
      await rename(files.dir, target);
    } catch (error) {
      if (pid === null) pid = await readPid(files.pid);
      if (pid !== null && (await isRunning(pid, id))) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      await rm(files.dir, { recursive: true, force: true });
      throw error;
    } finally {
      if (room) options.capacity?.release(room);
    }
  }

  /** Which warm image builds are under way, and in what state: for the log and the tests. */
  const building = () =>
    [...builds.values()].map((actor) => ({
      key: actor.getSnapshot().context.key,
      state: actor.getSnapshot().value,
    }));

  /** Waits until every requested build has ended (built or failed). */
  const settled = async () => {
    while (builds.size > 0) await queue;
  };

  /** Removes warm images no machine is based on, except those being built. */
  async function prune(inUse: ReadonlySet<string>): Promise<void> {
    let names: string[];
    try {
      names = await readdir(root);
    } catch {
      return;
    }
    for (const name of names) {
      const key = name.replace(/\.build$/, '');
      if (inUse.has(key) || builds.has(key)) continue;
      await rm(join(root, name), { recursive: true, force: true });
    }
  }

  async function close() {
    closed = true;
    stopping.abort();
    await queue;
  }

  return {
    readyFor,
    byKey,
    request,
    building,
    settled,
    prune,
    close,
    keyOf: (r: MachineRecord) => warmKeyOf(r, { acceleration, qemu }),
  };
}

export type WarmImages = ReturnType<typeof createWarmImages>;

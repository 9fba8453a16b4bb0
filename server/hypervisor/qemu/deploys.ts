import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import type { Clock } from '../../clock';
import { startDeploy } from '../deploy';
import { requireDeployable, specName } from '../lifecycle';
import { DriverError, type DriverEvent, type Machine, type MachineSpec } from '../types';
import type { Agentless } from './agentless';
import type { Reservation } from './capacity';
import type { DiskCopies } from './diskCopies';
import { createOverlay, freshDisk } from './disks';
import { machineFiles, type QemuLayout } from './layout';
import type { Serialized } from './locks';
import type { QemuMachines } from './machines';
import { recordOf } from './plans';
import { COLD_BOOT, type QemuPower } from './power';
import { writeRecord } from './records';
import type { WarmImages } from './warm';

// A qemu deploy: the machine's folder with overlays of the template's disks, its record, its
// switch ports, then a start when its template says so. Each deploy is a deploy machine
// (../deploy.ts) the steps tell what happened; its machine shows the task derived from it.

export interface QemuDeploysOptions {
  layout: QemuLayout;
  /** Nets a privileged (builder) deploy leaves untagged. */
  reserved: string[];
  machines: QemuMachines;
  disks: DiskCopies;
  power: QemuPower;
  serialized: Serialized;
  emit(event: DriverEvent): void;
  clock: Clock;
  /** Warm images to restore player machines from; none: every machine boots. */
  warm?: WarmImages | null;
  /** Images known to have no agent: they never get a warm image. */
  agentless: Agentless;
  log?: { warn(o: object, msg?: string): void };
}

export function createQemuDeploys(options: QemuDeploysOptions) {
  const { layout, reserved, machines, disks, power, serialized, emit, clock, warm, log } = options;
  const { agentless } = options;
  const { records, deploys, byIdOrName, toMachine, attachPorts } = machines;

  async function deployNow(
    spec: MachineSpec,
    privileged: boolean,
    batch?: Reservation,
  ): Promise<Machine> {
    const name = specName(spec);
    const existing = byIdOrName(name);
    if (existing) return toMachine(existing);
    requireDeployable(spec);
    if (spec.disks.length === 0) {
      throw new DriverError('invalid-request', 'the template has no disk');
    }
    if ((await disks.progress(spec)).some((p) => p < 100)) {
      throw new DriverError(
        'invalid-state',
        `The disks of the template ${spec.name} are not initialized yet: initialize it first.`,
      );
    }
    const id = randomUUID();
    const now = clock.now();
    const record = recordOf(id, spec, privileged, disks.diskPaths(spec), reserved, now);
    const files = machineFiles(layout, id);
    const deploy = startDeploy({ taskId: randomUUID(), started: now });
    deploys.set(id, deploy);
    try {
      await mkdir(files.dir, { recursive: true });
      try {
        // Its disks are overlays of the template's (or empty ones), its own from here on.
        // On the frozen disks of a warm image when there is one: the first start restores it.
        deploy.send({ type: 'deploy.copyStarted' });
        const image = warm ? await warm.readyFor(record) : null;
        if (image) {
          for (const disk of record.disks) {
            await createOverlay(image.disk(disk.index), files.overlay(disk.index));
          }
          record.warm = image.key;
        } else {
          for (const disk of record.disks) await freshDisk(disk, files.overlay(disk.index));
          // Built in the background, for the machines deployed after this one; till then a machine
          // that could be restored from one says, while it boots, that it has none yet.
          if (warm && (await warm.keyOf(record)) && !(await agentless.has(record.disks[0]?.base))) {
            record.coldBoot = COLD_BOOT.noImage;
            warm.request(record).catch((error: unknown) => log?.warn({ err: error }, 'warm image'));
          }
        }
        deploy.send({ type: 'deploy.copied' });
        await writeRecord(layout, record);
        records.set(id, record);
        await attachPorts(record);
      } catch (error) {
        records.delete(id);
        await rm(files.dir, { recursive: true, force: true });
        throw error;
      }
      deploy.send({ type: 'deploy.configured', starts: spec.autoStart });
      if (spec.autoStart) {
        await power.startRecord(record, batch);
        deploy.send({ type: 'deploy.started' });
      }
    } catch (error) {
      deploy.send({ type: 'deploy.failed', error: String(error) });
      throw error;
    } finally {
      deploys.delete(id);
    }
    const machine = await toMachine(record);
    // Announced as the sim announces its deploy task's end: a batch deployed in the background
    // has no caller to tell.
    emit({ type: 'updated', machine });
    return machine;
  }

  /**
   * A deploy, in a batch with the room the batch reserved. The lifecycle deploys a name once at a
   * time (../lifecycle.ts Deploys); the deploy holds its name's lock so that close waits for it.
   */
  const deploy = (spec: MachineSpec, privileged: boolean, batch?: Reservation) =>
    serialized(specName(spec), () => deployNow(spec, privileged, batch));

  return { deploy };
}

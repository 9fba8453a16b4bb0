import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Clock } from '../../clock';
import { DriverError, EMPTY_TAG, type DriverEvent, type Machine } from '../types';
import type { Agentless } from './agentless';
import { callAgent, personalizeLine } from './guestAgent';
import type { createCapacity, Reservation } from './capacity';
import { commitOverlay, freshDisk } from './disks';
import { machineFiles, type QemuLayout } from './layout';
import type { Serialized } from './locks';
import type { QemuMachines } from './machines';
import { launchPlanOf } from './plans';
import { ended, launch, resumed, type Acceleration } from './processes';
import { qmp } from './qmp';
import { writeRecord, type MachineRecord } from './records';
import type { SwitchClient } from './switch';
import type { WarmImages } from './warm';

/** How long a restored machine's agent may take to make it its own. */
const PERSONALIZE_MS = 30_000;

/**
 * What a machine that boots where a warm image could have restored it says as its task while it
 * boots: its template's image is not built yet (built in the background after the first deploy),
 * or its restore failed (the image is gone, or this QEMU refuses the saved state).
 */
export const COLD_BOOT = {
  noImage: 'Booting: no warm image yet',
  notRestored: 'Booting: the warm image could not be restored',
} as const;

// Operations on the qemu driver's machines: start (within the host's capacity), stop (QEMU's
// monitor first, then the process), save and revert (the disk overlays, with the machine
// stopped), delete. One at a time per machine; each is announced once it has ended.

export interface QemuPowerOptions {
  layout: QemuLayout;
  acceleration: Acceleration;
  log?: { warn(o: object, msg?: string): void; info?(o: object, msg?: string): void };
  machines: QemuMachines;
  /** Where machines deployed on a warm image are restored from. */
  warm?: WarmImages | null;
  capacity: ReturnType<typeof createCapacity>;
  serialized: Serialized;
  switchClient: SwitchClient;
  /** Machines the watcher last saw running: a stop of the driver's own is no news to it. */
  knownRunning: Set<string>;
  /** Images known to have no agent; a boot whose agent never answers teaches it. */
  agentless: Agentless;
  /** How long a booting machine's agent may take to answer (WARM_BOOT_MS). */
  agentWaitMs: number;
  clock: Clock;
  /** Aborted when the driver closes: ends the waits for booting machines. */
  closing: AbortSignal;
  emit(event: DriverEvent): void;
}

export function createQemuPower(options: QemuPowerOptions) {
  const { layout, acceleration, machines, capacity, serialized, switchClient } = options;
  const { knownRunning, emit, warm, agentless, clock, closing } = options;
  const { records, boots, pidOf, toMachine, required, portOf } = machines;

  const plan = (record: MachineRecord) =>
    launchPlanOf(record, { layout, acceleration, log: options.log });

  /** Starts a stopped machine; inside a batch, with the room the batch reserved for it. */
  async function startRecord(record: MachineRecord, batch?: Reservation): Promise<Machine> {
    if ((await pidOf(record)) === null) {
      if (batch) capacity.consume(batch, record.spec.memoryMiB);
      const own = await capacity.admit([record.spec.memoryMiB], batch);
      try {
        const files = machineFiles(layout, record.id);
        // Sockets of an earlier run would stop QEMU from listening again.
        for (const path of [files.qmp, files.vnc, files.serial, files.pid]) {
          await rm(path, { force: true });
        }
        for (const nic of record.nics) await rm(files.nic(nic.index), { force: true });
        await rm(files.agent, { force: true });
        if (!(record.warm && (await restore(record)))) {
          await launch(await plan(record));
          if (record.coldBoot) {
            sayWhileBooting(record, record.coldBoot);
            record.coldBoot = null;
            await writeRecord(layout, record);
          }
        }
        // Announced when it stops on its own, whether or not the watch has seen it run.
        knownRunning.add(record.id);
      } finally {
        capacity.release(own);
      }
    }
    return toMachine(record);
  }

  /**
   * Shows why the machine boots as its task until it is up: until its agent answers (when it
   * never does, its image is known to have none from then on), it stops, or the driver closes.
   * The machine is announced once the task is gone.
   */
  function sayWhileBooting(record: MachineRecord, why: string): void {
    const stop = new AbortController();
    const task = { id: randomUUID(), name: why, progress: 0, started: clock.now() };
    boots.get(record.id)?.stop.abort();
    boots.set(record.id, { task, stop });
    const signal = AbortSignal.any([stop.signal, closing]);
    void callAgent(machineFiles(layout, record.id).agent, {
      line: 'ping',
      answer: 'TOPOPLAY pong',
      timeoutMs: options.agentWaitMs,
      repeatMs: 1_000,
      signal,
    })
      .catch(async () => {
        // Up all along and never a word: its image has no agent.
        if (!signal.aborted && (await pidOf(record)) !== null) {
          await agentless.learn(record.disks[0]?.base);
        }
      })
      .then(async () => {
        if (boots.get(record.id)?.task !== task) return;
        boots.delete(record.id);
        if (records.has(record.id) && !closing.aborted) {
          emit({ type: 'updated', machine: await toMachine(record) });
        }
      })
      .catch((error: unknown) => options.log?.warn({ machine: record.id, err: error }, 'boot'));
  }

  /** A machine that stops or goes no longer boots. */
  function endBoot(record: MachineRecord): void {
    boots.get(record.id)?.stop.abort();
    boots.delete(record.id);
  }

  /**
   * The first start of a machine deployed on a warm image: QEMU resumes the saved machine, and the
   * guest agent makes it this machine (its name, MACs, addresses, keys, clock, settings). Anything
   * that fails ends that QEMU and puts the machine back on its template's disks, to boot: false.
   */
  async function restore(record: MachineRecord): Promise<boolean> {
    const files = machineFiles(layout, record.id);
    const key = record.warm ?? '';
    const started = performance.now();
    let pid: number | null = null;
    try {
      const image = warm ? await warm.byKey(key) : null;
      if (!image) throw new DriverError('unavailable', 'its warm image is gone');
      pid = await launch({ ...(await plan(record)), incoming: image.memory });
      const launched = performance.now();
      await resumed(files.qmp, { pid, id: record.id });
      const loaded = performance.now();
      const answer = await callAgent(files.agent, {
        line: personalizeLine(),
        answer: 'TOPOPLAY personalized',
        timeoutMs: PERSONALIZE_MS,
      });
      record.restoredFrom = key;
      options.log?.info?.(
        {
          machine: record.id,
          warm: key,
          ms: Math.round(performance.now() - started),
          launchMs: Math.round(launched - started),
          loadMs: Math.round(loaded - launched),
          answer,
        },
        'machine restored from its warm image',
      );
      return true;
    } catch (error) {
      options.log?.warn(
        { machine: record.id, warm: key, err: error },
        'restore failed: the machine boots instead',
      );
      record.coldBoot = COLD_BOOT.notRestored;
      if (pid !== null) await ended(pid, record.id, 0);
      for (const disk of record.disks) await freshDisk(disk, files.overlay(disk.index));
      for (const path of [files.qmp, files.vnc, files.serial, files.agent, files.pid]) {
        await rm(path, { force: true });
      }
      for (const nic of record.nics) await rm(files.nic(nic.index), { force: true });
      return false;
    } finally {
      record.warm = null;
      await writeRecord(layout, record);
    }
  }

  async function stopRecord(record: MachineRecord): Promise<Machine> {
    const pid = await pidOf(record);
    if (pid !== null) {
      try {
        await qmp(machineFiles(layout, record.id).qmp, 'quit');
      } catch {
        // A monitor that does not answer: the process is killed below.
      }
      await ended(pid, record.id);
    }
    endBoot(record);
    // A stop of the driver's own is announced by the operation, not by the watcher.
    knownRunning.delete(record.id);
    return toMachine(record);
  }

  /** The machine as an operation left it, announced once the operation has ended. */
  function announced(machine: Machine): Machine {
    emit({ type: 'updated', machine });
    return machine;
  }

  async function start(id: string): Promise<Machine> {
    const record = required(id);
    return announced(await serialized(record.id, () => startRecord(record)));
  }

  async function stop(id: string): Promise<Machine> {
    const record = required(id);
    return announced(await serialized(record.id, () => stopRecord(record)));
  }

  /** Stops the machine for the work, and starts it again after if it was running. */
  async function whileStopped(record: MachineRecord, work: () => Promise<void>): Promise<Machine> {
    const machine = await serialized(record.id, async () => {
      const wasRunning = (await pidOf(record)) !== null;
      if (wasRunning) await stopRecord(record);
      await work();
      return wasRunning ? startRecord(record) : toMachine(record);
    });
    return announced(machine);
  }

  /** A workspace's own disk (under its tag's folder) can take the overlay's changes. */
  const ownDisk = (record: MachineRecord) =>
    record.disks.every((d) => record.tag !== EMPTY_TAG && d.path.startsWith(`${record.tag}/`));

  async function save(id: string): Promise<Machine> {
    const record = required(id);
    if (!ownDisk(record)) {
      throw new DriverError(
        'invalid-state',
        'this machine is linked to a stock disk and cannot be saved: unlink its template first',
      );
    }
    const files = machineFiles(layout, record.id);
    return whileStopped(record, async () => {
      for (const disk of record.disks) await commitOverlay(files.overlay(disk.index));
    });
  }

  async function revert(id: string): Promise<Machine> {
    const record = required(id);
    const files = machineFiles(layout, record.id);
    return whileStopped(record, async () => {
      for (const disk of record.disks) await freshDisk(disk, files.overlay(disk.index));
    });
  }

  async function remove(id: string): Promise<Machine> {
    const record = required(id);
    return serialized(record.id, async () => {
      const machine = await stopRecord(record);
      for (const nic of record.nics) await switchClient.detach(portOf(record, nic.index));
      records.delete(record.id);
      await rm(machineFiles(layout, record.id).dir, { recursive: true, force: true });
      return { ...machine, status: 'initialized' as const, state: 'off' as const, nics: [] };
    });
  }

  return { startRecord, start, stop, save, revert, remove, announced };
}

export type QemuPower = ReturnType<typeof createQemuPower>;

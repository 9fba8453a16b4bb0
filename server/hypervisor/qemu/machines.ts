import { deployTaskOf, type DeployActorRef } from '../deploy';
import { resolveIn } from '../lifecycle';
import { DriverError, type Machine, type MachineTask } from '../types';
import { machineFiles, type QemuLayout } from './layout';
import { isRunning, readPid } from './processes';
import type { MachineRecord } from './records';
import type { SwitchClient } from './switch';

// The qemu driver's machines as callers see them: one folder and record each, running while its
// QEMU process lives, showing its deploy's task while it is being deployed, and why it boots
// while it boots where it could have been restored (power.ts).

export const HOST = 'localhost';

export interface QemuMachinesOptions {
  layout: QemuLayout;
  /** The records read at start, by id; deploys and deletes keep it current. */
  records: Map<string, MachineRecord>;
  switchClient: SwitchClient;
}

export function createQemuMachines({ layout, records, switchClient }: QemuMachinesOptions) {
  /** Deploys under way, by machine id: a machine shows its deploy's task until it is deployed. */
  const deploys = new Map<string, DeployActorRef>();
  /**
   * Machines booting where a warm image could have restored them, by id: the task saying why,
   * shown until the machine is up, and what ends the wait for it.
   */
  const boots = new Map<string, { task: MachineTask; stop: AbortController }>();

  async function pidOf(record: MachineRecord): Promise<number | null> {
    const pid = await readPid(machineFiles(layout, record.id).pid);
    return (await isRunning(pid, record.id)) ? pid : null;
  }

  async function toMachine(record: MachineRecord): Promise<Machine> {
    const running = (await pidOf(record)) !== null;
    const files = machineFiles(layout, record.id);
    return {
      id: record.id,
      name: record.name,
      host: HOST,
      path: files.dir,
      reference: record.id,
      diskPath: record.disks[0]?.path ?? '',
      stats: `deployed | ${running ? 'running' : 'off'}`,
      status: 'deployed',
      state: running ? 'running' : 'off',
      question: null,
      task: deployOf(record.id) ?? (running ? (boots.get(record.id)?.task ?? null) : null),
      tags: null,
      isTemplate: false,
      nics: record.nics.map((n) => ({ index: n.index, network: n.network })),
    };
  }

  function deployOf(id: string) {
    const deploy = deploys.get(id);
    return deploy ? deployTaskOf(deploy.getSnapshot()) : null;
  }

  function byIdOrName(id: string): MachineRecord | undefined {
    return records.get(id) ?? resolveIn(records.values(), id);
  }

  function required(id: string): MachineRecord {
    const record = byIdOrName(id);
    if (!record) throw new DriverError('not-found', `no machine ${id}`);
    return record;
  }

  const portOf = (record: MachineRecord, index: number) => `${record.id}/${index}`;

  async function attachPorts(record: MachineRecord): Promise<void> {
    const files = machineFiles(layout, record.id);
    for (const nic of record.nics) {
      await switchClient.attach(portOf(record, nic.index), files.nic(nic.index), nic.network);
    }
  }

  async function runningRecords(): Promise<MachineRecord[]> {
    const all = [...records.values()];
    const alive = await Promise.all(all.map(async (r) => (await pidOf(r)) !== null));
    return all.filter((_, i) => alive[i]);
  }

  return {
    records,
    deploys,
    boots,
    pidOf,
    toMachine,
    byIdOrName,
    required,
    portOf,
    attachPorts,
    runningRecords,
  };
}

export type QemuMachines = ReturnType<typeof createQemuMachines>;

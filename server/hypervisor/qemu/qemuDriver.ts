import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { deployTaskOf, startDeploy, type DeployActorRef } from '../deploy';
import { isoFilesOf } from '../isos';
import {
  DriverError,
  EMPTY_TAG,
  netOptions,
  type ConsoleTickets,
  type DeploymentContext,
  type DriverCapabilities,
  type DriverEvent,
  type DriverStatus,
  type HypervisorDriver,
  type Machine,
  type MachineChange,
  type MachineSpec,
} from '../types';
import { commitOverlay, copyDisk, createOverlay, exists, removeDisk, type DiskCopy } from './disks';
import {
  changeStateBy,
  deployBatchBy,
  findIn,
  forEachFound,
  ofTagIn,
  requireDeployable,
  resolveIn,
  specName,
  undeployedMachine,
} from '../lifecycle';
import { createListeners } from '../listeners';
import { relayRfb } from '../rfb';
import { createCapacity, type Reservation } from './capacity';
import { inside, layoutOf, machineFiles, type QemuLayout } from './layout';
import { createLocks } from './locks';
import {
  accelerationLabel,
  CDROM_DEVICE,
  detectAcceleration,
  ended,
  isRunning,
  launch,
  qemuProcessesUnder,
  readPid,
} from './processes';
import { qmp } from './qmp';
import { readAllRecords, writeRecord, type MachineRecord } from './records';
import { diskPathsOf, launchPlanOf, recordOf } from './plans';
import { ensureSwitch, type SwitchClient } from './switch';
import { TINY_KERNEL } from './tinyImage';

// The qemu driver: real machines on this one Linux host, one QEMU process each (processes.ts),
// linked-clone disks (disks.ts), isolated layer-2 networks through the switch process (switch.ts),
// consoles over VNC on unix sockets that the console WebSocket bridges to. Its machines live in
// folders (records.ts), so machines and their processes outlive a server restart: at start the
// driver reads the folders and finds the processes again.

export interface QemuDriverOptions {
  /** Base images; disk paths of specs are relative to it. */
  imagesDir: string;
  /** ISO files, `{tag}/*.iso` and the public `{zero GUID}/*.iso`. */
  isosDir: string;
  /** Machine folders and the switch's state; short enough for unix socket paths. */
  stateDir: string;
  console?: ConsoleTickets;
  /** Most machines running at once; null: no cap. */
  maxRunning?: number | null;
  /** Most memory of running machines, MiB; default three quarters of the host's memory. */
  maxMemoryMiB?: number | null;
  /** Nets a privileged (builder) deploy leaves untagged. */
  reservedNets?: string[];
  /** How often running machines are checked for having stopped on their own. */
  watchMs?: number;
  log?: { warn(o: object, msg?: string): void };
}

const HOST = 'localhost';
const OPERATIONS = ['start', 'stop', 'save', 'revert', 'delete', 'reset'] as const;

/** The driver, with what only a qemu host has: sockets of a machine, and orphans to remove. */
export interface QemuDriver extends HypervisorDriver {
  /** Kills QEMU processes whose machine is gone; how many there were. */
  removeOrphans(): Promise<number>;
  /** The unix socket of a machine's serial port. */
  serialSocket(id: string): string;
  /** The unix socket of a machine's QEMU monitor. */
  qmpSocket(id: string): string;
  /** The MAC addresses of a machine's NICs, in order. */
  macsOf(id: string): string[];
}

export async function createQemuDriver(options: QemuDriverOptions): Promise<QemuDriver> {
  const layout: QemuLayout = layoutOf({
    images: options.imagesDir,
    isos: options.isosDir,
    state: options.stateDir,
  });
  await mkdir(layout.machines, { recursive: true });
  await mkdir(layout.images, { recursive: true });
  await mkdir(layout.switchDir, { recursive: true });
  const tinyKernel = join(layout.images, TINY_KERNEL);
  const acceleration = await detectAcceleration((await exists(tinyKernel)) ? tinyKernel : null);
  const reserved = options.reservedNets ?? ['bridge-net'];
  const listeners = createListeners((error) =>
    options.log?.warn({ err: error }, 'qemu driver listener failed'),
  );
  const copies = new Map<string, DiskCopy>();
  /** Deploys under way, by machine id: a machine shows its deploy's task until it is deployed. */
  const deploys = new Map<string, DeployActorRef>();
  const { serialized, idle } = createLocks();
  /** Machines the watcher last saw running (server/hypervisor/qemu: Watching, below). */
  const knownRunning = new Set<string>();
  let closed = false;

  const records = new Map<string, MachineRecord>();
  for (const record of await readAllRecords(layout)) records.set(record.id, record);
  const switchClient: SwitchClient = await ensureSwitch(layout.switchDir);

  const capabilities: DriverCapabilities = {
    kind: 'qemu',
    operations: OPERATIONS,
    liveIsoChange: true,
    liveNicChange: true,
    guestChange: true,
    serverConsoles: true,
    simulated: false,
    acceleration: accelerationLabel(acceleration),
  };

  const emit = (event: DriverEvent): void => listeners.emit(event);

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
      task: deployOf(record.id),
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

  // The switch keeps its own table across restarts; ports are attached again in case it lost it.
  for (const record of records.values()) await attachPorts(record);

  // -------------------------------------------------------------------------------------------
  // Capacity.

  async function runningRecords(): Promise<MachineRecord[]> {
    const all = [...records.values()];
    const alive = await Promise.all(all.map(async (r) => (await pidOf(r)) !== null));
    return all.filter((_, i) => alive[i]);
  }

  const capacity = createCapacity({
    maxRunning: options.maxRunning ?? null,
    maxMemoryMiB:
      options.maxMemoryMiB === undefined
        ? Math.floor((totalmem() / 1024 / 1024) * 0.75)
        : options.maxMemoryMiB,
    running: async () => (await runningRecords()).map((r) => r.spec.memoryMiB),
  });
  const memoriesOf = (specs: MachineSpec[]) => specs.map((s) => s.memoryMiB);

  // -------------------------------------------------------------------------------------------
  // Power.

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
        await launch(await plan(record));
      } finally {
        capacity.release(own);
      }
    }
    return toMachine(record);
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
      for (const disk of record.disks) await createOverlay(disk.base, files.overlay(disk.index));
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

  // -------------------------------------------------------------------------------------------
  // Deploying.

  const diskPaths = (spec: MachineSpec) => diskPathsOf(layout, spec);

  async function diskProgress(spec: MachineSpec): Promise<number[]> {
    return Promise.all(
      diskPaths(spec).map(async (d) => {
        const copy = copies.get(d.full);
        if (copy) return copy.progress;
        return (await exists(d.full)) ? 100 : -1;
      }),
    );
  }

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
    if ((await diskProgress(spec)).some((p) => p < 100)) {
      throw new DriverError('invalid-state', 'template disks are not initialized');
    }
    const id = randomUUID();
    const record = recordOf(id, spec, privileged, diskPaths(spec), reserved);
    const files = machineFiles(layout, id);
    const deploy = startDeploy({ taskId: randomUUID(), started: Date.now() });
    deploys.set(id, deploy);
    try {
      await mkdir(files.dir, { recursive: true });
      try {
        // Its disks are overlays of the template's, its own from here on.
        deploy.send({ type: 'deploy.copyStarted' });
        for (const disk of record.disks) await createOverlay(disk.base, files.overlay(disk.index));
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
        await startRecord(record, batch);
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

  const deploy = (spec: MachineSpec, privileged: boolean, batch?: Reservation) =>
    serialized(specName(spec), () => deployNow(spec, privileged, batch));

  const deployBatch = (context: DeploymentContext, wait: boolean) =>
    deployBatchBy(
      {
        machinesOf,
        track: (work) =>
          void work.catch((error: unknown) =>
            options.log?.warn({ err: error }, 'qemu batch deploy failed'),
          ),
        async open(missing, context) {
          // The whole batch is admitted or refused before anything is built, so a refused
          // launch leaves nothing half-built.
          const batch = await capacity.admit(
            memoriesOf(missing.filter((s) => s.autoStart || context.hostAffinity)),
          );
          return {
            deploy: (specs, privileged) =>
              Promise.all(specs.map((s) => deploy(s, privileged, batch))),
            async start(machine) {
              const record = required(machine.id);
              return announced(await serialized(record.id, () => startRecord(record, batch)));
            },
            close: () => capacity.release(batch),
          };
        },
      },
      context,
      wait,
    );

  async function refresh(spec: MachineSpec): Promise<Machine> {
    const existing = byIdOrName(specName(spec));
    if (existing) return toMachine(existing);
    const running = diskPaths(spec)
      .map((d) => copies.get(d.full))
      .filter((c): c is DiskCopy => !!c);
    return undeployedMachine(spec, {
      host: HOST,
      diskPath: spec.disks[0]?.path ?? '',
      progress: Math.min(100, ...(await diskProgress(spec))),
      copyStarted: running.length ? Math.min(...running.map((c) => c.started)) : null,
    });
  }

  const find = (term: string) => Promise.all(findIn(records.values(), term).map(toMachine));
  const machinesOf = (tag: string) => Promise.all(ofTagIn(records.values(), tag).map(toMachine));

  // -------------------------------------------------------------------------------------------
  // Configuration.

  async function changeConfiguration(
    id: string,
    change: MachineChange,
    privileged: boolean,
  ): Promise<Machine> {
    const record = required(id);
    return serialized(record.id, async () => {
      const running = (await pidOf(record)) !== null;
      const files = machineFiles(layout, record.id);
      switch (change.kind) {
        case 'iso': {
          const path = change.path.trim();
          const full = path ? inside(layout.isos, path, 'ISO') : null;
          if (full && !(await exists(full))) {
            throw new DriverError('invalid-request', `no ISO ${path}`);
          }
          if (running) {
            await (full
              ? qmp(files.qmp, 'blockdev-change-medium', {
                  id: CDROM_DEVICE,
                  filename: full,
                  format: 'raw',
                  'read-only-mode': 'read-only',
                })
              : qmp(files.qmp, 'eject', { id: CDROM_DEVICE, force: true }));
          }
          record.iso = path || null;
          break;
        }
        case 'net': {
          const nic = record.nics.find((n) => n.index === change.nic);
          if (!nic) throw new DriverError('invalid-request', `no NIC ${change.nic}`);
          const network = change.network;
          const allowed =
            network === '' ||
            network.endsWith(`#${record.tag}`) ||
            (privileged && reserved.includes(network));
          if (!allowed)
            throw new DriverError('invalid-request', `network ${network} is not this lab's`);
          await switchClient.move(portOf(record, nic.index), network);
          nic.network = network;
          break;
        }
        case 'boot':
          record.bootDelaySeconds = change.delaySeconds;
          break;
        case 'guest':
          // Guest settings reach the machine through fw_cfg, read when it starts next.
          record.guestSettings = [
            ...record.guestSettings,
            { key: change.key, value: change.value },
          ];
          break;
      }
      await writeRecord(layout, record);
      return toMachine(record);
    });
  }

  // -------------------------------------------------------------------------------------------
  // Watching: a machine whose guest powered off (or whose QEMU died) is announced as stopped.

  // Each check waits its turn behind the machine's own operations: a stop or a delete under way is
  // never taken for a machine that stopped by itself.
  async function watch(): Promise<void> {
    for (const record of [...records.values()]) {
      await serialized(record.id, async () => {
        if (!records.has(record.id)) return;
        const running = (await pidOf(record)) !== null;
        if (running) knownRunning.add(record.id);
        else if (knownRunning.delete(record.id)) {
          emit({ type: 'stopped', machine: await toMachine(record) });
        }
      });
    }
  }
  const watcher = setInterval(() => {
    watch().catch((error) => options.log?.warn({ err: error }, 'qemu machine watch failed'));
  }, options.watchMs ?? 2_000);
  watcher.unref();

  async function orphans(): Promise<Array<{ pid: number; id: string }>> {
    const processes = await qemuProcessesUnder(layout.machines);
    return processes.filter((p) => !records.has(p.id));
  }

  const driver: QemuDriver = {
    capabilities,
    async load(id) {
      const record = byIdOrName(id);
      return record ? toMachine(record) : null;
    },
    start,
    stop,
    save,
    revert,
    delete: remove,
    changeState: (id, operation) =>
      changeStateBy({ start, stop, save, revert, delete: remove }, id, operation),
    changeConfiguration,
    async answer(id) {
      required(id);
      // QEMU asks no questions: there is none to answer.
      throw new DriverError('invalid-state', 'the machine asks no question');
    },
    deploy,
    deployBatch,
    refresh,
    find,
    machinesOf,
    startAll: (term) => forEachFound(findIn(records.values(), term), start),
    stopAll: (term) => forEachFound(findIn(records.values(), term), stop),
    deleteAll: (term) => forEachFound(findIn(records.values(), term), remove),

    async createDisks(spec) {
      for (const disk of diskPaths(spec)) {
        if (copies.has(disk.full) || (await exists(disk.full))) continue;
        if (!disk.source) {
          throw new DriverError('invalid-state', `disk ${disk.path} does not exist`);
        }
        const source = inside(layout.images, disk.source, 'disk');
        if (!(await exists(source))) {
          throw new DriverError('invalid-state', `disk ${disk.source} does not exist`);
        }
        const copy = copyDisk(source, disk.full, Date.now());
        copies.set(disk.full, copy);
        copy.done.then(
          () => copies.delete(disk.full),
          (error: unknown) => {
            copies.delete(disk.full);
            options.log?.warn({ err: error, disk: disk.path }, 'disk copy failed');
          },
        );
      }
      return Math.min(100, ...(await diskProgress(spec)));
    },
    verifyDisks: diskProgress,
    async deleteDisks(spec) {
      const tag = spec.isolationTag;
      // Only disks under the tag's own folder: never a stock image, never another lab's disk.
      if (!tag || tag === EMPTY_TAG) return;
      for (const disk of diskPaths(spec)) {
        if (disk.path.startsWith(`${tag}/`)) await removeDisk(disk.full);
      }
    },

    async display(id) {
      const record = required(id);
      const running = (await pidOf(record)) !== null;
      let url = '';
      let ticket: string | null = null;
      if (running && options.console) {
        ({ url, ticket } = await options.console.issue(record.id));
      }
      return { machineId: record.id, url, ticket, isRunning: running };
    },

    async openConsole(id, viewer) {
      const record = required(id);
      if ((await pidOf(record)) === null) {
        throw new DriverError('invalid-state', 'the machine is not running');
      }
      // QEMU's VNC server on the machine's socket: no password (the socket is ours alone), so
      // the relay chooses security None and then carries the viewer's bytes.
      const socket = connect(machineFiles(layout, record.id).vnc);
      const relay = relayRfb(
        { send: (bytes) => void socket.write(bytes), close: () => socket.destroy() },
        viewer,
        {
          peer: 'QEMU',
          onFailure: (detail) => options.log?.warn({ machine: record.id, detail }, 'console'),
        },
      );
      let failure = '';
      socket.on('data', (data: Buffer) => relay.fromUpstream(data));
      socket.on('error', (error) => {
        failure = error.message;
        socket.destroy();
      });
      // The socket closes when the machine stops: a clean end, unless it broke.
      socket.on('close', () =>
        relay.upstreamEnded(!failure, `QEMU's console closed${failure ? `: ${failure}` : ''}`),
      );
      return relay;
    },

    async isoOptions(tag) {
      return isoFilesOf(layout.isos, tag);
    },
    async netOptions(tag) {
      const nets = [...records.values()]
        .filter((r) => r.tag === tag)
        .flatMap((r) => r.nics.map((n) => n.network));
      return netOptions(reserved, nets, tag);
    },

    subscribe: (listener) => listeners.subscribe(listener),
    async ready() {
      if (closed) throw new Error('the qemu driver is closed');
      await switchClient.list();
    },
    async status(): Promise<DriverStatus> {
      const running = await runningRecords();
      return {
        kind: 'qemu',
        acceleration: capabilities.acceleration,
        running: running.length,
        maxRunning: capacity.maxRunning,
        memoryMiBInUse: running.reduce((sum, r) => sum + r.spec.memoryMiB, 0),
        maxMemoryMiB: capacity.maxMemoryMiB,
        orphans: (await orphans()).length,
      };
    },
    async removeOrphans() {
      const found = await orphans();
      for (const orphan of found) {
        try {
          process.kill(orphan.pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
        await rm(machineFiles(layout, orphan.id).dir, { recursive: true, force: true });
      }
      return found.length;
    },
    serialSocket: (id) => machineFiles(layout, required(id).id).serial,
    qmpSocket: (id) => machineFiles(layout, required(id).id).qmp,
    macsOf: (id) => required(id).nics.map((n) => n.mac),
    async close() {
      closed = true;
      clearInterval(watcher);
      await idle();
      listeners.clear();
      await switchClient.close();
    },
  };
  return driver;
}

import { mkdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { realClock, type Clock } from '../../clock';
import { isoFilesOf } from '../isos';
import {
  DriverError,
  netOptions,
  type ConsoleTickets,
  type DriverCapabilities,
  type DriverEvent,
  type DriverStatus,
  type HypervisorDriver,
  type MachineSpec,
} from '../types';
import { createDriver, selectIn } from '../lifecycle';
import { createListeners } from '../listeners';
import { relayRfb } from '../rfb';
import { createAgentless } from './agentless';
import { createQemuClipboard } from './clipboard';
import { createCapacity } from './capacity';
import { qemuAvailability } from './availability';
import { createQemuConfiguration } from './configuration';
import { createDiskCopies } from './diskCopies';
import { createQemuDeploys } from './deploys';
import { exists } from './disks';
import { layoutOf, machineFiles, type QemuLayout } from './layout';
import { createLocks } from './locks';
import { createQemuMachines, HOST } from './machines';
import { createQemuPower } from './power';
import {
  accelerationLabel,
  detectAcceleration,
  qemuProcessesUnder,
  qemuVersion,
} from './processes';
import { readAllRecords, type MachineRecord } from './records';
import { ensureSwitch, type SwitchClient } from './switch';
import { TINY_KERNEL } from './tinyImage';
import { createWarmImages, WARM_BOOT_MS, type WarmImages } from './warm';
import { callAgent, settingsLine } from './guestAgent';
import { putThroughAgent } from './filePut';

// The qemu driver: real machines on this one Linux host, one QEMU process each (processes.ts),
// linked-clone disks (disks.ts), isolated layer-2 networks through the switch process (switch.ts),
// consoles over VNC on unix sockets that the console WebSocket bridges to. Its machines live in
// folders (records.ts), so machines and their processes outlive a server restart: at start the
// driver reads the folders and finds the processes again. This file puts the driver's backend
// together for the lifecycle (../lifecycle.ts createDriver): machines as callers see them (machines.ts), operations (power.ts), deploys (deploys.ts),
// configuration changes (configuration.ts) and template disks (diskCopies.ts).

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
  /** When deploys and disk copies start; the real one unless a test moves a manual one on. */
  clock?: Clock;
  log?: { warn(o: object, msg?: string): void; info?(o: object, msg?: string): void };
  /**
   * Player machines are restored from warm images (warm.ts) instead of booting, once their
   * template's image is built (in the background, after the first deploy). Off: every machine
   * boots.
   */
  warmImages?: boolean;
  /**
   * How long a wait for a booting machine's agent lasts (untilUsable, a boot's notice) before its
   * image is taken for one without (agentless.ts); WARM_BOOT_MS unless a test shortens it.
   */
  agentWaitMs?: number;
}

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
  /** The unix socket of a machine's guest agent (its second serial port). */
  agentSocket(id: string): string;
  /** Warm images, when the driver restores from them. */
  warm: WarmImages | null;
}

const isKey = (key: string | null | undefined): key is string => Boolean(key);

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
  const clock = options.clock ?? realClock;
  const listeners = createListeners((error) =>
    options.log?.warn({ err: error }, 'qemu driver listener failed'),
  );
  const disks = createDiskCopies({ layout, clock, log: options.log });
  const { serialized, idle } = createLocks();
  /** Machines last seen or started running (Watching, below). */
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
    // A pooled set's machines run on under the gamespace's tag, moved to its switch segments.
    retag: true,
    files: 'agent',
    serverConsoles: true,
    simulated: false,
    acceleration: accelerationLabel(acceleration),
  };

  const emit = (event: DriverEvent): void => listeners.emit(event);

  const machines = createQemuMachines({ layout, records, switchClient });
  const { pidOf, toMachine, required, attachPorts, runningRecords } = machines;

  // The switch keeps its own table across restarts; ports are attached again in case it lost it.
  for (const record of records.values()) await attachPorts(record);

  // -------------------------------------------------------------------------------------------
  // Capacity.

  const capacity = createCapacity({
    maxRunning: options.maxRunning ?? null,
    maxMemoryMiB:
      options.maxMemoryMiB === undefined
        ? Math.floor((totalmem() / 1024 / 1024) * 0.75)
        : options.maxMemoryMiB,
    running: async () => (await runningRecords()).map((r) => r.spec.memoryMiB),
  });
  const memoriesOf = (specs: MachineSpec[]) => specs.map((s) => s.memoryMiB);

  /** Ends the waits that outlive a call (untilUsable, a boot's) when the driver closes. */
  const closing = new AbortController();
  const agentless = createAgentless();
  const agentWaitMs = options.agentWaitMs ?? WARM_BOOT_MS;

  const warm = options.warmImages
    ? createWarmImages({
        layout,
        acceleration,
        qemu: await qemuVersion(),
        log: options.log,
        now: () => clock.now(),
        agentless,
        capacity,
      })
    : null;
  // Warm images no machine is based on any more (their template or image changed) are removed.
  // A machine restored from one keeps it: its disk overlays are based on the image's frozen disks.
  await warm?.prune(
    new Set([...records.values()].flatMap((r) => [r.warm, r.restoredFrom].filter(isKey))),
  );

  const power = createQemuPower({
    warm,
    layout,
    acceleration,
    log: options.log,
    machines,
    capacity,
    serialized,
    switchClient,
    knownRunning,
    agentless,
    agentWaitMs,
    clock,
    closing: closing.signal,
    emit,
  });
  const { startRecord, start, stop, save, revert, remove, announced } = power;
  const { deploy } = createQemuDeploys({
    warm,
    agentless,
    log: options.log,
    layout,
    reserved,
    machines,
    disks,
    power,
    serialized,
    emit,
    clock,
  });
  const { changeConfiguration, rename } = createQemuConfiguration({
    layout,
    reserved,
    machines,
    serialized,
    switchClient,
    emit,
    log: options.log,
  });

  // -------------------------------------------------------------------------------------------
  // Watching: a machine whose guest powered off (or whose QEMU died) is announced as stopped. The
  // lifecycle runs this look while anyone listens (../powerWatch.ts).

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

  async function orphans(): Promise<Array<{ pid: number; id: string }>> {
    const processes = await qemuProcessesUnder(layout.machines);
    return processes.filter((p) => !records.has(p.id));
  }

  async function removeOrphans(): Promise<number> {
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
  }

  const clipboard = createQemuClipboard({
    async runningAgent(id) {
      const record = required(id);
      if ((await pidOf(record)) === null) {
        throw new DriverError('invalid-state', 'the machine is not running');
      }
      return { socket: machineFiles(layout, record.id).agent, base: record.disks[0]?.base };
    },
    agentless,
    closing: closing.signal,
  });

  const lifecycle = createDriver({
    capabilities,
    list: (selection) => Promise.all(selectIn(records.values(), selection).map(toMachine)),
    start,
    stop,
    save,
    revert,
    delete: remove,
    changeConfiguration,
    rename,
    async answer(id) {
      required(id);
      // QEMU asks no questions: there is none to answer.
      throw new DriverError('invalid-state', 'the machine asks no question');
    },
    deploy,
    async openBatch(missing, context) {
      // The whole batch is admitted or refused before anything is built, so a refused launch
      // leaves nothing half-built.
      const batch = await capacity.admit(
        memoriesOf(missing.filter((s) => s.autoStart || context.hostAffinity)),
      );
      return {
        deploy: (specs, privileged) => Promise.all(specs.map((s) => deploy(s, privileged, batch))),
        async start(machine) {
          const record = required(machine.id);
          return announced(await serialized(record.id, () => startRecord(record, batch)));
        },
        close: () => capacity.release(batch),
      };
    },
    track: (work) =>
      void work.catch((error: unknown) =>
        options.log?.warn({ err: error }, 'qemu batch deploy failed'),
      ),
    async undeployed(spec) {
      return {
        host: HOST,
        diskPath: spec.disks[0]?.path ?? '',
        progress: Math.min(100, ...(await disks.progress(spec))),
        copyStarted: disks.copyStarted(spec),
      };
    },

    availability: (spec) => qemuAvailability(layout, spec),
    createDisks: (spec) => disks.create(spec),
    verifyDisks: (spec) => disks.progress(spec),
    deleteDisks: (spec) => disks.remove(spec),

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

    guestClipboard: clipboard.guestClipboard,
    readGuestClipboard: clipboard.readGuestClipboard,
    // Through the machine's agent (filePut.ts). A machine without one is refused: a file on a
    // hot-attached ISO would take the place of the ISO a lab gave it.
    async putFile(id, name, bytes) {
      const record = required(id);
      if ((await pidOf(record)) === null) {
        throw new DriverError('invalid-state', 'the machine is not running');
      }
      const socket = machineFiles(layout, record.id).agent;
      return putThroughAgent({ socket, name, bytes, signal: closing.signal });
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

    // A machine is usable once its agent answers `ping`: the agent says so when the image has
    // booted as far as it goes (cloud-init done). Images without the agent never answer: their
    // machines are taken for usable after WARM_BOOT_MS, and at once once their image is known to
    // have none (agentless.ts, learned here too). The agent is then given the settings the
    // machine has: nothing changes, but the programs a claim's settings run are read and
    // translated now rather than during the claim (a restored machine's page cache is empty, and
    // the first claim of a Debian machine took 2.4 s instead of 0.5 s).
    async untilUsable(tag) {
      const running = (await runningRecords()).filter((r) => r.tag === tag);
      await Promise.all(
        running.map(async (record) => {
          const base = record.disks[0]?.base;
          if (await agentless.has(base)) return;
          const socket = machineFiles(layout, record.id).agent;
          const call = { timeoutMs: agentWaitMs, signal: closing.signal };
          try {
            await callAgent(socket, {
              ...call,
              line: 'ping',
              answer: 'TOPOPLAY pong',
              repeatMs: 1_000,
            }).catch(async (error: unknown) => {
              if (!closing.signal.aborted && (await pidOf(record)) !== null) {
                await agentless.learn(base);
              }
              throw error;
            });
            await callAgent(socket, {
              ...call,
              line: settingsLine(record.guestSettings),
              answer: 'TOPOPLAY settings',
            });
          } catch (error) {
            options.log?.warn({ machine: record.id, err: error }, 'no word from the agent');
          }
        }),
      );
    },
    // A claim gives a running machine its settings through the agent: a template with settings
    // on an image known to have none cannot be pooled.
    async poolable(spec) {
      const base = disks.diskPaths(spec)[0]?.full;
      if (spec.guestSettings.length === 0 || !(await agentless.has(base))) {
        return { available: true };
      }
      return {
        available: false,
        reason:
          `The image of the template ${spec.name} has no guest agent (its machines never ` +
          `answered it), so a pooled machine could not take a launch's guest settings while ` +
          `it runs: its launches deploy without a pool. An image with the agent, or a template ` +
          `without guest settings, can be pooled.`,
      };
    },
    subscribe: (listener) => listeners.subscribe(listener),
    powerPoll: {
      check: watch,
      everyMs: options.watchMs ?? 2_000,
      failed: (error) => options.log?.warn({ err: error }, 'qemu machine watch failed'),
    },
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
        reserved: {
          machines: capacity.reserved().count,
          memoryMiB: capacity.reserved().memoryMiB,
        },
        orphans: (await orphans()).length,
      };
    },
    async close() {
      closed = true;
      closing.abort();
      await warm?.close();
      await idle();
      listeners.clear();
      await switchClient.close();
    },
  });
  return {
    ...lifecycle,
    removeOrphans,
    serialSocket: (id) => machineFiles(layout, required(id).id).serial,
    qmpSocket: (id) => machineFiles(layout, required(id).id).qmp,
    macsOf: (id) => required(id).nics.map((n) => n.mac),
    agentSocket: (id) => machineFiles(layout, required(id).id).agent,
    warm,
  };
}

import { createHash } from 'node:crypto';
import { realClock, type Clock } from '../../clock';
import {
  DriverError,
  isolatedNet,
  tagOf,
  vmName,
  type ConsoleTickets,
  type DriverCapabilities,
  type HypervisorDriver,
  type Machine,
  type MachineChange,
  type MachineSpec,
  type PowerState,
} from '../types';
import { createDriver, specName, type Selection } from '../lifecycle';
import { createListeners } from '../listeners';
import { createSimConsoles } from './console/consoles';
import { diskStates, diskStatesOf, removeCopies, startCopies } from './disks';
import { guestSettingsOf, HOST, nicsOf, OPERATIONS, toMachine } from './machine';
import { DEFAULT_RESERVED_NETS, isoOptions, netOptions, withNet } from './networks';
import { NO_TASK, type SimMachineRow, type SimMachineStore } from './port';
import { scaled, TASK_MS, type TaskKind } from './tasks';
import { createSimTasks, newId } from './taskTimers';
import { untilIdle } from './usable';

// The default hypervisor: simulated machines kept in the database, with tasks that take time
// and report progress like a real hypervisor's. Every process sharing the database sees the same
// machines; a task ends when it is due, either when someone reads the machine or when the timer
// of a process that knows about it fires, and only the process whose UPDATE wins announces it.

export const SIM_CAPABILITIES: DriverCapabilities = {
  kind: 'sim',
  operations: OPERATIONS,
  liveIsoChange: true,
  liveNicChange: true,
  guestChange: true,
  serverConsoles: true,
  simulated: true,
  acceleration: 'simulated',
  retag: true,
  files: 'simulated',
};

/** Where the sim puts files: the folder the qemu driver's agent uses for root (tiny image). */
export const SIM_UPLOADS = '/root/uploads';

export interface SimDriverOptions {
  /** Where the machines and disk copies are kept (server/store/simMachineStore.ts). */
  store: SimMachineStore;
  /** Holds `isos/{tag}/*.iso`. */
  dataDir: string;
  /** How many times faster than real time tasks run; 0 finishes every task inside the call. */
  speed: number;
  console?: ConsoleTickets;
  log?: { warn(o: object, msg?: string): void };
  /** Nets a privileged deploy leaves untagged (wire reference §4.1); default `bridge-net`. */
  reservedNets?: string[];
  /** Task times and timers; tests move a manual one on instead of waiting. */
  clock?: Clock;
}

export function createSimDriver(options: SimDriverOptions): HypervisorDriver {
  const { store, speed } = options;
  const clock = options.clock ?? realClock;
  const reserved = options.reservedNets ?? DEFAULT_RESERVED_NETS;
  const listeners = createListeners((error) => warn(error, 'sim hypervisor listener failed'));
  // Work that outlives a call (timers' UPDATEs, batch deploys): close() waits for it.
  const background = new Set<Promise<unknown>>();
  let closed = false;
  /** Ends the waits that outlive a call (untilUsable) when the driver closes. */
  const closing = new AbortController();
  /**
   * Batches under way, by tag: one with host affinity starts its machines after its deploy has
   * answered, so a wait for the tag's machines begins once its batches are over.
   */
  const batches = new Map<string, Set<Promise<void>>>();

  const warn = (error: unknown, msg: string) =>
    options.log?.warn({ err: error instanceof Error ? error.message : String(error) }, msg);

  function track(work: Promise<unknown>): void {
    const settled = work.catch((error) => warn(error, 'sim hypervisor background work failed'));
    background.add(settled);
    void settled.finally(() => background.delete(settled));
  }

  const announce = (machine: Machine): void => listeners.emit({ type: 'updated', machine });
  const { cancelTimer, schedule, settle, settled, newTask, launched, supersede, stopTimers } =
    createSimTasks({
      store,
      clock,
      speed,
      announce,
      track,
      isClosed: () => closed,
    });

  async function current(id: string): Promise<SimMachineRow | undefined> {
    const row = await store.byIdOrName(id);
    return row && settle(row);
  }

  async function required(id: string): Promise<SimMachineRow> {
    const row = await current(id);
    if (!row) throw notFound();
    return row;
  }

  const notFound = () => new DriverError('not-found', 'no such machine');

  /**
   * Runs an operation as a task. A task still running on the machine is superseded: its outcome
   * is applied first (silently: the caller announces the new operation), then this one starts.
   */
  async function operate(
    id: string,
    kind: TaskKind,
    outcome: (row: SimMachineRow) => PowerState,
  ): Promise<Machine> {
    const row = await supersede(await required(id));
    const task = newTask(kind, outcome(row));
    await store.update(row.id, task);
    return launched({ ...row, ...task });
  }

  const start = (id: string) => operate(id, 'start', () => 'running');
  const stop = (id: string) => operate(id, 'stop', () => 'off');
  // The sim keeps no disk contents: saving changes nothing but takes its time.
  const save = (id: string) => operate(id, 'save', (row) => row.state as PowerState);
  const revert = (id: string) =>
    operate(id, 'revert', (row) => (row.state === 'running' ? 'running' : 'off'));

  async function remove(id: string): Promise<Machine> {
    const row = await required(id);
    if (row.taskId) cancelTimer(row.taskId);
    await store.remove(row.id);
    return {
      ...toMachine({ ...row, ...NO_TASK }, clock.now()),
      status: 'initialized',
      state: 'off',
    };
  }

  /** A new machine's row, its deploy task under way. */
  function machineRow(spec: MachineSpec, privileged: boolean): SimMachineRow {
    const name = specName(spec);
    const tag = tagOf(name);
    return {
      id: newId(),
      name,
      tag,
      status: 'deployed',
      state: 'off',
      diskPath: spec.disks[0]?.path ?? '',
      nics: JSON.stringify(spec.nics.map((n) => isolatedNet(n.network, tag, privileged, reserved))),
      iso: spec.iso ?? '',
      bootDelay: spec.bootDelaySeconds,
      guestSettings: spec.guestSettings.map((s) => `${s.key}=${s.value}`).join('\n'),
      question: '',
      whenCreated: clock.now(),
      ...newTask('deploy', spec.autoStart ? 'running' : 'off'),
    };
  }

  /**
   * Deploys machines with one write to the store: each spec's machine, or the one of its name
   * that exists already (another call or process deployed it: that one stands). At speed 0 a
   * machine is written as its deploy task leaves it and announced, as if the task had ended
   * inside the call (one write instead of two). Fails, writing nothing, when a spec has no name
   * or a new machine's template disks are not all there.
   */
  async function deployAll(specs: readonly MachineSpec[], privileged: boolean): Promise<Machine[]> {
    if (specs.some((spec) => !spec.name)) {
      throw new DriverError('invalid-request', 'template has no name');
    }
    const disks = await diskStatesOf(store, specs, clock.now());
    for (const [i, spec] of specs.entries()) {
      if (disks[i]!.some((d) => d.progress < 100) && !(await store.byName(specName(spec)))) {
        throw new DriverError(
          'invalid-state',
          `The disks of the template ${spec.name} are not initialized yet: initialize it first.`,
        );
      }
    }
    const rows = specs.map((spec) => {
      const row = machineRow(spec, privileged);
      return row.taskDuration > 0 ? row : { ...row, ...NO_TASK, state: row.taskOutcome };
    });
    const added = await store.insert(rows);
    return Promise.all(
      rows.map(async (row) => {
        if (added.has(row.name)) {
          const machine = toMachine(row, clock.now());
          if (row.taskId) schedule(row);
          else announce(machine);
          return machine;
        }
        const existing = await store.byName(row.name);
        if (!existing)
          throw new DriverError('unavailable', `machine ${row.name} could not be kept`);
        return toMachine((await settle(existing)) ?? existing, clock.now());
      }),
    );
  }

  async function deploy(spec: MachineSpec, privileged: boolean): Promise<Machine> {
    const [machine] = await deployAll([spec], privileged);
    return machine!;
  }

  // The store selects the rows (an index, not a scan); the lifecycle says which and in what order.
  async function list(selection: Selection): Promise<Machine[]> {
    let rows: SimMachineRow[];
    if ('term' in selection) rows = await settled(await store.matching(selection.term));
    else if ('tag' in selection) rows = await settled(await store.ofTag(selection.tag));
    else rows = [await current(selection.idOrName)].filter((r) => r !== undefined);
    return rows.map((r) => toMachine(r, clock.now()));
  }

  /**
   * Hands the machines of one tag to another: names and isolated nets follow the tag, reserved
   * nets stay; everything else (power, a task under way, guest settings) is as it was.
   */
  async function rename(fromTag: string, toTag: string): Promise<Machine[]> {
    const rows = await settled(await store.ofTag(fromTag));
    const renamed = await Promise.all(
      rows.map(async (row) => {
        const patch = {
          name: vmName(row.name, toTag),
          tag: toTag,
          nics: JSON.stringify(
            nicsOf(row).map((net) => (tagOf(net) === fromTag ? vmName(net, toTag) : net)),
          ),
        };
        await store.update(row.id, patch);
        return toMachine({ ...row, ...patch }, clock.now());
      }),
    );
    renamed.forEach(announce);
    return renamed;
  }

  async function changeConfiguration(id: string, change: MachineChange): Promise<Machine> {
    const row = await required(id);
    switch (change.kind) {
      case 'iso':
        await store.update(row.id, { iso: change.path });
        break;
      case 'net':
        await store.update(row.id, {
          nics: JSON.stringify(withNet(nicsOf(row), change.nic, change.network)),
        });
        break;
      case 'boot':
        if (!Number.isInteger(change.delaySeconds) || change.delaySeconds < 0) {
          throw new DriverError('invalid-request', 'boot delay is not a number');
        }
        await store.update(row.id, { bootDelay: change.delaySeconds });
        break;
      case 'guest':
      case 'guests': {
        const added = change.kind === 'guest' ? [change] : change.settings;
        const settings = added.filter((s) => s.key).map((s) => `${s.key}=${s.value}`);
        const lines = [row.guestSettings, ...settings].filter(Boolean).join('\n');
        await store.update(row.id, { guestSettings: lines });
        break;
      }
      default:
        throw new DriverError('invalid-request', 'unknown configuration change');
    }
    const fresh = await store.byId(row.id);
    if (!fresh) throw notFound();
    return toMachine(fresh, clock.now());
  }

  async function verifyDisks(spec: MachineSpec): Promise<number[]> {
    const states = await diskStates(store, spec, clock.now());
    return states.map((d) => d.progress);
  }

  const consoles = createSimConsoles({
    load: async (id) => {
      const row = await current(id);
      return row ? toMachine(row, clock.now()) : null;
    },
    guestSettings: async (id) => {
      const row = await store.byId(id);
      return row ? guestSettingsOf(row) : [];
    },
    subscribe: (listener) => listeners.subscribe(listener),
    clock,
    log: options.log,
  });

  const driver = createDriver({
    capabilities: SIM_CAPABILITIES,
    list,
    start,
    stop,
    save,
    revert,
    delete: remove,
    // Which nets an unprivileged user may pick is the route's rule (wire reference §1.4).
    changeConfiguration: (id, change) => changeConfiguration(id, change),

    async answer(id, answer) {
      const row = await required(id);
      const question = toMachine(row, clock.now()).question;
      if (!question || question.id !== answer.questionId) {
        throw new DriverError('invalid-state', 'the machine asks no such question');
      }
      await store.update(row.id, { question: '' });
      return toMachine({ ...row, question: '' }, clock.now());
    },

    deploy,
    rename,
    openBatch: async (_missing, context) => {
      const tag = context.isolationTag;
      let over: () => void = () => undefined;
      const batch = new Promise<void>((resolve) => (over = resolve));
      const ofTag = batches.get(tag) ?? new Set();
      batches.set(tag, ofTag.add(batch));
      return {
        deploy: deployAll,
        // A deploy task still running is superseded: its outcome (off) first, then the start.
        start: (machine) => start(machine.id),
        close() {
          over();
          ofTag.delete(batch);
          if (ofTag.size === 0) batches.delete(tag);
        },
      };
    },
    track,

    async undeployed(spec) {
      const disks = await diskStates(store, spec, clock.now());
      const copying = disks.filter((d) => d.progress >= 0 && d.progress < 100);
      return {
        host: HOST,
        diskPath: spec.disks[0]?.path ?? '',
        progress: Math.min(100, ...disks.map((d) => d.progress)),
        copyStarted: copying.length ? Math.min(...copying.map((d) => d.started)) : null,
      };
    },

    // Simulated machines are made from nothing: every template can run.
    availability: async () => ({ available: true }),
    async createDisks(spec) {
      const perDisk = scaled(TASK_MS.diskCopy, speed);
      const started = await startCopies(store, spec, perDisk, clock.now());
      // As the reference: 0 when copies were just started (unless they complete at once), else
      // the least progress, 100 when every disk is present.
      if (started > 0 && perDisk > 0) return 0;
      return Math.min(100, ...(await verifyDisks(spec)));
    },
    verifyDisks,
    deleteDisks: (spec) => removeCopies(store, spec),

    async display(id) {
      const row = await required(id);
      const isRunning = row.state === 'running';
      let url = '';
      let ticket: string | null = null;
      if (isRunning && options.console) {
        try {
          ({ url, ticket } = await options.console.issue(row.id));
        } catch (error) {
          // The reference answers a failed ticket with an empty address, not an error.
          warn(error, 'console ticket failed');
        }
      }
      return { machineId: row.id, url, ticket, isRunning };
    },
    openConsole: (id, viewer) => consoles.open(id, viewer),
    // The simulated shell has topoplay-copy too (console/terminal.ts): every running machine
    // copies out, as one with the guest agent does.
    async guestClipboard(id) {
      const row = await required(id).catch(() => null);
      return row?.state === 'running' ? { copy: true, via: 'agent' } : { copy: false };
    },
    async readGuestClipboard(id) {
      const row = await required(id);
      if (row.state !== 'running')
        throw new DriverError('invalid-state', 'the machine is not running');
      return consoles.copied(row.id);
    },
    // The simulated machine keeps the file as text its shell shows (cat, ls), until the server
    // stops; the SHA-256 is that of the bytes received.
    async putFile(id, name, bytes) {
      const row = await required(id);
      const machine = toMachine(row, clock.now());
      if (machine.state !== 'running' || machine.id !== id) {
        throw new DriverError('invalid-state', 'the machine is not running');
      }
      const path = `${SIM_UPLOADS}/${name}`;
      consoles.putFile(id, path, Buffer.from(bytes).toString('utf8'));
      return { path, sha256: createHash('sha256').update(bytes).digest('hex') };
    },

    isoOptions: (tag) => isoOptions(options.dataDir, tag),
    async netOptions(tag) {
      const nets = (await store.ofTag(tag)).flatMap(nicsOf);
      return netOptions(reserved, nets, tag);
    },

    subscribe: (listener) => listeners.subscribe(listener),

    // Usable once deployed and started: no task of the tag's machines is under way (usable.ts).
    async untilUsable(tag) {
      await Promise.all(batches.get(tag) ?? []);
      await untilIdle(
        {
          machinesOf: async (t) => settled(await store.ofTag(t)),
          subscribe: (listener) => listeners.subscribe(listener),
          clock,
          closing: closing.signal,
        },
        tag,
      );
    },

    // The sim's hypervisor is the database: ready while open and while its table answers.
    async ready() {
      if (closed) throw new Error('the sim driver is closed');
      await store.probe();
    },

    // Simulated machines take no memory and no process of their own: there is nothing to cap
    // and nothing to orphan.
    async status() {
      return {
        kind: SIM_CAPABILITIES.kind,
        acceleration: SIM_CAPABILITIES.acceleration,
        running: await store.countRunning(),
        maxRunning: null,
        memoryMiBInUse: 0,
        maxMemoryMiB: null,
        orphans: 0,
      };
    },

    async close() {
      closed = true;
      closing.abort();
      consoles.close();
      stopTimers();
      while (background.size) await Promise.all(background);
      listeners.clear();
    },
  });

  // Tasks pending from before this process started (or started by other processes) get timers
  // here; those already due end at once.
  track(store.withTask().then(settled));
  return driver;
}

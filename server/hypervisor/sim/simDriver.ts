import { realClock, type Clock, type Timer } from '../../clock';
import { isoDate } from '../../core/dto';
import { DomainError, notFound } from '../../core/errors';
import { newId } from '../../core/ids';
import type { VmTemplate } from '../../core/templates';
import { isUniqueViolation, type Db } from '../../store/db';
import {
  isoPathOf,
  tagOf,
  untagged,
  vmName,
  type ConsoleTickets,
  type DeploymentContext,
  type HypervisorDriver,
  type Vm,
  type VmChangeEvent,
  type VmOperation,
  type VmPowerState,
} from '../driver';
import { diskStates, removeCopies, startCopies } from './disks';
import {
  DEFAULT_RESERVED_NETS,
  isolatedNet,
  isoOptions,
  netOptions,
  parseNetChange,
  withNet,
} from './networks';
import {
  countRunning,
  deleteRow,
  finishTask,
  HOST,
  HYPERVISOR_TYPE,
  OPERATIONS,
  insertRow,
  nicsOf,
  NO_TASK,
  probe,
  rowById,
  rowByIdOrName,
  rowByName,
  rowsMatching,
  rowsOfTag,
  rowsWithTask,
  toVm,
  updateRow,
  type VmRow,
} from './store';
import { INITIALIZING, isDue, scaled, TASK_MS, TASK_NAMES, type TaskKind } from './tasks';

// The default hypervisor: simulated machines kept in the database, with tasks that take time
// and report progress like a real hypervisor's. Every process sharing the database sees the same
// machines; a task ends when it is due, either when someone reads the machine or when the timer
// of a process that knows about it fires, and only the process whose UPDATE wins announces it.

export interface SimDriverOptions {
  db: Db;
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
  const { db, speed } = options;
  const clock = options.clock ?? realClock;
  const reserved = options.reservedNets ?? DEFAULT_RESERVED_NETS;
  const listeners = new Set<(event: VmChangeEvent) => void>();
  // One timer per pending task this process knows about, keyed by task id.
  const timers = new Map<string, Timer>();
  // Work that outlives a call (timers' UPDATEs, batch deploys): close() waits for it.
  const background = new Set<Promise<unknown>>();
  let closed = false;

  const warn = (error: unknown, msg: string) =>
    options.log?.warn({ err: error instanceof Error ? error.message : String(error) }, msg);

  function track(work: Promise<unknown>): void {
    const settled = work.catch((error) => warn(error, 'sim hypervisor background work failed'));
    background.add(settled);
    void settled.finally(() => background.delete(settled));
  }

  function announce(vm: Vm): void {
    for (const listener of listeners) {
      try {
        listener({ action: 'VM.UPDATE', vm });
      } catch (error) {
        warn(error, 'sim hypervisor listener failed');
      }
    }
  }

  function cancelTimer(taskId: string): void {
    const timer = timers.get(taskId);
    if (timer) clock.clearTimeout(timer);
    timers.delete(taskId);
  }

  /**
   * Ends a due task; the winner of the UPDATE announces the machine as the task left it (a
   * machine read now may already be running the next operation, which announces itself).
   */
  async function finishDue(id: string, taskId: string): Promise<VmRow | undefined> {
    cancelTimer(taskId);
    const finished = await finishTask(db, id, taskId);
    if (!finished) return rowById(db, id);
    announce(toVm(finished, clock.now()));
    return finished;
  }

  function schedule(row: VmRow): void {
    if (closed || !row.taskId || timers.has(row.taskId)) return;
    const delay = Math.max(0, row.taskStarted + row.taskDuration - clock.now());
    // The clock's timers do not keep a process alive that is otherwise done.
    const timer = clock.setTimeout(() => {
      timers.delete(row.taskId);
      track(finishDue(row.id, row.taskId));
    }, delay);
    timers.set(row.taskId, timer);
  }

  /** The row as it is now: a due task is ended, a pending one has a timer here. */
  async function settle(row: VmRow): Promise<VmRow | undefined> {
    if (!row.taskId) return row;
    if (isDue(row.taskStarted, row.taskDuration, clock.now())) return finishDue(row.id, row.taskId);
    schedule(row);
    return row;
  }

  async function settled(rows: VmRow[]): Promise<VmRow[]> {
    const now = await Promise.all(rows.map(settle));
    return now.filter((r): r is VmRow => r !== undefined);
  }

  async function current(id: string): Promise<VmRow | undefined> {
    const row = await rowByIdOrName(db, id);
    return row && settle(row);
  }

  async function required(id: string): Promise<VmRow> {
    const row = await current(id);
    if (!row) throw notFound();
    return row;
  }

  /** The task fields of a new task; the row carries them until the task ends. */
  function newTask(kind: TaskKind, outcome: VmPowerState) {
    return {
      taskId: newId(),
      taskName: TASK_NAMES[kind],
      taskStarted: clock.now(),
      taskDuration: scaled(TASK_MS[kind], speed),
      taskOutcome: outcome,
    };
  }

  /** After a task was written: at speed 0 it ends inside the call, otherwise on its timer. */
  async function launched(row: VmRow): Promise<Vm> {
    if (row.taskDuration <= 0) {
      const ended = await finishDue(row.id, row.taskId);
      if (!ended) throw notFound();
      return toVm(ended, clock.now());
    }
    schedule(row);
    return toVm(row, clock.now());
  }

  /**
   * Runs an operation as a task. A task still running on the machine is superseded: its outcome
   * is applied first (silently: the caller announces the new operation), then this one starts.
   */
  async function operate(
    id: string,
    kind: TaskKind,
    outcome: (row: VmRow) => VmPowerState,
  ): Promise<Vm> {
    let row = await required(id);
    if (row.taskId) {
      cancelTimer(row.taskId);
      await finishTask(db, row.id, row.taskId);
      const fresh = await rowById(db, row.id);
      if (!fresh) throw notFound();
      row = fresh;
    }
    const task = newTask(kind, outcome(row));
    await updateRow(db, row.id, task);
    return launched({ ...row, ...task });
  }

  const start = (id: string) => operate(id, 'start', () => 'running');
  const stop = (id: string) => operate(id, 'stop', () => 'off');
  // The sim keeps no disk contents: saving changes nothing but takes its time.
  const save = (id: string) => operate(id, 'save', (row) => row.state as VmPowerState);
  const revert = (id: string) =>
    operate(id, 'revert', (row) => (row.state === 'running' ? 'running' : 'off'));

  async function remove(id: string): Promise<Vm> {
    const row = await required(id);
    if (row.taskId) cancelTimer(row.taskId);
    await deleteRow(db, row.id);
    return { ...toVm({ ...row, ...NO_TASK }, clock.now()), status: 'initialized', state: 'off' };
  }

  async function changeState(operation: VmOperation): Promise<Vm> {
    switch (operation.type) {
      case 'start':
        return start(operation.id);
      case 'stop':
        return stop(operation.id);
      case 'save':
        return save(operation.id);
      case 'revert':
        return revert(operation.id);
      case 'delete':
        return remove(operation.id);
      case 'reset':
        await stop(operation.id);
        return start(operation.id);
      default:
        throw new DomainError('InvalidOperation', `unknown operation ${String(operation.type)}`);
    }
  }

  const templateName = (template: VmTemplate) =>
    vmName(template.Name ?? '', template.IsolationTag ?? '');

  async function deploy(template: VmTemplate, privileged: boolean): Promise<Vm> {
    if (!template.Name) throw new DomainError('InvalidOperation', 'template has no name');
    const name = templateName(template);
    const existing = await rowByName(db, name);
    if (existing) return toVm((await settle(existing)) ?? existing, clock.now());

    const disks = await diskStates(db, template, clock.now());
    if (disks.some((d) => d.progress < 100)) {
      throw new DomainError('InvalidOperation', 'template disks are not initialized');
    }
    const tag = tagOf(name);
    const row: VmRow = {
      id: newId(),
      name,
      tag,
      status: 'deployed',
      state: 'off',
      diskPath: template.Disks[0]?.Path ?? '',
      nics: JSON.stringify(template.Eth.map((e) => isolatedNet(e.Net, tag, privileged, reserved))),
      iso: template.Iso ?? '',
      bootDelay: template.Delay,
      guestSettings: (template.GuestSettings ?? [])
        .filter((s) => s.Key)
        .map((s) => `${s.Key}=${s.Value ?? ''}`)
        .join('\n'),
      question: '',
      whenCreated: clock.now(),
      ...newTask('deploy', template.AutoStart ? 'running' : 'off'),
    };
    try {
      await insertRow(db, row);
    } catch (error) {
      // Another call (or process) deployed the same name at the same moment: that one stands.
      if (!isUniqueViolation(error)) throw error;
      const winner = await rowByName(db, name);
      if (!winner) throw error;
      return toVm(winner, clock.now());
    }
    return launched(row);
  }

  async function deployBatch(context: DeploymentContext, wait: boolean): Promise<Vm[]> {
    const templates = context.templates.map((t) => ({
      ...t,
      IsolationTag: t.IsolationTag || context.isolationTag,
    }));
    const names = templates.map(templateName);
    const existing = new Set(
      (await rowsOfTag(db, context.isolationTag))
        .map((r) => r.name)
        .filter((n) => names.includes(n)),
    );
    const missing = templates.filter((t) => !existing.has(templateName(t)));
    const deploys = Promise.all(missing.map((t) => deploy(t, context.privileged)));
    if (wait) await deploys;
    else track(deploys);
    const rows = await rowsOfTag(db, context.isolationTag);
    const machines = await settled(rows.filter((r) => names.includes(r.name)));
    return machines.map((r) => toVm(r, clock.now()));
  }

  async function refresh(template: VmTemplate): Promise<Vm> {
    const name = templateName(template);
    const row = await current(name);
    if (row) return toVm(row, clock.now());
    const disks = await diskStates(db, template, clock.now());
    const least = Math.min(100, ...disks.map((d) => d.progress));
    const copying = disks.filter((d) => d.progress >= 0 && d.progress < 100);
    const status = least === 100 ? 'initialized' : 'created';
    return {
      id: '',
      name,
      host: HOST,
      path: '',
      reference: '',
      diskPath: template.Disks[0]?.Path ?? '',
      stats: `${status} | off`,
      status,
      groupName: '',
      tags: null,
      state: 'off',
      question: null,
      task: copying.length
        ? {
            id: '',
            name: INITIALIZING,
            progress: Math.max(0, least),
            whenCreated: isoDate(Math.min(...copying.map((d) => d.started))),
          }
        : null,
      hypervisorType: HYPERVISOR_TYPE,
      isTemplate: false,
      operations: [...OPERATIONS],
      // Not deployed: no machine, so no NICs yet.
      nics: [],
    };
  }

  async function find(term: string): Promise<Vm[]> {
    const rows = await settled(await rowsMatching(db, term));
    return rows.map((r) => toVm(r, clock.now()));
  }

  async function machinesOf(tag: string): Promise<Vm[]> {
    const rows = (await settled(await rowsOfTag(db, tag))).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    return rows.map((r) => toVm(r, clock.now()));
  }

  async function forEachFound(term: string, act: (id: string) => Promise<Vm>): Promise<Vm[]> {
    const rows = await rowsMatching(db, term);
    return Promise.all(rows.map((r) => act(r.id)));
  }

  async function changeConfiguration(id: string, change: { key: string; value: string }) {
    const row = await required(id);
    const value = change.value ?? '';
    switch (change.key) {
      case 'iso':
        await updateRow(db, row.id, { iso: isoPathOf(value) });
        break;
      case 'net':
      case 'eth': {
        const { net, index } = parseNetChange(value);
        await updateRow(db, row.id, { nics: JSON.stringify(withNet(nicsOf(row), index, net)) });
        break;
      }
      case 'boot': {
        const delay = Number(value);
        if (!Number.isInteger(delay) || delay < 0) {
          throw new DomainError('InvalidOperation', 'boot delay is not a number');
        }
        await updateRow(db, row.id, { bootDelay: delay });
        break;
      }
      case 'guest': {
        const lines = [row.guestSettings, value.trim()].filter(Boolean).join('\n');
        await updateRow(db, row.id, { guestSettings: lines });
        break;
      }
      default:
        throw new DomainError('InvalidOperation', `unknown configuration key ${change.key}`);
    }
    const fresh = await rowById(db, row.id);
    if (!fresh) throw notFound();
    return toVm(fresh, clock.now());
  }

  async function verifyDisks(template: VmTemplate): Promise<number[]> {
    const states = await diskStates(db, template, clock.now());
    return states.map((d) => d.progress);
  }

  const driver: HypervisorDriver = {
    type: HYPERVISOR_TYPE,

    async load(id) {
      const row = await current(id);
      return row ? toVm(row, clock.now()) : null;
    },
    start,
    stop,
    save,
    revert,
    delete: remove,
    changeState,
    // Which nets an unprivileged user may pick is the route's rule (wire reference §1.4).
    changeConfiguration: (id, change) => changeConfiguration(id, change),

    async answer(id, answer) {
      const row = await required(id);
      const question = toVm(row, clock.now()).question;
      if (question && question.id === answer.questionId) {
        await updateRow(db, row.id, { question: '' });
        return toVm({ ...row, question: '' }, clock.now());
      }
      return toVm(row, clock.now());
    },

    deploy,
    deployBatch,
    refresh,
    find,
    machinesOf,
    startAll: (term) => forEachFound(term, start),
    stopAll: (term) => forEachFound(term, stop),
    deleteAll: (term) => forEachFound(term, remove),

    async createDisks(template) {
      const perDisk = scaled(TASK_MS.diskCopy, speed);
      const started = await startCopies(db, template, perDisk, clock.now());
      // As the reference: 0 when copies were just started (unless they complete at once), else
      // the least progress, 100 when every disk is present.
      if (started > 0 && perDisk > 0) return 0;
      return Math.min(100, ...(await verifyDisks(template)));
    },
    verifyDisks,
    deleteDisks: (template) => removeCopies(db, template),

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
      return { id: row.id, isolationId: row.tag, name: untagged(row.name), url, ticket, isRunning };
    },

    async isoOptions(tag) {
      return { iso: await isoOptions(options.dataDir, tag), net: null };
    },
    async netOptions(tag) {
      const nets = (await rowsOfTag(db, tag)).flatMap(nicsOf);
      return { iso: null, net: netOptions(reserved, nets, tag) };
    },

    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    // The sim's hypervisor is the database: ready while open and while its table answers.
    async ready() {
      if (closed) throw new Error('the sim driver is closed');
      await probe(db);
    },
    runningCount: () => countRunning(db),

    async close() {
      closed = true;
      for (const timer of timers.values()) clock.clearTimeout(timer);
      timers.clear();
      while (background.size) await Promise.all(background);
      listeners.clear();
    },
  };

  // Tasks pending from before this process started (or started by other processes) get timers
  // here; those already due end at once.
  track(rowsWithTask(db).then(settled));
  return driver;
}

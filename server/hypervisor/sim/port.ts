// What the sim driver keeps, and the port through which it keeps it. The sim's machines and disk
// copies live in the server's database so that every process sharing it sees the same machines;
// the driver reaches them only through this interface, which server/store/simMachineStore.ts
// implements, so that the driver knows no table, query builder or SQL dialect.

/** One simulated machine as it is kept. */
export interface SimMachineRow {
  id: string;
  /** `{template}#{tag}`, unique. */
  name: string;
  tag: string;
  status: string;
  state: string;
  diskPath: string;
  /** JSON string[]: each NIC's net, '' when disconnected. */
  nics: string;
  iso: string;
  bootDelay: number;
  /** `key=value` lines. */
  guestSettings: string;
  /** JSON MachineQuestion, '' when there is none. */
  question: string;
  /** The pending task, '' when there is none; its fields are '' and 0 then. */
  taskId: string;
  taskName: string;
  taskStarted: number;
  taskDuration: number;
  /** The power state the task leaves behind. */
  taskOutcome: string;
  whenCreated: number;
}

/** A disk copy the sim started: present once `started + duration` has passed. */
export interface SimDiskCopy {
  path: string;
  started: number;
  duration: number;
}

export interface SimMachineStore {
  /** A machine by id or by `name#tag`. */
  byIdOrName(idOrName: string): Promise<SimMachineRow | undefined>;
  byId(id: string): Promise<SimMachineRow | undefined>;
  byName(name: string): Promise<SimMachineRow | undefined>;
  ofTag(tag: string): Promise<SimMachineRow[]>;
  /** Machines with a pending task. */
  withTask(): Promise<SimMachineRow[]>;
  /** Machines whose id or name contains the term, case-sensitively, ordered by name. */
  matching(term: string): Promise<SimMachineRow[]>;
  countRunning(): Promise<number>;
  /** Resolves once the store has answered a query (the cheapest there is). */
  probe(): Promise<void>;
  /**
   * Adds machines in one write; answers the names it added. A machine whose name exists already
   * (another deploy won) is left out, and the others are added all the same.
   */
  insert(rows: readonly SimMachineRow[]): Promise<Set<string>>;
  update(id: string, patch: Partial<SimMachineRow>): Promise<void>;
  remove(id: string): Promise<void>;
  /**
   * Ends a task by applying its outcome, keyed on the task id so that of several processes (or a
   * timer and a read racing in one) exactly one changes the machine: that one gets the machine
   * as the task left it, the others undefined.
   */
  finishTask(id: string, taskId: string): Promise<SimMachineRow | undefined>;

  /** The copies of these paths that exist or are under way. */
  diskCopies(paths: readonly string[]): Promise<SimDiskCopy[]>;
  /** Records copies; a path already recorded (another process started it) keeps its copy. */
  addDiskCopies(copies: readonly SimDiskCopy[]): Promise<void>;
  removeDiskCopies(paths: readonly string[]): Promise<void>;
}

/** The task fields of a machine without a task. */
export const NO_TASK = {
  taskId: '',
  taskName: '',
  taskStarted: 0,
  taskDuration: 0,
  taskOutcome: '',
} as const satisfies Partial<SimMachineRow>;

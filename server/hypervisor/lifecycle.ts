// One machine lifecycle for every driver.
//
// A driver is two things: the lifecycle of machines as the reference (TopoMojo) defines it, the
// same for every hypervisor, and the backend primitives of its own hypervisor. This file holds
// the first; a driver keeps only the second and calls in here.
//
// The lifecycle (here):
//   - naming: `{template}#{tag}`, a machine resolved by id or by that name;
//   - find / machinesOf: which machines a term or a tag selects, ordered by name;
//   - startAll / stopAll / deleteAll: an operation on every machine a term finds;
//   - the refresh pseudo-machine of a spec not deployed (created / initialized, its disk copy);
//   - batch deploys: only the missing machines, host affinity (deployed off, on one host,
//     started together once all exist) and the wait rule;
//   - what a spec must have to deploy, and the errors by code (types.ts DriverErrorCode).
//
// A driver's backend primitives (in the driver):
//   - list: its machines, as the hypervisor holds them (rows, records, PVE resources);
//   - create with progress: a machine from a spec, its deploy task showing until it ends;
//   - destroy; power on and off;
//   - commit and revert disk state (save / revert);
//   - reconfigure (ISO, NIC, boot delay, guest settings);
//   - disk copies (createDisks / verifyDisks / deleteDisks);
//   - console; networks; capacity (what may run at once); orphans.
//
// The split is chosen so that later backends slot in behind the same lifecycle: a warm pool is a
// `create` that hands over a machine built ahead of time, a memory-snapshot restore is a `revert`
// (or a `power on`) that resumes saved memory, and a cloud-init seed is one more disk that
// `create` writes from the spec's guest settings. None of them changes what is below.

import {
  DriverError,
  tagOf,
  vmName,
  type DeploymentContext,
  type HypervisorDriver,
  type Machine,
  type MachineOperation,
  type MachineSpec,
} from './types';

// ---------------------------------------------------------------------------------------------
// Batch deploys.

/** A batch under way, as a driver runs it: what its machines share (capacity, a host). */
export interface BatchRun {
  /** Deploys the batch's missing machines (their specs already tagged); resolves once all exist. */
  deploy(specs: MachineSpec[], privileged: boolean): Promise<Machine[]>;
  /** Starts a machine the batch deployed, once its deploy has ended (host affinity). */
  start(machine: Machine): Promise<unknown>;
  /** The batch is over: what it held is given back. */
  close?(): void;
}

export interface BatchBackend {
  machinesOf(tag: string): Promise<Machine[]>;
  /**
   * Opens a batch of the missing specs: the place to refuse it as a whole (capacity) before
   * anything is built, and to choose one host for a batch with host affinity.
   */
  open(missing: MachineSpec[], context: DeploymentContext): Promise<BatchRun>;
  /** Work that outlives the call (a batch not waited for, the start of an affinity batch). */
  track(work: Promise<unknown>): void;
}

/**
 * `deployBatch` for every driver (the reference's Deploy(DeploymentContext, wait)):
 *
 * - Every spec is deployed under the context's tag, and only when its machine does not exist.
 * - Host affinity: the new machines are deployed off on one host and, once all of them exist and
 *   their deploys have ended, started together (whatever each spec said of starting), in the
 *   background: a batch of a cluster takes its time to build.
 * - The batch is refused as a whole, before anything is built, when the driver refuses it
 *   (capacity), whether or not the call waits.
 * - `wait`: resolves once every machine of the context exists, with all of them, ordered by
 *   name; a deploy that fails rejects the call. Without `wait` the deploys run in the background
 *   and the call answers at once with the machines that existed before it.
 */
export async function deployBatchBy(
  backend: BatchBackend,
  context: DeploymentContext,
  wait: boolean,
): Promise<Machine[]> {
  const specs = context.specs.map((spec) => ({
    ...spec,
    isolationTag: context.isolationTag,
    // Machines kept together are started together, once all of them exist.
    autoStart: context.hostAffinity ? false : spec.autoStart,
  }));
  for (const spec of specs) requireDeployable(spec);
  const names = new Set(specs.map(specName));
  const ofContext = async () =>
    (await backend.machinesOf(context.isolationTag)).filter((m) => names.has(m.name));
  const before = await ofContext();
  const existing = new Set(before.map((m) => m.name));
  const missing = specs.filter((s) => !existing.has(specName(s)));
  if (missing.length === 0) return before;

  const run = await backend.open(missing, context);
  const deploying = run.deploy(missing, context.privileged).then(
    (deployed) => {
      if (!context.hostAffinity) return run.close?.();
      const starting = Promise.all(deployed.map((m) => run.start(m))).finally(() => run.close?.());
      backend.track(starting);
    },
    (error: unknown) => {
      run.close?.();
      throw error;
    },
  );
  if (!wait) {
    backend.track(deploying);
    return before;
  }
  await deploying;
  return ofContext();
}

// ---------------------------------------------------------------------------------------------
// Specs.

/** The machine name of a spec: `{template}#{tag}`. */
export const specName = (spec: MachineSpec): string => vmName(spec.name, spec.isolationTag);

/** A spec that can be deployed at all: it names its template (else invalid-request). */
export function requireDeployable(spec: MachineSpec): void {
  if (!spec.name) throw new DriverError('invalid-request', 'template has no name');
}

// ---------------------------------------------------------------------------------------------
// Selecting machines: find, machinesOf and the operations on all that a term finds.

interface Named {
  id: string;
  name: string;
}

/** By name, code point by code point: the order find and machinesOf answer in. */
export const byName = (a: Pick<Named, 'name'>, b: Pick<Named, 'name'>): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** Whether a term finds the machine: its id or its name contains the term. */
export const isFound = (machine: Named, term: string): boolean =>
  machine.id.includes(term) || machine.name.includes(term);

/** `find`: the machines whose id or name contains the term, ordered by name. */
export const findIn = <T extends Named>(machines: Iterable<T>, term: string): T[] =>
  [...machines].filter((m) => isFound(m, term)).sort(byName);

/** `machinesOf`: the machines of one isolation tag (a tag, not a term), ordered by name. */
export const ofTagIn = <T extends Named>(machines: Iterable<T>, tag: string): T[] =>
  [...machines].filter((m) => tagOf(m.name) === tag).sort(byName);

/** startAll / stopAll / deleteAll: the operation on every machine found, at once. */
export async function forEachFound(
  found: Promise<Named[]> | Named[],
  operation: (id: string) => Promise<Machine>,
): Promise<Machine[]> {
  return Promise.all((await found).map((m) => operation(m.id)));
}

// ---------------------------------------------------------------------------------------------
// Refresh: a spec's machine, or what stands for it before it is deployed.

/** The name of the task a disk copy shows on the machine it is for. */
export const INITIALIZING = 'initializing';

export interface UndeployedState {
  /** Where such a machine would run; '' when no host is chosen before a deploy. */
  host: string;
  diskPath: string;
  /** The least progress over the spec's disks: -1 missing, 0..99 copying, 100 present. */
  progress: number;
  /** When the copy under way began (epoch ms), or null when none runs. */
  copyStarted: number | null;
}

/**
 * The pseudo-machine `refresh` answers for a spec not deployed: `initialized` once its disks are
 * all there, else `created`, an `initializing` task while a copy runs; no id and no NICs.
 */
export function undeployedMachine(spec: MachineSpec, state: UndeployedState): Machine {
  const status = state.progress >= 100 ? 'initialized' : 'created';
  return {
    id: '',
    name: specName(spec),
    host: state.host,
    path: '',
    reference: '',
    diskPath: state.diskPath,
    stats: `${status} | off`,
    status,
    state: 'off',
    question: null,
    task:
      state.copyStarted === null
        ? null
        : {
            id: '',
            name: INITIALIZING,
            progress: Math.max(0, state.progress),
            started: state.copyStarted,
          },
    tags: null,
    isTemplate: false,
    nics: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Naming and operations.

/**
 * The machine an id or a `name#tag` names: by id first, then by name. `id` is the id the caller
 * means when the driver maps it first (proxmox follows a machine's earlier ids).
 */
export function resolveIn<T extends Named>(
  machines: Iterable<T>,
  idOrName: string,
  id = idOrName,
): T | undefined {
  const all = [...machines];
  return all.find((m) => m.id === id) ?? all.find((m) => m.name === idOrName);
}

/** The power and disk operations of a driver, by which `changeState` dispatches. */
export type MachineOperations = Pick<
  HypervisorDriver,
  'start' | 'stop' | 'save' | 'revert' | 'delete'
>;

/** `changeState` for every driver: the operation's method; `reset` is stop then start. */
export async function changeStateBy(
  operations: MachineOperations,
  id: string,
  operation: MachineOperation,
): Promise<Machine> {
  switch (operation) {
    case 'start':
      return operations.start(id);
    case 'stop':
      return operations.stop(id);
    case 'save':
      return operations.save(id);
    case 'revert':
      return operations.revert(id);
    case 'delete':
      return operations.delete(id);
    case 'reset':
      await operations.stop(id);
      return operations.start(id);
    default:
      throw new DriverError('invalid-request', `unknown operation ${String(operation)}`);
  }
}

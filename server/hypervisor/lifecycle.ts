// One machine lifecycle for every driver.
//
// A driver is two things: the lifecycle of machines as the reference (TopoMojo) defines it, the
// same for every hypervisor, and the backend primitives of its own hypervisor. This file holds
// the first: `createDriver(backend)` builds a HypervisorDriver from a DriverBackend, the
// driver's narrow backend, and passes the backend's own methods through.
//
// The lifecycle (here, in createDriver):
//   - naming: `{template}#{tag}`, `load` resolving a machine by id (as the backend maps it) or
//     by that name;
//   - find / machinesOf: which machines a term or a tag selects, ordered by name;
//   - startAll / stopAll / deleteAll: an operation on every machine a term finds;
//   - retag: a tag's machines handed to another tag (a warm pool's set to the gamespace that
//     claims it), refused by backends that cannot rename;
//   - changeState: dispatch by operation, `reset` as stop then start;
//   - refresh: a spec's machine, or the pseudo-machine of a spec not deployed (created /
//     initialized, its disk copy);
//   - deploys: one name deploys once (a deploy or a batch of a name under way is joined, a name
//     deployed already is its machine; underWay.ts);
//   - batch deploys: only the missing machines, host affinity (deployed off, on one host,
//     started together once all exist) and the wait rule;
//   - power-state watching: the backend's poll runs from the first subscribe to the last
//     unsubscribe or close (powerWatch.ts);
//   - what a spec must have to deploy, and the errors by code (types.ts DriverErrorCode);
//   - availability: a spec whose base images the backend does not have is refused before any
//     deploy or disk copy, with a sentence naming the template and what is missing.
//
// A driver's backend primitives (DriverBackend, in the driver):
//   - list: its machines, as the hypervisor holds them (rows, records, PVE resources);
//   - create with progress (deploy): a machine from a spec, its deploy task showing until it
//     ends; openBatch: what a batch shares (capacity, a host);
//   - destroy (delete); power on and off (start, stop);
//   - commit and revert disk state (save / revert);
//   - reconfigure (ISO, NIC, boot delay, guest settings);
//   - disk copies (createDisks / verifyDisks / deleteDisks, `undeployed` for refresh);
//   - availability: whether what a spec is made from (base images, a cluster's VM template) is
//     there;
//   - console; networks; capacity (what may run at once); orphans;
//   - events: its listeners (subscribe), and powerPoll, one look at power states announcing the
//     machines that stopped on their own (qemu, proxmox); close.
// Every driver (sim, qemu, proxmox) is built with createDriver; the functions below are its
// parts, and a few (specName, requireDeployable, resolveIn, selectIn) serve the backends too.
//
// The split is chosen so that later backends slot in behind the same lifecycle: a warm pool is a
// `rename` that hands over machines built ahead of time, a memory-snapshot restore is a `revert`
// (or a `power on`) that resumes saved memory, and a cloud-init seed is one more disk that
// `create` writes from the spec's guest settings. None of them changes what is below.

import { createPowerWatch, type PowerPoll } from './powerWatch';
import { createDeploys, type Deploys } from './underWay';
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

interface BatchBackend {
  machinesOf(tag: string): Promise<Machine[]>;
  /** The deploys under way by name: a batch joins those of its names and registers its own. */
  deploys: Deploys;
  /**
   * Opens a batch of the missing specs: the place to refuse it as a whole (capacity) before
   * anything is built, and to choose one host for a batch with host affinity.
   */
  open(missing: MachineSpec[], context: DeploymentContext): Promise<BatchRun>;
  /** Work that outlives the call (a batch not waited for, the start of an affinity batch). */
  track(work: Promise<unknown>): void;
  /** Refuses a spec whose machine cannot be made here (requireAvailable). */
  requireAvailable(spec: MachineSpec): Promise<void>;
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
async function deployBatchBy(
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
  // Nothing is built of a batch one of whose machines cannot be.
  for (const spec of missing) await backend.requireAvailable(spec);

  const run = await backend.open(missing, context);
  // A name another call is deploying already is that deploy's; the batch deploys the others.
  const joined = missing.filter((s) => backend.deploys.underWay(specName(s)));
  const own = missing.filter((s) => !joined.includes(s));
  const built = own.length > 0 ? run.deploy(own, context.privileged) : Promise.resolve([]);
  own.forEach((spec, i) =>
    backend.deploys.register(
      specName(spec),
      built.then((ms) => ms[i]!),
    ),
  );
  const others = joined.map((s) => backend.deploys.underWay(specName(s))!);
  const deploying = Promise.all([built, ...others]).then(
    ([deployedOwn, ...deployedOthers]) => {
      const deployed = [...deployedOwn, ...deployedOthers];
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

/**
 * The refusal (invalid-state) of a spec the backend cannot make a machine of, in a sentence that
 * names the template and says what is missing: 'The template linux-server cannot run. The image
 * debian-12.qcow2 is not in the images folder: run npm run images.'
 */
const unavailable = (spec: MachineSpec, reason: string): DriverError =>
  new DriverError('invalid-state', `The template ${spec.name} cannot run. ${reason}`);

/** Refuses a spec the backend cannot make a machine of (see unavailable). */
export async function requireAvailable(
  backend: Pick<HypervisorDriver, 'availability'>,
  spec: MachineSpec,
): Promise<void> {
  const availability = await backend.availability(spec);
  if (!availability.available) throw unavailable(spec, availability.reason);
}

// ---------------------------------------------------------------------------------------------
// Selecting machines: find, machinesOf and the operations on all that a term finds.

interface Named {
  id: string;
  name: string;
}

/** By name, code point by code point: the order find and machinesOf answer in. */
const byName = (a: Pick<Named, 'name'>, b: Pick<Named, 'name'>): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** Whether a term finds the machine: its id or its name contains the term. */
const isFound = (machine: Named, term: string): boolean =>
  machine.id.includes(term) || machine.name.includes(term);

/** `find`: the machines whose id or name contains the term, ordered by name. */
const findIn = <T extends Named>(machines: Iterable<T>, term: string): T[] =>
  [...machines].filter((m) => isFound(m, term)).sort(byName);

/** `machinesOf`: the machines of one isolation tag (a tag, not a term), ordered by name. */
const ofTagIn = <T extends Named>(machines: Iterable<T>, tag: string): T[] =>
  [...machines].filter((m) => tagOf(m.name) === tag).sort(byName);

/** startAll / stopAll / deleteAll: the operation on every machine found, at once. */
async function forEachFound(
  found: Promise<Named[]> | Named[],
  operation: (id: string) => Promise<Machine>,
): Promise<Machine[]> {
  return Promise.all((await found).map((m) => operation(m.id)));
}

// ---------------------------------------------------------------------------------------------
// Refresh: a spec's machine, or what stands for it before it is deployed.

/** The name of the task a disk copy shows on the machine it is for. */
const INITIALIZING = 'initializing';

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
function undeployedMachine(spec: MachineSpec, state: UndeployedState): Machine {
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
type MachineOperations = Pick<HypervisorDriver, 'start' | 'stop' | 'save' | 'revert' | 'delete'>;

/** `changeState` for every driver: the operation's method; `reset` is stop then start. */
async function changeStateBy(
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

// ---------------------------------------------------------------------------------------------
// The driver: the lifecycle above over a backend's primitives.

/** What a backend is asked to list: the machines a term, a tag or an id or name may select. */
export type Selection = { term: string } | { tag: string } | { idOrName: string };

/** The machines of a selection, as the lifecycle selects them (for backends that select first). */
export function selectIn<T extends Named>(items: Iterable<T>, selection: Selection): T[] {
  if ('term' in selection) return findIn(items, selection.term);
  if ('tag' in selection) return ofTagIn(items, selection.tag);
  const found = resolveIn(items, selection.idOrName);
  return found ? [found] : [];
}

/** The methods createDriver builds; a backend has every other method of HypervisorDriver. */
type LifecycleMethod =
  | 'load'
  | 'retag'
  | 'changeState'
  | 'deployBatch'
  | 'refresh'
  | 'find'
  | 'machinesOf'
  | 'startAll'
  | 'stopAll'
  | 'deleteAll';

/**
 * A driver's own hypervisor, as narrow primitives: its machines (list), a deploy with its
 * progress, destroy (delete), power (start, stop), commit and revert of disk state (save,
 * revert), reconfigure, disk copies, console, networks, capacity and orphans.
 */
export interface DriverBackend extends Omit<HypervisorDriver, LifecycleMethod> {
  /**
   * The machines a selection may select, as the hypervisor holds them now: all of them, or the
   * few an index finds (the lifecycle selects and orders what it gets).
   */
  list(selection: Selection): Promise<Machine[]>;
  /** The id a caller means by an id the backend has since moved (proxmox); default: the id. */
  resolveId?(id: string): string;
  /** What stands for a spec not deployed: its host and the state of its disk copy. */
  undeployed(spec: MachineSpec): Promise<UndeployedState>;
  /** Opens a batch of missing specs (BatchBackend.open: capacity, one host for affinity). */
  openBatch(missing: MachineSpec[], context: DeploymentContext): Promise<BatchRun>;
  /** Work that outlives a call (a batch not waited for, an affinity batch's start). */
  track(work: Promise<unknown>): void;
  /**
   * Renames the machines of `fromTag` to `toTag` (names and NIC networks) and announces each as
   * updated; the lifecycle has checked the tags. Backends that cannot leave it out: retag is
   * then refused.
   */
  rename?(fromTag: string, toTag: string): Promise<Machine[]>;
  /** After deleteAll has deleted what a term found: what else goes with them (networks). */
  deletedAll?(term: string): Promise<unknown>;
  /** How the driver finds machines that stop on its own; watched while anyone subscribes. */
  powerPoll?: PowerPoll;
}

/** A HypervisorDriver: the lifecycle here, the backend's primitives passed through. */
export function createDriver(backend: DriverBackend): HypervisorDriver {
  const {
    list,
    resolveId,
    undeployed,
    openBatch,
    track,
    rename,
    deletedAll,
    powerPoll,
    ...primitives
  } = backend;
  const powerWatch = powerPoll && createPowerWatch(powerPoll);
  const load = async (idOrName: string): Promise<Machine | null> =>
    resolveIn(await list({ idOrName }), idOrName, resolveId?.(idOrName)) ?? null;
  const find = async (term: string) => findIn(await list({ term }), term);
  const machinesOf = async (tag: string) => ofTagIn(await list({ tag }), tag);
  const deploys = createDeploys();

  return {
    ...primitives,
    load,
    find,
    machinesOf,
    changeState: (id, operation) => changeStateBy(primitives, id, operation),
    async refresh(spec) {
      return (await load(specName(spec))) ?? undeployedMachine(spec, await undeployed(spec));
    },
    // One deploy per name at a time; a name deployed already is its machine.
    deploy(spec, privileged) {
      const name = specName(spec);
      return deploys.once(name, async () => {
        requireDeployable(spec);
        // Asked first, and the name looked up right before the backend's deploy: the proxmox
        // contract's save-then-revert fails when anything is awaited between the two (a race
        // in that driver, not understood yet). A machine deployed already is its machine.
        const availability = await primitives.availability(spec);
        const existing = await load(name);
        if (existing) return existing;
        if (!availability.available) throw unavailable(spec, availability.reason);
        return primitives.deploy(spec, privileged);
      });
    },
    deployBatch: (context, wait) =>
      deployBatchBy(
        {
          machinesOf,
          deploys,
          track,
          open: openBatch,
          requireAvailable: (spec) => requireAvailable(primitives, spec),
        },
        context,
        wait,
      ),
    // A copy from an image that is not there would fail later and say less.
    async createDisks(spec) {
      await requireAvailable(primitives, spec);
      return primitives.createDisks(spec);
    },
    async retag(fromTag, toTag) {
      if (!rename || !primitives.capabilities.retag) {
        throw new DriverError(
          'invalid-request',
          `The ${primitives.capabilities.kind} driver cannot hand machines to another isolation tag.`,
        );
      }
      if (!fromTag || !toTag || fromTag === toTag || fromTag.includes('#') || toTag.includes('#')) {
        throw new DriverError('invalid-request', 'retag needs two different isolation tags');
      }
      // Two sets under one tag would be one gamespace's machines mixed with another's.
      if ((await machinesOf(toTag)).length > 0) {
        throw new DriverError('invalid-request', `isolation tag ${toTag} has machines already`);
      }
      return (await rename(fromTag, toTag)).sort(byName);
    },
    startAll: (term) => forEachFound(find(term), primitives.start),
    stopAll: (term) => forEachFound(find(term), primitives.stop),
    async deleteAll(term) {
      const deleted = await forEachFound(find(term), primitives.delete);
      await deletedAll?.(term);
      return deleted;
    },
    // Power states are watched while anyone listens.
    subscribe(listener) {
      const unsubscribe = primitives.subscribe(listener);
      const unwatch = powerWatch?.watch();
      return () => {
        unsubscribe();
        unwatch?.();
      };
    },
    async close() {
      powerWatch?.close();
      await primitives.close();
    },
  };
}

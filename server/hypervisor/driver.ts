import type { VmTemplate } from '../core/templates';

// The one interface through which lab machines are created and driven, modelled on the reference's
// hypervisor service (wire reference §4.11). A driver owns machines named `{template}#{tag}`,
// where the isolation tag is a workspace id (builder machines), a gamespace id (players'
// machines) or the zero GUID (stock templates deployed by an admin). Every later driver (qemu,
// proxmox) implements this and passes tests/server/hypervisor/contract.ts.

export type VmStatus = 'created' | 'initialized' | 'deployed';
export type VmPowerState = 'off' | 'running' | 'suspended';

export interface VmQuestionChoice {
  key: string;
  label: string;
}

export interface VmQuestion {
  id: string;
  prompt: string;
  defaultChoice: string;
  choices: VmQuestionChoice[];
}

/** A task in progress on a machine or its disks; `progress` runs 0..100. */
export interface VmTask {
  id: string;
  name: string;
  progress: number;
  /** ISO 8601. */
  whenCreated: string;
}

/**
 * The reference's hypervisor kinds, the only values `Vm.hypervisorType` may take: the generated
 * TopoMojo clients (Gameboard's, pytopomojo's models) read it into an enum of exactly these and
 * fail on any other. A driver reports the kind it behaves most like.
 */
export type HypervisorType = 'vsphere' | 'proxmox';

/** The Vm DTO of wire reference §2.5, as drivers return it. */
export interface Vm {
  id: string;
  /** `{template}#{isolationTag}`. */
  name: string;
  host: string;
  path: string;
  reference: string;
  diskPath: string;
  stats: string;
  status: VmStatus;
  /** Filled in by the VM list route; drivers leave it empty. */
  groupName: string;
  tags: string[] | null;
  state: VmPowerState;
  question: VmQuestion | null;
  task: VmTask | null;
  hypervisorType: HypervisorType;
  isTemplate: boolean;
  /**
   * Ours, not the reference's (clients of the reference ignore it): the operations of PUT
   * /api/vm that the machine's hypervisor supports, so that the SPA offers only these. Whether
   * one applies right now still depends on the machine's status and power state.
   */
  operations: VmOperationType[];
  /**
   * Ours, not the reference's (its clients ignore it): the machine's NICs in order and the
   * network each is on ('' when disconnected), so that the console shows one switch per NIC
   * with its current network. `index` is what a `net` change names (`{net}:{index}`).
   */
  nics: VmNic[];
}

export interface VmNic {
  index: number;
  network: string;
}

export type VmOperationType = 'start' | 'stop' | 'save' | 'revert' | 'delete' | 'reset';

export interface VmOperation {
  id: string;
  type: VmOperationType;
}

/** The path of an `iso` change's value: `path[:label]` (wire reference §1.4). */
export function isoPathOf(value: string): string {
  const colon = value.indexOf(':');
  return (colon < 0 ? value : value.slice(0, colon)).trim();
}

/** A configuration change: key `iso`, `net` (or `eth`), `boot` or `guest` (wire reference §1.4). */
export interface VmChange {
  key: string;
  value: string;
}

export interface VmAnswer {
  questionId: string;
  choiceKey: string;
}

export interface VmOptions {
  iso: string[] | null;
  net: string[] | null;
  /** Ours, with the nets of one machine: its NICs and their networks now. */
  nics?: VmNic[];
}

export interface VmConsole {
  id: string;
  isolationId: string;
  /** The machine name without its `#tag`. */
  name: string;
  /** The console's WebSocket address, or '' when the machine is off or no ticket could be had. */
  url: string;
  /** The VNC password for noVNC; null when the console is not VNC. */
  ticket: string | null;
  isRunning: boolean;
}

/** Console access for drivers whose consoles the server serves itself (server/console). */
export interface ConsoleTickets {
  /** A one-time ticket for the machine's console and the path of its WebSocket. */
  issue(vmId: string): Promise<{ ticket: string; url: string }>;
}

/** A batch deploy for one isolation tag (a gamespace launch). */
export interface DeploymentContext {
  isolationTag: string;
  /** Keep the machines of this tag on one host (drivers with several hosts). */
  hostAffinity: boolean;
  /** Builder deploys may attach reserved networks untouched (wire reference §4.1). */
  privileged: boolean;
  /** Complete templates: Name untagged, IsolationTag set. */
  templates: VmTemplate[];
}

/** What a driver announces when a machine changes on its own (a task ended, a deploy finished). */
export interface VmChangeEvent {
  /** `VM.{TYPE}` as the hub names it: VM.DEPLOY, VM.UPDATE, VM.START, VM.STOP, VM.DELETE, ... */
  action: string;
  vm: Vm;
}

export interface HypervisorDriver {
  /** `hypervisorType` of its machines. */
  readonly type: HypervisorType;

  /** A machine by id, by `name#tag`, or null. */
  load(id: string): Promise<Vm | null>;
  start(id: string): Promise<Vm>;
  stop(id: string): Promise<Vm>;
  /** Commits the machine's changes into its template's disks. */
  save(id: string): Promise<Vm>;
  /** Back to the last saved state; powered on again if it was on. */
  revert(id: string): Promise<Vm>;
  /** Removes the machine; returns it with status `initialized`. */
  delete(id: string): Promise<Vm>;
  /** Dispatch by type; `reset` is stop then start. */
  changeState(operation: VmOperation): Promise<Vm>;
  changeConfiguration(id: string, change: VmChange, privileged: boolean): Promise<Vm>;
  answer(id: string, answer: VmAnswer): Promise<Vm>;

  /** One machine from a complete template; the existing machine when the name exists. */
  deploy(template: VmTemplate, privileged: boolean): Promise<Vm>;
  /** Every template of the context whose machine does not exist yet; `wait` for them to exist. */
  deployBatch(context: DeploymentContext, wait: boolean): Promise<Vm[]>;
  /** The deployed machine of a template, or a pseudo-machine (status created/initialized, task). */
  refresh(template: VmTemplate): Promise<Vm>;
  /** Machines whose id or name contains the term. */
  find(term: string): Promise<Vm[]>;
  /**
   * The machines of one isolation tag (`{name}#{tag}`), ordered by name: what a gamespace's page
   * and launch read, by an index rather than a search.
   */
  machinesOf(tag: string): Promise<Vm[]>;
  startAll(term: string): Promise<Vm[]>;
  stopAll(term: string): Promise<Vm[]>;
  deleteAll(term: string): Promise<Vm[]>;

  /** Starts copying missing disks; the least progress over the disks (100 when nothing to do). */
  createDisks(template: VmTemplate): Promise<number>;
  /** Per disk: -1 missing, 0..99 copying, 100 present. */
  verifyDisks(template: VmTemplate): Promise<number[]>;
  /** Removes the template's own disks (never stock disks: only paths containing its tag). */
  deleteDisks(template: VmTemplate): Promise<void>;

  /** Console address and ticket. */
  display(id: string): Promise<VmConsole>;
  /** ISO choices for machines of a tag: the tag's folder and the public folder. */
  isoOptions(tag: string): Promise<VmOptions>;
  /** Network choices for machines of a tag: reserved nets and the tag's nets. */
  netOptions(tag: string): Promise<VmOptions>;

  /** Machine changes the driver makes on its own (tasks ending); returns the unsubscribe. */
  subscribe(listener: (event: VmChangeEvent) => void): () => void;
  /**
   * Resolves when the driver can serve calls (GET /api/health/ready); rejects, saying why, when
   * it cannot: closed, or its hypervisor out of reach. Called every few seconds: keep it cheap.
   */
  ready(): Promise<void>;
  /** How many of its machines are running now, every tag (the metrics). */
  runningCount(): Promise<number>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Naming (wire reference §4.1).

/** The text after the first '#' up to a space ('' when there is none). */
export function tagOf(name: string): string {
  const i = name.indexOf('#');
  if (i < 0) return '';
  const rest = name.slice(i + 1);
  const space = rest.indexOf(' ');
  return space < 0 ? rest : rest.slice(0, space);
}

/** The text before the first '#'. */
export function untagged(name: string): string {
  const i = name.indexOf('#');
  return i < 0 ? name : name.slice(0, i);
}

export const vmName = (template: string, tag: string): string => `${untagged(template)}#${tag}`;

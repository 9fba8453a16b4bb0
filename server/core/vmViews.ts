import type {
  DriverCapabilities,
  DriverEvent,
  Machine,
  MachineChange,
  MachineOperation,
  MachineStatus,
  PowerState,
} from '../hypervisor';
import { isoDate } from './dto';
import { DomainError } from './errors';

// The wire's machines (wire reference §2.5 Vm, §1.4 changes) and their translation from and to
// the driver's vocabulary (server/hypervisor/types.ts): a Machine and the driver's capabilities
// become the Vm DTO, a driver event becomes the hub action it is published under, and the wire's
// `{key, value}` change becomes a MachineChange.

export type VmStatus = MachineStatus;
export type VmPowerState = PowerState;

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
 * fail on any other.
 */
export type HypervisorType = 'vsphere' | 'proxmox';

export type VmOperationType = MachineOperation;

export interface VmNic {
  index: number;
  network: string;
}

/**
 * Ours, not the reference's (its clients ignore it): which configuration changes the machine's
 * driver can make while the machine runs, so that the SPA offers only those.
 */
export interface VmCapabilities {
  /** PUT /api/vm/{id}/change with key `iso`. */
  isoChange: boolean;
  /** PUT /api/vm/{id}/change with key `net`. */
  netChange: boolean;
  /** PUT /api/vm/{id}/change with key `guest`. */
  guestChange: boolean;
}

/** The Vm DTO of wire reference §2.5. */
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
  /** Filled in by the VM list route; empty elsewhere. */
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
  capabilities: VmCapabilities;
  /**
   * Ours, not the reference's, and only in the VM list (GET /api/vms): the names of the players
   * of the gamespace the machine belongs to, so that an administrator sees whose lab it is.
   */
  playerNames?: string[];
}

export interface VmOperation {
  id: string;
  type: VmOperationType;
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
  /** Ours, with the nets of one machine: which changes its hypervisor makes while it runs. */
  capabilities?: VmCapabilities;
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
  /** Ours: this console's sessions are recorded (the player is told so). */
  recorded: boolean;
  /** Ours: the ticket opens the console to watch only; the server drops the viewer's input. */
  viewOnly: boolean;
  /** Ours: a view-only console its viewer may reopen with control (`?control=true`): admins. */
  mayTakeControl: boolean;
}

/** How someone reaches a machine's console (VmService.consoleAccess). */
export type ConsoleRole = 'player' | 'admin' | 'observer';

export interface ConsoleAccess {
  role: ConsoleRole;
  /** Whether they may drive the machine (keys, pointer, paste, files): not an observer. */
  mayControl: boolean;
}

/**
 * The reference's kind a driver's machines behave like: proxmox for proxmox; otherwise vSphere
 * when its machines can go back to a snapshot (the reference offers revert on vSphere only), and
 * proxmox when they cannot, as the sim's cannot.
 */
export function hypervisorTypeOf(capabilities: DriverCapabilities): HypervisorType {
  if (capabilities.kind === 'proxmox') return 'proxmox';
  return capabilities.operations.includes('revert') ? 'vsphere' : 'proxmox';
}

export function vmCapabilitiesOf(capabilities: DriverCapabilities): VmCapabilities {
  return {
    isoChange: capabilities.liveIsoChange,
    netChange: capabilities.liveNicChange,
    guestChange: capabilities.guestChange,
  };
}

/** A driver's machine as the wire's Vm. */
export function vmDto(machine: Machine, capabilities: DriverCapabilities): Vm {
  const { task } = machine;
  return {
    id: machine.id,
    name: machine.name,
    host: machine.host,
    path: machine.path,
    reference: machine.reference,
    diskPath: machine.diskPath,
    stats: machine.stats,
    status: machine.status,
    groupName: '',
    tags: machine.tags,
    state: machine.state,
    question: machine.question,
    task: task
      ? {
          id: task.id,
          name: task.name,
          progress: task.progress,
          whenCreated: isoDate(task.started),
        }
      : null,
    hypervisorType: hypervisorTypeOf(capabilities),
    isTemplate: machine.isTemplate,
    operations: [...capabilities.operations],
    nics: machine.nics.map((n) => ({ index: n.index, network: n.network })),
    capabilities: vmCapabilitiesOf(capabilities),
  };
}

const HUB_ACTIONS: Record<DriverEvent['type'], string> = {
  deployed: 'VM.DEPLOY',
  updated: 'VM.UPDATE',
  started: 'VM.START',
  stopped: 'VM.STOP',
  deleted: 'VM.DELETE',
};

/** The action a driver's own change is published under on the hub (VmEvent). */
export const hubActionOf = (event: DriverEvent): string => HUB_ACTIONS[event.type];

/** The path of an `iso` change's value: `path[:label]` (wire reference §1.4). */
export function isoPathOf(value: string): string {
  const colon = value.indexOf(':');
  return (colon < 0 ? value : value.slice(0, colon)).trim();
}

/** The value of a `net` change that disconnects a NIC. */
const DISCONNECT = '_none_';

/** `netName[:index]` of a `net`/`eth` change; the index defaults to 0 and a label is ignored. */
export function parseNetChange(value: string): { net: string; index: number } {
  const colon = value.lastIndexOf(':');
  const suffix = colon < 0 ? '' : value.slice(colon + 1);
  const hasIndex = /^\d+$/.test(suffix);
  const name = (colon < 0 ? value : value.slice(0, colon)).trim();
  return {
    net: name === DISCONNECT ? '' : name,
    index: hasIndex ? Number(suffix) : 0,
  };
}

/** A `key=value` guest setting; a line without '=' is a key with an empty value. */
function parseGuestSetting(value: string): { key: string; value: string } {
  const line = value.trim();
  const eq = line.indexOf('=');
  if (eq < 0) return { key: line, value: '' };
  return { key: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim() };
}

/** The wire's change as the driver's; an unknown key or a bad value is InvalidOperation. */
export function parseChange(change: VmChange): MachineChange {
  const value = change.value ?? '';
  switch (change.key) {
    case 'iso':
      return { kind: 'iso', path: isoPathOf(value) };
    case 'net':
    case 'eth': {
      const { net, index } = parseNetChange(value);
      return { kind: 'net', nic: index, network: net };
    }
    case 'boot': {
      const delay = Number(value);
      if (!Number.isInteger(delay) || delay < 0) {
        throw new DomainError('InvalidOperation', 'boot delay is not a number');
      }
      return { kind: 'boot', delaySeconds: delay };
    }
    case 'guest':
      return { kind: 'guest', ...parseGuestSetting(value) };
    default:
      throw new DomainError('InvalidOperation', `unknown configuration key ${change.key}`);
  }
}

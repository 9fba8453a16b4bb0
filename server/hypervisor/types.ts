// The vocabulary of hypervisor drivers, owned by the drivers. A driver knows machine specs,
// machines, its own errors and events, and what it can do (its capabilities); it knows nothing of
// the wire (the reference's VmTemplate JSON, the Vm DTO, hub action names, HTTP errors), of
// users, or of the database. server/core maps the wire to and from these types
// (core/machineSpecs.ts, core/vmViews.ts), and a driver persists what it must through a port of
// its own (sim/port.ts) or its own files (qemu). The lint rule `no-restricted-imports` keeps
// server/hypervisor/** from importing server/core or server/store.
//
// Every driver implements HypervisorDriver and passes tests/server/hypervisor/contract.ts.

// ---------------------------------------------------------------------------------------------
// What to build: a normalized machine spec.

export interface CpuSpec {
  sockets: number;
  coresPerSocket: number;
}

export interface DiskSpec {
  index: number;
  /**
   * Where the disk lives, in the driver's own path form: for the sim and vSphere
   * `[datastore] folder/file.vmdk`; for qemu a path relative to its images folder.
   */
  path: string;
  /** The disk it is copied from when the template is initialized; null for a base disk. */
  source: string | null;
  /** Bus or controller as the template names it (lsilogic, virtio, ide, ...); null: default. */
  controller: string | null;
  sizeGiB: number;
}

export interface NicSpec {
  index: number;
  /** The network as the template names it (`lan`); '' when not connected. */
  network: string;
  /** Adapter model (e1000, virtio, vmxnet3, ...); null: the driver's default. */
  adapter: string | null;
  /** A fixed MAC address, or null to let the driver choose. */
  mac: string | null;
}

export interface GuestSetting {
  /** As the template names it, `guestinfo.` prefix included. */
  key: string;
  value: string;
}

export interface MachineSpec {
  /** The template's id. */
  templateId: string;
  /** The template's name, without an isolation tag. */
  name: string;
  /** Workspace id (builder machine), gamespace id (player machine) or the zero GUID (stock). */
  isolationTag: string;
  cpu: CpuSpec;
  memoryMiB: number;
  /** Guest OS identifier, when the template names one. */
  guestOs: string | null;
  disks: DiskSpec[];
  nics: NicSpec[];
  guestSettings: GuestSetting[];
  /** An ISO path (relative to the ISO folder) to attach as a CD-ROM, or null. */
  iso: string | null;
  /** Seconds to wait before powering on in a batch. */
  bootDelaySeconds: number;
  /** Power on right after deploying. */
  autoStart: boolean;
  /** Keep all machines of the isolation tag on one host. */
  hostAffinity: boolean;
  /** Whether the lab asked for the uplink (reserved) network to be reachable. */
  useUplink: boolean;
  /**
   * The hypervisor's own base image the machine is cloned from, by name (a Proxmox VM template:
   * the template detail's `Template`); null when the disks say it all (sim, qemu).
   */
  baseImage: string | null;
  /** The base image `baseImage` is copied from when the template is initialized; null: none. */
  baseImageSource: string | null;
  /** The machine's firmware: a BIOS (the default) or UEFI. */
  firmware?: Firmware;
}

export type Firmware = 'bios' | 'uefi';

/** A batch deploy for one isolation tag (a gamespace launch). */
export interface DeploymentContext {
  isolationTag: string;
  hostAffinity: boolean;
  /** Builder deploys may attach reserved networks untouched (wire reference §4.1). */
  privileged: boolean;
  specs: MachineSpec[];
}

// ---------------------------------------------------------------------------------------------
// What exists: machines.

export type MachineStatus = 'created' | 'initialized' | 'deployed';
export type PowerState = 'off' | 'running' | 'suspended';

export interface QuestionChoice {
  key: string;
  label: string;
}

/** A question the hypervisor asks before a machine can go on (vSphere's "moved or copied?"). */
export interface MachineQuestion {
  id: string;
  prompt: string;
  defaultChoice: string;
  choices: QuestionChoice[];
}

/** A task in progress on a machine or its disks; `progress` runs 0..100. */
export interface MachineTask {
  id: string;
  name: string;
  progress: number;
  /** Epoch milliseconds. */
  started: number;
}

export interface MachineNic {
  index: number;
  /** The isolated network the NIC is on (`lan#{tag}`), or '' when disconnected. */
  network: string;
}

export interface Machine {
  id: string;
  /** `{template}#{isolationTag}`. */
  name: string;
  host: string;
  /** Where the hypervisor keeps it (a folder or an inventory path). */
  path: string;
  reference: string;
  diskPath: string;
  stats: string;
  status: MachineStatus;
  state: PowerState;
  question: MachineQuestion | null;
  task: MachineTask | null;
  tags: string[] | null;
  isTemplate: boolean;
  nics: MachineNic[];
}

export type MachineOperation = 'start' | 'stop' | 'save' | 'revert' | 'delete' | 'reset';

/** A configuration change, parsed from the wire's `{key, value}` by core. */
export type MachineChange =
  | { kind: 'iso'; path: string }
  | { kind: 'net'; nic: number; network: string }
  | { kind: 'boot'; delaySeconds: number }
  | { kind: 'guest'; key: string; value: string }
  /**
   * Several guest settings at once, in order (a pooled machine claimed by a gamespace). `live`: a
   * running machine must have them now: refused (unavailable) when the driver cannot deliver them
   * to the guest at once. Without it, a driver may give a running machine its settings at its
   * next start.
   */
  | { kind: 'guests'; settings: GuestSetting[]; live?: boolean };

export interface MachineAnswer {
  questionId: string;
  choiceKey: string;
}

export interface NetworkOptions {
  /** Reserved networks and the tag's own networks. */
  networks: string[];
}

/** How a machine's console is reached. */
export interface MachineConsole {
  machineId: string;
  /** The WebSocket path of the console, '' when the machine is off or has none. */
  url: string;
  /** A one-time ticket for that path; null when the console needs none. */
  ticket: string | null;
  isRunning: boolean;
}

// ---------------------------------------------------------------------------------------------
// What a driver says.

export type DriverErrorCode =
  /** No such machine. */
  | 'not-found'
  /** Not possible in the machine's current state (its disks are not ready, it is off, ...). */
  | 'invalid-state'
  /** The request itself is wrong (an unknown NIC, a bad value). */
  | 'invalid-request'
  /** This driver cannot do that at all (see its capabilities). */
  | 'unsupported'
  /** Running it would go beyond the configured capacity. */
  | 'capacity'
  /** The hypervisor is out of reach or failed. */
  | 'unavailable';

export class DriverError extends Error {
  constructor(
    readonly code: DriverErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DriverError';
  }
}

export const isDriverError = (error: unknown): error is DriverError => error instanceof DriverError;

/**
 * A change the driver announces (tests/server/hypervisor/contract.ts pins it down):
 * - every deploy, start, stop, save and revert, once it has ended, as `updated` with the machine
 *   as it left it (task over), whether or not the call returned before it ended: a batch deployed
 *   in the background, or started for host affinity, has no caller to tell;
 * - a machine that stopped on its own (its guest powered off), as `stopped`;
 * - nothing of a delete: its caller has the deleted machine and announces it.
 * `deployed`, `started` and `deleted` are the hub's names for what core publishes itself.
 */
export type DriverEvent =
  | { type: 'deployed'; machine: Machine }
  | { type: 'updated'; machine: Machine }
  | { type: 'started'; machine: Machine }
  | { type: 'stopped'; machine: Machine }
  | { type: 'deleted'; machine: Machine };

export type DriverEventType = DriverEvent['type'];

// ---------------------------------------------------------------------------------------------
// What a driver can do.

export type DriverKind = 'sim' | 'qemu' | 'proxmox';

export interface DriverCapabilities {
  kind: DriverKind;
  /** The operations its machines support. */
  operations: readonly MachineOperation[];
  /** An ISO can be changed while the machine runs. */
  liveIsoChange: boolean;
  /** A NIC can move to another network while the machine runs. */
  liveNicChange: boolean;
  /** Guest settings can be added after deploy. */
  guestChange: boolean;
  /** Consoles are served by this server (a console WebSocket behind one-time tickets). */
  serverConsoles: boolean;
  /** Whether machines are simulated (no real guest runs). */
  simulated: boolean;
  /** Free text for the admin dashboard: "KVM", "software emulation", ... */
  acceleration: string;
  /**
   * Machines can be handed from one isolation tag to another (retag): what warm pools need.
   * Absent or false: retag is refused (invalid-request).
   */
  retag?: boolean;
  /**
   * How files reach a running machine's guest (putFile): through a guest agent, or into the
   * simulated machine's shell. Absent: files cannot be put into its machines.
   */
  files?: 'agent' | 'simulated';
}

/** A file a driver put into a guest: where it is and the SHA-256 of what arrived there. */
export interface PutFile {
  path: string;
  sha256: string;
}

/** What the admin dashboard shows of the driver, and the capacity it enforces. */
export interface DriverStatus {
  kind: DriverKind;
  acceleration: string;
  running: number;
  /** Caps in force; null when there is none. */
  maxRunning: number | null;
  memoryMiBInUse: number;
  maxMemoryMiB: number | null;
  /**
   * Room admitted and not running yet (launches being deployed, warm image builds), which counts
   * against the caps as running machines do; absent: the driver reserves nothing.
   */
  reserved?: { machines: number; memoryMiB: number };
  /** Processes or machines of the hypervisor that belong to no known machine. */
  orphans: number;
}

/**
 * Whether the driver can run a template's machines at all: what they are made from is there (its
 * base images, a cluster's VM template). `reason` is a sentence for the person who chose the
 * template, saying what is missing and, when someone here can fix it, how.
 */
export type TemplateAvailability = { available: true } | { available: false; reason: string };

/** Console access for drivers whose consoles the server serves itself (server/console). */
export interface ConsoleTickets {
  /** A one-time ticket for the machine's console and the path of its WebSocket. */
  issue(machineId: string): Promise<{ ticket: string; url: string }>;
}

/** What a running machine's clipboard offers its console (HypervisorDriver.guestClipboard). */
export interface GuestClipboard {
  /** Text copied inside the machine can be read out. */
  copy: boolean;
  /**
   * How, when it can: `agent`, Topoplay's guest agent reads what `topoplay-copy` was given
   * (readGuestClipboard); `vdagent`, the guest's spice-vdagent shares its desktop's clipboard with
   * the console through QEMU's qemu-vdagent, both ways, as the VNC extended clipboard (the console
   * reads and writes it; the server is not asked).
   */
  via?: ClipboardVia;
}

export type ClipboardVia = 'agent' | 'vdagent';

/** Where a console's bytes go: the viewer's WebSocket, as server/console bridges it. */
export interface ConsoleViewer {
  send(bytes: Uint8Array): void;
  /** Ends the viewer's connection with a WebSocket close code and reason. */
  close(code: number, reason: string): void;
}

/**
 * One viewer's RFB session with a machine's console, from the viewer's ClientInit on: server/console
 * has already exchanged versions with the viewer and agreed on security type None (./rfb.ts), so
 * the first bytes a session receives are the ClientInit, which it answers with the ServerInit.
 */
export interface ConsoleSession {
  /** Bytes the viewer sent. */
  receive(bytes: Uint8Array): void;
  /** The viewer went away. */
  end(): void;
}

export interface HypervisorDriver {
  readonly capabilities: DriverCapabilities;

  /** A machine by id, by `name#tag`, or null. */
  load(id: string): Promise<Machine | null>;
  start(id: string): Promise<Machine>;
  stop(id: string): Promise<Machine>;
  /** Commits the machine's changes into its template's disks. */
  save(id: string): Promise<Machine>;
  /** Back to the last saved state; powered on again if it was on. */
  revert(id: string): Promise<Machine>;
  /** Removes the machine; returns it with status `initialized`. */
  delete(id: string): Promise<Machine>;
  /** Dispatch by operation; `reset` is stop then start. */
  changeState(id: string, operation: MachineOperation): Promise<Machine>;
  changeConfiguration(id: string, change: MachineChange, privileged: boolean): Promise<Machine>;
  answer(id: string, answer: MachineAnswer): Promise<Machine>;

  /** One machine from a spec; the existing machine when the name exists. */
  deploy(spec: MachineSpec, privileged: boolean): Promise<Machine>;
  /**
   * Deploys every spec of the context whose machine does not exist yet, under the context's tag
   * (lifecycle.ts deployBatchBy). Host affinity: the new machines go on one host, deployed off,
   * and are started together once all exist. `wait`: resolves once all exist, with every machine
   * of the context, ordered by name; else answers at once with those that existed before.
   */
  deployBatch(context: DeploymentContext, wait: boolean): Promise<Machine[]>;
  /** The deployed machine of a spec, or a pseudo-machine (status created/initialized, task). */
  refresh(spec: MachineSpec): Promise<Machine>;
  /** Machines whose id or name contains the term. */
  find(term: string): Promise<Machine[]>;
  /** The machines of one isolation tag, ordered by name. */
  machinesOf(tag: string): Promise<Machine[]>;
  /**
   * Hands the machines of isolation tag `fromTag` to `toTag`: `{template}#{fromTag}` becomes
   * `{template}#{toTag}` and each NIC's `{net}#{fromTag}` becomes `{net}#{toTag}` (reserved nets
   * stay), the machines otherwise as they were (running, their guest settings). Resolves with
   * the renamed machines, ordered by name, each announced as updated. Refused (invalid-request)
   * by a driver whose capabilities do not say `retag`, and when `toTag` has machines already.
   */
  retag(fromTag: string, toTag: string): Promise<Machine[]>;
  startAll(term: string): Promise<Machine[]>;
  stopAll(term: string): Promise<Machine[]>;
  deleteAll(term: string): Promise<Machine[]>;

  /**
   * Whether a spec's machine can be made here at all (its base images exist), whatever state its
   * own disks are in: a template whose disks can be copied from an existing image is available.
   * Cheap enough to ask for every template of a list; deploys and disk copies of an unavailable
   * spec are refused (invalid-state) with the reason.
   */
  availability(spec: MachineSpec): Promise<TemplateAvailability>;
  /** Starts copying missing disks; the least progress over the disks (100 when nothing to do). */
  createDisks(spec: MachineSpec): Promise<number>;
  /** Per disk: -1 missing, 0..99 copying, 100 present. */
  verifyDisks(spec: MachineSpec): Promise<number[]>;
  /** Removes the spec's own disks (never stock disks: only those under its tag). */
  deleteDisks(spec: MachineSpec): Promise<void>;

  /** Console address and ticket. */
  display(id: string): Promise<MachineConsole>;
  /**
   * The RFB byte stream of a running machine's console after the handshake (see ConsoleSession),
   * for drivers whose consoles this server serves (capabilities.serverConsoles); rejects
   * (invalid-state) when the machine is not running.
   */
  openConsole?(id: string, viewer: ConsoleViewer): Promise<ConsoleSession>;
  /**
   * What the console can do with the running machine's clipboard: `copy` when text copied inside
   * it (its `topoplay-copy` command, ./guestClipboard.ts) can be read out, which takes an agent in
   * the guest that knows it. Never rejects for a machine without: it answers no copy. Drivers
   * that cannot read any guest's copied text leave it out.
   */
  guestClipboard?(id: string): Promise<GuestClipboard>;
  /**
   * The text last copied inside the running machine ('' when none): at most COPY_MAX_BYTES.
   * Rejects invalid-state when the machine is off, unavailable when its agent does not answer.
   */
  readGuestClipboard?(id: string): Promise<string>;
  /**
   * Copies an ISO file this server received (`path` is `{tag}/x.iso`, `file` where it is on this
   * server's disk) to where the hypervisor's machines mount ISOs from. Drivers that read the
   * server's own ISO folder leave it out.
   */
  storeIso?(path: string, file: string): Promise<void>;
  /**
   * Puts a file into a running machine's guest, in the folder `uploads` of the home of its login
   * user (docs/drivers.md), under `name` (checked by the caller: src/domain/guestFiles.ts),
   * replacing a file of that name. Resolves once the whole file is there and its SHA-256 checked;
   * rejects (invalid-state) when the machine is not running, (unavailable) when its guest cannot
   * take files now, saying why. Drivers whose capabilities do not say `files` leave it out.
   */
  putFile?(id: string, name: string, bytes: Uint8Array): Promise<PutFile>;
  /** Removes an ISO storeIso copied; nothing when it is not there. */
  removeIso?(path: string): Promise<void>;
  /** ISO paths machines of a tag may mount: the tag's folder and the public folder. */
  isoOptions(tag: string): Promise<string[]>;
  /** Network choices for machines of a tag: reserved nets and the tag's nets. */
  netOptions(tag: string): Promise<string[]>;

  /**
   * Resolves once the tag's running machines are usable: booted as far as their images go (a
   * warm pool's set is ready only then, so that a claim hands over machines a player can use at
   * once). Best effort: a machine that never says resolves it after the driver's own limit.
   * Drivers whose started machines are as usable as they will be leave it out.
   */
  untilUsable?(tag: string): Promise<void>;
  /**
   * Whether a machine of the spec can be kept running in a warm pool: a claim must give a running
   * machine the gamespace's guest settings at once. `reason` says why not, for the administrator.
   * Drivers whose running machines always take them leave it out.
   */
  poolable?(spec: MachineSpec): Promise<TemplateAvailability>;
  /** Changes the driver makes on its own; returns the unsubscribe. */
  subscribe(listener: (event: DriverEvent) => void): () => void;
  /** Resolves when the driver can serve calls; rejects, saying why, when it cannot. Cheap. */
  ready(): Promise<void>;
  /** Running machines, capacity in force, orphans: the dashboard and the metrics. */
  status(): Promise<DriverStatus>;
  /**
   * Removes what `status().orphans` counts (hypervisor processes and files whose machine is
   * gone); how many it removed. Drivers without anything that can be orphaned leave it out.
   */
  removeOrphans?(): Promise<number>;
  /**
   * Isolation tags the hypervisor holds networks under, with or without machines (a cluster's
   * vnets); drivers whose networks go with their machines leave it out.
   */
  networkTags?(): Promise<string[]>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Naming (wire reference §4.1): ./naming.ts.

export * from './naming';

import {
  agentEnabled,
  allocatedDisk,
  bridgesOf,
  cloudInitRequestOf,
  cloudInitVolume,
  configDigest,
  configReply,
  cpusOf,
  disksOf,
  diskBytes,
  formatNic,
  importedDisk,
  importSourceOf,
  isCdrom,
  isCloudInitDrive,
  isDriveKey,
  isNicKey,
  ISO_STORAGE,
  macFor,
  newDiskRequestOf,
  normalizeTags,
  parseNic,
  tagsOf,
  volumeOf,
  type VmConfig,
} from './config';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  configText,
  failure,
  flagParam,
  intParam,
  paramError,
  PveHttpError,
  textParam,
} from './errors';
import { contentOfVolid, IMPORT_FILE, STORAGES } from './storage';
import { checkLock, isTemplate, memoryBytes, uptimeOf, type VmRecord } from './state';
import { nodeOf, vmidOf, type Call, type Routes, type Session, type SimContext } from './types';

// A node's VMs in the PVE API simulator: listing, config, power, destroy and the guest agent.
// Power changes and destroy are worker tasks; PVE's checks that run inside its workers (a
// template cannot start, a locked VM cannot change, a NIC's bridge must exist) fail the task
// here too, with PVE's messages, while the checks PVE makes before forking a worker (destroying
// a running VM, resetting a stopped one) refuse the API call. PUT .../config changes the config
// at once; POST .../config is PVE's asynchronous update, a `qmconfig` task whose change lands
// when it ends.

/** Parameters of a config update that are not config keys. */
const CONTROL_KEYS = new Set([
  'delete',
  'digest',
  'revert',
  'skiplock',
  'background_delay',
  'force',
]);

/** Parameters of qm create that are not config keys. */
const CREATE_KEYS = new Set(['node', 'vmid', 'pool', 'start', 'storage', 'unique']);

/**
 * Config keys PVE lets only root@pam set. PVE refuses them to anyone else with a plain die,
 * which its API answers as 500 "only root can set 'args' config" (not 403).
 */
const ROOT_ONLY_KEYS = new Set(['args', 'lock']);

function vmSummary(vm: VmRecord) {
  const running = vm.running;
  return {
    vmid: vm.vmid,
    name: vm.config.name ?? `VM ${vm.vmid}`,
    status: running ? 'running' : 'stopped',
    maxmem: memoryBytes(vm),
    mem: running ? memoryBytes(vm) : 0,
    cpus: cpusOf(vm.config),
    cpu: running ? 0.01 : 0,
    uptime: uptimeOf(vm),
    maxdisk: disksOf(vm.config).reduce((sum, [, value]) => sum + diskBytes(value), 0),
    disk: 0,
    netin: 0,
    netout: 0,
    diskread: 0,
    diskwrite: 0,
    ...(isTemplate(vm) ? { template: 1 } : {}),
    ...(vm.config.lock ? { lock: vm.config.lock } : {}),
    ...(vm.config.tags ? { tags: vm.config.tags } : {}),
  };
}

interface ConfigChange {
  set: VmConfig;
  remove: string[];
  digest: string | undefined;
  skiplock: boolean;
  /** New disks whose content comes from a volume (`import-from`): drive key and source. */
  imports: Array<[string, string]>;
}

/** Reads and checks an update's parameters: the checks PVE makes before it touches the file. */
function readChange(ctx: SimContext, vm: VmRecord, call: Call): ConfigChange {
  const { params, session } = call;
  const set: VmConfig = {};
  for (const [key, value] of Object.entries(params)) {
    // The checked parameters include the path's (node, vmid), which are no config keys.
    if (!CONTROL_KEYS.has(key) && !(key in call.pathParams)) set[key] = configText(value);
  }
  const remove = (textParam(params, 'delete') ?? '').split(/[,;\s]+/).filter((k) => k !== '');
  for (const key of [...Object.keys(set), ...remove]) checkRootOnly(key, session);
  const skiplock = flagParam(params, 'skiplock') === true;
  if (skiplock && !session.root) throw failure('Only root may use this option.');
  const imports: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(set)) {
    const source = isDriveKey(key) ? importSourceOf(value) : undefined;
    if (isNicKey(key)) set[key] = checkNic(ctx, vm, key, value);
    else if (source !== undefined) {
      checkImportSource(key, source);
      // Its volume is named in the drives' order; its size is the source's, once imported.
      newDisk(vm, key, value, set);
      set[key] = importedDisk({ ...vm.config, ...set }, value, vm.vmid, 0);
      imports.push([key, source]);
    } else if (isDriveKey(key) && cloudInitRequestOf(value) !== undefined) {
      set[key] = newCloudInitDrive(vm, key, value, remove);
    } else if (isDriveKey(key) && newDiskRequestOf(value) !== undefined) {
      set[key] = newDisk(vm, key, value, set);
    } else if (isCdrom(value)) checkCdrom(ctx, vm.node, value);
    else if (key === 'tags') set[key] = normalizeTags(value);
  }
  return { set, remove, digest: textParam(params, 'digest'), skiplock, imports };
}

/**
 * PVE's check of an `import-from` source before its worker runs (API2/Qemu.pm): a volume of a
 * storage that exists, of type `images` or `import`. The simulator imports from `import` volumes
 * only (an absolute path, which PVE lets root@pam give, is not simulated).
 */
function checkImportSource(key: string, source: string): void {
  if (source.startsWith('/')) {
    throw new PveHttpError(501, 'the PVE API simulator imports volumes, not file system paths');
  }
  const [, storage = '', volname = ''] = /^([a-z][a-z0-9._-]*[a-z0-9]):(.+)$/i.exec(source) ?? [];
  if (!Object.hasOwn(STORAGES, storage)) throw failure(`storage '${storage}' does not exist`);
  const kind = contentOfVolid(source);
  if (kind !== 'import' || !IMPORT_FILE.test(volname.slice('import/'.length))) {
    const vtype = /^iso\//.test(volname) ? 'iso' : 'images';
    if (vtype === 'images') {
      throw new PveHttpError(501, 'the PVE API simulator imports only volumes of import content');
    }
    throw paramError({
      [key]: `${source} has wrong type '${vtype}' - needs to be 'images' or 'import'`,
    });
  }
}

/**
 * The import itself, in the worker: the source must be on the VM's node (or a shared storage);
 * the disk is allocated with the source's size. PVE's message when it is not there.
 */
function runImports(ctx: SimContext, vm: VmRecord, imports: Array<[string, string]>): void {
  for (const [key, source] of imports) {
    const file = ctx.cluster.isos.get(vm.node, source);
    if (!file) throw new Error(`could not get file size of ${source}`);
    vm.config[key] = (vm.config[key] ?? '').replace(/(^|,)size=[^,]*/, `$1size=${file.size}`);
  }
}

function checkRootOnly(key: string, session: Session): void {
  if (ROOT_ONLY_KEYS.has(key) && !session.root) throw failure(`only root can set '${key}' config`);
}

/** A NIC value with its MAC filled in, once its bridge is known to exist. */
function checkNic(ctx: SimContext, vm: VmRecord, key: string, value: string): string {
  const nic = parseNic(value);
  const bridge = nic.bridge ?? 'vmbr0';
  // A running VM's NIC is replugged at once (hotplug): the bridge must exist on the node.
  const exists = vm.running ? ctx.sdn.live(bridge) : ctx.sdn.configured(bridge);
  if (!exists) throw failure(`bridge '${bridge}' does not exist`);
  if (nic.mac === undefined || nic.mac === '') nic.mac = macFor(vm.vmid, Number(key.slice(3)));
  return formatNic(nic);
}

/**
 * PVE allocates a cloud-init drive's volume on the storage named (one that holds disk images)
 * and keeps it as a CD-ROM; a VM has one cloud-init drive at most.
 */
function newCloudInitDrive(vm: VmRecord, key: string, value: string, remove: string[]): string {
  const storage = cloudInitRequestOf(value) ?? '';
  const info = Object.hasOwn(STORAGES, storage) ? STORAGES[storage] : undefined;
  if (!info) throw failure(`storage '${storage}' does not exist`);
  if (!info.content.split(',').includes('images')) {
    throw failure(`storage '${storage}' does not support content-type 'images'`);
  }
  const other = Object.entries(vm.config).find(
    ([k, v]) => k !== key && !remove.includes(k) && isDriveKey(k) && isCloudInitDrive(v),
  );
  if (other) throw failure(`${key}: only one cloud-init drive is allowed (${other[0]} is one)`);
  return `${cloudInitVolume(storage, vm.vmid)},media=cdrom`;
}

/** A new disk on a storage that holds disk images, allocated as PVE does. */
function newDisk(vm: VmRecord, key: string, value: string, set: VmConfig): string {
  const { storage } = newDiskRequestOf(value)!;
  const info = Object.hasOwn(STORAGES, storage) ? STORAGES[storage] : undefined;
  if (!info) throw failure(`storage '${storage}' does not exist`);
  if (!info.content.split(',').includes('images')) {
    throw failure(`storage '${storage}' does not support content-type 'images'`);
  }
  return allocatedDisk({ ...vm.config, ...set }, key, value, vm.vmid);
}

/**
 * `cicustom`'s files (snippets) must exist when the VM starts, on a storage with snippets
 * content: the simulator's is the one `snippets` names, a folder of real files.
 */
function checkCustomCloudInit(ctx: SimContext, vm: VmRecord): void {
  const value = vm.config.cicustom;
  if (value === undefined) return;
  for (const part of value.split(',')) {
    const volume = part.slice(part.indexOf('=') + 1);
    const [storage = '', path = ''] = volume.split(/:(.*)/s);
    const snippets = ctx.snippets;
    if (!snippets || storage !== snippets.storage) {
      throw failure(`storage '${storage}' does not support content-type 'snippets'`);
    }
    const name = /^snippets\/([^/]+)$/.exec(path)?.[1];
    if (!name || !existsSync(join(snippets.dir, 'snippets', name))) {
      throw failure(`volume '${volume}' does not exist`);
    }
  }
}

/** The ISO must be on the VM's own node: storage 'local' is not shared. */
function checkCdrom(ctx: SimContext, node: string, value: string): void {
  const volume = volumeOf(value);
  if (volume === 'none' || volume === 'cdrom' || isCloudInitDrive(value)) return;
  if (!volume.startsWith(`${ISO_STORAGE}:`) || !ctx.cluster.isos.get(node, volume)) {
    throw failure(`volume '${volume}' does not exist`);
  }
}

/** Writes a checked change: what PVE does under the config lock. */
function applyChange(ctx: SimContext, vm: VmRecord, change: ConfigChange): void {
  if (change.digest !== undefined && change.digest !== configDigest(vm.config)) {
    throw failure('detected modified configuration - file changed by other user? Try again.');
  }
  if (!change.skiplock) checkLock(vm);
  for (const [, source] of change.imports) {
    if (!ctx.cluster.isos.get(vm.node, source)) {
      throw failure(`could not get file size of ${source}`);
    }
  }
  for (const key of change.remove) delete vm.config[key];
  Object.assign(vm.config, change.set);
  runImports(ctx, vm, change.imports);
}

/** The checks of PVE's vm_start, made when the start task runs. */
function checkStartable(ctx: SimContext, vm: VmRecord): void {
  if (isTemplate(vm)) throw failure("you can't start a vm if it's a template");
  checkLock(vm);
  if (vm.running) throw failure(`VM ${vm.vmid} already running`);
  for (const [, bridge] of bridgesOf(vm.config)) {
    if (!ctx.sdn.live(bridge)) throw failure(`bridge '${bridge}' does not exist`);
  }
  for (const [, value] of Object.entries(vm.config)) {
    if (isCdrom(value)) checkCdrom(ctx, vm.node, value);
  }
  checkCustomCloudInit(ctx, vm);
}

/** Volumes of a template that linked clones still use. */
function baseVolumesInUse(ctx: SimContext, vm: VmRecord): string | undefined {
  for (const [, value] of disksOf(vm.config)) {
    const base = volumeOf(value);
    for (const other of ctx.cluster.vms.values()) {
      if (other === vm) continue;
      if (disksOf(other.config).some(([, v]) => volumeOf(v).startsWith(`${base}/`))) return base;
    }
  }
  return undefined;
}

function assertAgent(ctx: SimContext, vm: VmRecord): void {
  if (vm.config.agent === undefined) throw failure('No QEMU guest agent configured');
  if (!vm.running) throw failure(`VM ${vm.vmid} is not running`);
  const since = vm.startedAt === null ? 0 : Date.now() - vm.startedAt;
  if (!agentEnabled(vm.config) || since < ctx.settings.agentDelayMs) {
    throw failure('QEMU guest agent is not running');
  }
}

export function qemuRoutes(ctx: SimContext): Routes {
  const { cluster, tasks, settings } = ctx;
  const vmOf = (call: Call) => cluster.vmOn(nodeOf(call), vmidOf(call));

  /** A worker task on a VM whose effect runs when it ends, on the VM as it is then. */
  const vmTask = (call: Call, type: string, effect: (vm: VmRecord) => void) =>
    tasks.start({
      node: nodeOf(call),
      type,
      id: String(vmidOf(call)),
      user: call.session.user,
      durationMs: settings.taskMs,
      finish: () => effect(vmOf(call)),
    }).upid;

  const powerOff = (vm: VmRecord) => {
    checkLock(vm);
    if (!vm.running) return;
    vm.running = false;
    vm.startedAt = null;
    ctx.vmStopped(vm.vmid, false);
  };

  return {
    'GET /nodes/{node}/qemu': (call) => {
      cluster.node(nodeOf(call));
      return [...cluster.vms.values()].filter((vm) => vm.node === nodeOf(call)).map(vmSummary);
    },

    // qm create: the VM's config file is written (locked) when the call is accepted, so its vmid
    // is taken from then on; new disks (`scsi0: local-lvm:4`) are allocated as the config is read.
    'POST /nodes/{node}/qemu': (call) => {
      const node = nodeOf(call);
      cluster.node(node);
      const vmid = intParam(call.params, 'vmid') ?? 0;
      if (cluster.vms.has(vmid)) {
        throw failure(`unable to create VM ${vmid}: config file already exists`);
      }
      const pool = textParam(call.params, 'pool');
      if (pool !== undefined && !cluster.pools.has(pool)) {
        throw failure(`pool '${pool}' does not exist`);
      }
      const vm: VmRecord = {
        vmid,
        node,
        config: {},
        running: false,
        startedAt: null,
        snapshots: [],
        agentFiles: {},
        agentExecs: [],
      };
      const params = Object.fromEntries(
        Object.entries(call.params).filter(([key]) => !CREATE_KEYS.has(key)),
      );
      const change = readChange(ctx, vm, { ...call, params });
      vm.config = {
        ...change.set,
        smbios1: `uuid=00000000-0000-4000-8000-${String(vmid).padStart(12, '0')}`,
        lock: 'create',
      };
      cluster.vms.set(vmid, vm);
      const start = flagParam(call.params, 'start') === true;
      return tasks.start({
        node,
        type: 'qmcreate',
        id: String(vmid),
        user: call.session.user,
        durationMs: settings.taskMs,
        finish() {
          try {
            runImports(ctx, vm, change.imports);
          } catch (error) {
            // PVE removes the VM whose disks it could not make.
            cluster.vms.delete(vmid);
            throw new Error(`unable to create VM ${vmid} - ${(error as Error).message}`);
          }
          delete vm.config.lock;
          if (pool !== undefined) vm.pool = pool;
          if (start) {
            checkStartable(ctx, vm);
            vm.running = true;
            vm.startedAt = Date.now();
          }
        },
      }).upid;
    },

    'GET /nodes/{node}/qemu/{vmid}/config': (call) => {
      const vm = vmOf(call);
      const snapname = textParam(call.params, 'snapshot');
      if (snapname === undefined) return configReply(vm.config);
      const snapshot = vm.snapshots.find((s) => s.name === snapname);
      if (!snapshot) throw failure(`snapshot '${snapname}' does not exist`);
      return configReply(snapshot.config);
    },

    'PUT /nodes/{node}/qemu/{vmid}/config': (call) => {
      const vm = vmOf(call);
      applyChange(ctx, vm, readChange(ctx, vm, call));
      return null;
    },

    'POST /nodes/{node}/qemu/{vmid}/config': (call) => {
      const vm = vmOf(call);
      const change = readChange(ctx, vm, call);
      return vmTask(call, 'qmconfig', (current) => applyChange(ctx, current, change));
    },

    'GET /nodes/{node}/qemu/{vmid}/status/current': (call) => {
      const vm = vmOf(call);
      const { vmid, name, status, maxmem, mem, cpus, cpu, uptime } = vmSummary(vm);
      return {
        vmid,
        name,
        status,
        qmpstatus: status,
        maxmem,
        mem,
        cpus,
        cpu,
        uptime,
        ha: { managed: 0 },
        ...(vm.config.lock ? { lock: vm.config.lock } : {}),
        ...(isTemplate(vm) ? { template: 1 } : {}),
        ...(agentEnabled(vm.config) ? { agent: 1 } : {}),
        ...(vm.config.tags ? { tags: tagsOf(vm.config).join(';') } : {}),
      };
    },

    'POST /nodes/{node}/qemu/{vmid}/status/start': (call) => {
      vmOf(call);
      return vmTask(call, 'qmstart', (vm) => {
        checkStartable(ctx, vm);
        vm.running = true;
        vm.startedAt = Date.now();
      });
    },

    'POST /nodes/{node}/qemu/{vmid}/status/stop': (call) => {
      vmOf(call);
      return vmTask(call, 'qmstop', powerOff);
    },

    // The simulated guest always honours ACPI: a shutdown is a stop that takes the same time.
    'POST /nodes/{node}/qemu/{vmid}/status/shutdown': (call) => {
      vmOf(call);
      return vmTask(call, 'qmshutdown', powerOff);
    },

    'POST /nodes/{node}/qemu/{vmid}/status/reset': (call) => {
      if (!vmOf(call).running) throw failure(`VM ${vmidOf(call)} not running`);
      return vmTask(call, 'qmreset', (vm) => {
        checkLock(vm);
        if (!vm.running) throw failure(`VM ${vm.vmid} not running`);
        // The guest boots again: its agent answers only after the boot delay.
        vm.startedAt = Date.now();
      });
    },

    'DELETE /nodes/{node}/qemu/{vmid}': (call) => {
      if (vmOf(call).running) throw failure(`VM ${vmidOf(call)} is running - destroy failed`);
      return vmTask(call, 'qmdestroy', (vm) => {
        checkLock(vm);
        if (vm.running) throw failure(`VM ${vm.vmid} is running - destroy failed`);
        const inUse = isTemplate(vm) ? baseVolumesInUse(ctx, vm) : undefined;
        if (inUse) throw failure(`base volume '${inUse}' is still in use by linked cloned`);
        cluster.vms.delete(vm.vmid);
        ctx.vmStopped(vm.vmid, true);
      });
    },

    'POST /nodes/{node}/qemu/{vmid}/agent/ping': (call) => {
      assertAgent(ctx, vmOf(call));
      return { result: {} };
    },

    'POST /nodes/{node}/qemu/{vmid}/agent/file-write': (call) => {
      const vm = vmOf(call);
      assertAgent(ctx, vm);
      const content = textParam(call.params, 'content') ?? '';
      // encode=0: the caller sent base64 already; the guest gets the decoded bytes.
      const encoded = flagParam(call.params, 'encode') === false;
      const file = textParam(call.params, 'file') ?? '';
      vm.agentFiles[file] = encoded ? Buffer.from(content, 'base64').toString('utf8') : content;
      return null;
    },

    'GET /nodes/{node}/qemu/{vmid}/agent/file-read': (call) => {
      const vm = vmOf(call);
      assertAgent(ctx, vm);
      const file = textParam(call.params, 'file') ?? '';
      const content = vm.agentFiles[file];
      // The agent's guest-file-open error, as PVE passes it on.
      if (content === undefined) {
        throw failure(
          `Agent error: failed to open file '${file}' (mode: 'r'): No such file or directory`,
        );
      }
      // At most `count` bytes from `offset`; truncated when the read stopped before the end.
      const bytes = Buffer.from(content);
      const offset = intParam(call.params, 'offset') ?? 0;
      const end = Math.min(bytes.length, offset + (intParam(call.params, 'count') ?? bytes.length));
      const read = bytes.subarray(Math.min(offset, end), end);
      const truncated = end < bytes.length ? { truncated: true } : {};
      // decode=0: the caller wants base64, as the agent sends it.
      const raw = flagParam(call.params, 'decode') === false;
      return { content: raw ? read.toString('base64') : read.toString('utf8'), ...truncated };
    },

    // The simulated guest runs any command, for the task time, and it exits with 0; what it ran
    // is kept for tests (sim.agentExecs). Its processes end with it: a stop or a reset forgets
    // them, as the agent's own table goes with the guest.
    'POST /nodes/{node}/qemu/{vmid}/agent/exec': (call) => {
      const vm = vmOf(call);
      assertAgent(ctx, vm);
      const command = call.params.command;
      const words = typeof command === 'string' ? [command] : [...(command as string[])];
      const input = textParam(call.params, 'input-data');
      const pid = 1000 + vm.agentExecs.length;
      vm.agentExecs.push({
        pid,
        command: words,
        ...(input !== undefined ? { input } : {}),
        startedAt: Date.now(),
      });
      return { pid };
    },

    'GET /nodes/{node}/qemu/{vmid}/agent/exec-status': (call) => {
      const vm = vmOf(call);
      assertAgent(ctx, vm);
      const pid = intParam(call.params, 'pid');
      const run = vm.agentExecs.find((e) => e.pid === pid && e.startedAt >= (vm.startedAt ?? 0));
      if (!run) throw failure(`Agent error: Invalid parameter 'pid'`);
      if (Date.now() - run.startedAt < settings.taskMs) return { exited: false };
      return { exited: true, exitcode: 0 };
    },
  };
}

import {
  DISK_STORAGE,
  diskBytes,
  disksOf,
  isNicKey,
  macFor,
  parseNic,
  formatNic,
  volumeOf,
  withVolume,
  type VmConfig,
} from './config';
import { failure, flagParam, intParam, textParam } from './errors';
import { checkLock, isTemplate, type VmRecord } from './state';
import { nodeOf, vmidOf, type Call, type Routes, type SimContext } from './types';

// Cloning and making templates in the PVE API simulator. A clone's config file is written (with
// `lock: clone`) as soon as the call is accepted, so its vmid is taken from then on and not
// before: two callers that asked /cluster/nextid at the same moment race for the same id, as on
// PVE. While a clone runs it holds its source's config lock; another clone of the same source
// waits for it up to lockWaitMs and then fails with PVE's "can't lock file" message.
//
// Where this follows the brief rather than PVE: PVE takes that lock inside the worker (so the
// second clone's *task* fails), and PVE 8 shares the lock between clones of a stopped template.
// The simulator keeps the stricter, exclusive lock and refuses the call itself, which is the
// case a driver launching many machines from one template must survive.

const GIB = 2 ** 30;

/** Config keys a clone does not inherit (snapshot state, the template flag, locks). */
const NOT_CLONED =
  /^(template|lock|parent|snaptime|vmstate|snapstate|runningcpu|runningmachine|unused\d+)$/;

interface CloneRequest {
  node: string;
  vmid: number;
  newid: number;
  target: string | undefined;
  pool: string | undefined;
  storage: string | undefined;
  full: boolean | undefined;
  name: string | undefined;
  description: string | undefined;
}

function readRequest(call: Call): CloneRequest {
  const { params } = call;
  return {
    node: nodeOf(call),
    vmid: vmidOf(call),
    newid: intParam(params, 'newid') ?? 0,
    target: textParam(params, 'target'),
    pool: textParam(params, 'pool'),
    storage: textParam(params, 'storage'),
    full: flagParam(params, 'full'),
    name: textParam(params, 'name'),
    description: textParam(params, 'description'),
  };
}

/** The new VM's config: the source's, with new MACs, its own disks and the given name. */
function cloneConfig(source: VmRecord, request: CloneRequest, linked: boolean): VmConfig {
  const { newid } = request;
  const config: VmConfig = { lock: 'clone' };
  for (const [key, value] of Object.entries(source.config)) {
    if (NOT_CLONED.test(key)) continue;
    if (isNicKey(key)) {
      config[key] = formatNic({ ...parseNic(value), mac: macFor(newid, Number(key.slice(3))) });
    } else {
      config[key] = value;
    }
  }
  disksOf(source.config).forEach(([key, value], index) => {
    const volume = volumeOf(value);
    const storage = request.storage ?? volume.split(':')[0] ?? DISK_STORAGE;
    const disk = `vm-${newid}-disk-${index}`;
    config[key] = withVolume(value, linked ? `${volume}/${disk}` : `${storage}:${disk}`);
  });
  config.name = request.name ?? `Copy-of-VM-${source.config.name ?? source.vmid}`;
  if (request.description) config.description = request.description;
  config.smbios1 = `uuid=00000000-0000-4000-8000-${String(newid).padStart(12, '0')}`;
  return config;
}

export function cloneRoutes(ctx: SimContext): Routes {
  const { cluster, locks, tasks, settings } = ctx;

  /** PVE's checks, made before waiting for the lock and again once it is held. */
  const check = (request: CloneRequest): { source: VmRecord; linked: boolean } => {
    const source = cluster.vmOn(request.node, request.vmid);
    if (request.pool !== undefined && !cluster.pools.has(request.pool)) {
      throw failure(`pool '${request.pool}' does not exist`);
    }
    if (request.target !== undefined && !cluster.nodes.has(request.target)) {
      throw failure(`no such cluster node '${request.target}'`);
    }
    checkLock(source);
    // PVE's default: linked for a template, full for anything else.
    const linked = !(request.full ?? !isTemplate(source));
    if (linked && request.storage !== undefined) {
      throw failure("parameter 'storage' not allowed for linked clones");
    }
    if (request.storage !== undefined && request.storage !== DISK_STORAGE) {
      throw failure(`storage '${request.storage}' does not exist`);
    }
    const [disk] = disksOf(source.config);
    if (linked && !isTemplate(source) && disk) {
      throw failure(
        `Linked clone feature is not supported for '${volumeOf(disk[1])}' (${disk[0]})`,
      );
    }
    if (cluster.vms.has(request.newid)) {
      throw failure(`unable to create VM ${request.newid}: config file already exists`);
    }
    return { source, linked };
  };

  const clone = async (call: Call): Promise<string> => {
    const request = readRequest(call);
    check(request);
    if (!(await locks.acquire(request.vmid, settings.lockWaitMs))) {
      throw failure(
        `can't lock file '/var/lock/qemu-server/lock-${request.vmid}.conf' - got timeout`,
      );
    }
    let checked: ReturnType<typeof check>;
    try {
      checked = check(request);
    } catch (error) {
      locks.release(request.vmid);
      throw error;
    }
    const { source, linked } = checked;
    const vm: VmRecord = {
      vmid: request.newid,
      node: request.node,
      config: cloneConfig(source, request, linked),
      running: false,
      startedAt: null,
      snapshots: [],
      agentFiles: {},
      agentExecs: [],
    };
    cluster.vms.set(vm.vmid, vm);
    const disks = disksOf(source.config);
    const bytes = disks.reduce((sum, [, value]) => sum + diskBytes(value), 0);
    const gib = (fraction: number) => ((bytes * fraction) / GIB).toFixed(2);
    return tasks.start({
      node: request.node,
      type: 'qmclone',
      id: String(request.vmid),
      user: call.session.user,
      durationMs: linked ? settings.cloneMs : settings.fullCloneMs,
      begin(log) {
        log(`create ${linked ? 'linked' : 'full'} clone of VM ${request.vmid} as ${vm.vmid}`);
        for (const [key, value] of disks) {
          log(`create ${linked ? 'linked' : 'full'} clone of drive ${key} (${volumeOf(value)})`);
        }
      },
      ...(linked
        ? {}
        : {
            progress: {
              steps: 10,
              line: (f: number) =>
                `transferred ${gib(f)} GiB of ${gib(1)} GiB (${(f * 100).toFixed(2)}%)`,
            },
          }),
      finish() {
        delete vm.config.lock;
        // The config moves to the target node at the end, as PVE renames it there.
        if (request.target !== undefined) vm.node = request.target;
        if (request.pool !== undefined) vm.pool = request.pool;
      },
      always: () => locks.release(request.vmid),
    }).upid;
  };

  /** PVE's checks before converting a VM to a template. */
  const checkConvertible = (vm: VmRecord) => {
    checkLock(vm);
    if (vm.snapshots.length > 0) {
      throw failure('unable to create template, because VM contains snapshots');
    }
    if (isTemplate(vm)) throw failure("you can't convert a template to a template");
    if (vm.running) throw failure("you can't convert a VM to template if VM is running");
  };

  return {
    'POST /nodes/{node}/qemu/{vmid}/clone': clone,

    'POST /nodes/{node}/qemu/{vmid}/template': (call) => {
      checkConvertible(cluster.vmOn(nodeOf(call), vmidOf(call)));
      return tasks.start({
        node: nodeOf(call),
        type: 'qmtemplate',
        id: String(vmidOf(call)),
        user: call.session.user,
        durationMs: settings.taskMs,
        finish() {
          const vm = cluster.vmOn(nodeOf(call), vmidOf(call));
          checkConvertible(vm);
          vm.config.template = '1';
          // Its disks become base volumes that linked clones can share.
          for (const [key, value] of disksOf(vm.config)) {
            const volume = volumeOf(value).replace(/([:/])vm-(\d+-disk-\d+)$/, '$1base-$2');
            vm.config[key] = withVolume(value, volume);
          }
        },
      }).upid;
    },
  };
}

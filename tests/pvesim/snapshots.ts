import { configDigest, type VmConfig } from './config';
import { failure, textParam } from './errors';
import { checkLock, isTemplate, type SnapshotRecord, type VmRecord } from './state';
import { nodeOf, vmidOf, type Call, type Routes, type SimContext } from './types';

// VM snapshots in the PVE API simulator: a snapshot keeps a copy of the config (disk contents
// are not simulated) and never the RAM state, so a rollback leaves the VM stopped, as PVE does
// for a snapshot without vmstate. Each operation holds the VM's config lock ('snapshot',
// 'rollback', 'snapshot-delete') while its task runs, so a start meanwhile fails as on PVE.

/** Config keys that belong to the snapshot tree, not to a snapshot's copy. */
const withoutTree = (config: VmConfig): VmConfig => {
  const { parent: _parent, lock: _lock, ...rest } = config;
  return rest;
};

const snapshotOf = (vm: VmRecord, name: string): SnapshotRecord => {
  const snapshot = vm.snapshots.find((s) => s.name === name);
  if (!snapshot) throw failure(`snapshot '${name}' does not exist`);
  return snapshot;
};

export function snapshotRoutes(ctx: SimContext): Routes {
  const { cluster, tasks, settings } = ctx;
  const vmOf = (call: Call) => cluster.vmOn(nodeOf(call), vmidOf(call));

  /**
   * A task that takes the VM's config lock at once (failing if another holds it) and gives it
   * back however it ends.
   */
  const lockedTask = (
    call: Call,
    type: string,
    lock: string,
    steps: { check(vm: VmRecord): void; finish(vm: VmRecord): void },
  ) => {
    let locked: VmRecord | null = null;
    return tasks.start({
      node: nodeOf(call),
      type,
      id: String(vmidOf(call)),
      user: call.session.user,
      durationMs: settings.taskMs,
      begin() {
        const vm = vmOf(call);
        checkLock(vm);
        steps.check(vm);
        vm.config.lock = lock;
        locked = vm;
      },
      finish() {
        if (locked) steps.finish(locked);
      },
      always() {
        if (locked?.config.lock === lock) delete locked.config.lock;
      },
    }).upid;
  };

  return {
    'GET /nodes/{node}/qemu/{vmid}/snapshot': (call) => {
      const vm = vmOf(call);
      const list: Record<string, unknown>[] = vm.snapshots.map((s) => ({
        name: s.name,
        description: s.description,
        snaptime: s.snaptime,
        ...(s.parent ? { parent: s.parent } : {}),
      }));
      list.push({
        name: 'current',
        description: 'You are here!',
        running: vm.running ? 1 : 0,
        digest: configDigest(vm.config),
        ...(vm.config.parent ? { parent: vm.config.parent } : {}),
      });
      return list;
    },

    'POST /nodes/{node}/qemu/{vmid}/snapshot': (call) => {
      const name = textParam(call.params, 'snapname') ?? '';
      for (const reserved of ['current', 'pending']) {
        if (name.toLowerCase() === reserved) {
          throw failure(`unable to use snapshot name '${reserved}' (reserved name)`);
        }
      }
      vmOf(call);
      // A `vmstate` request is accepted but no RAM is kept: the simulator has none to keep.
      return lockedTask(call, 'qmsnapshot', 'snapshot', {
        check(vm) {
          if (isTemplate(vm)) throw failure("you can't take a snapshot if it's a template");
          if (vm.snapshots.some((s) => s.name === name)) {
            throw failure(`snapshot name '${name}' already used`);
          }
        },
        finish(vm) {
          vm.snapshots.push({
            name,
            ...(vm.config.parent ? { parent: vm.config.parent } : {}),
            snaptime: Math.floor(Date.now() / 1000),
            description: textParam(call.params, 'description') ?? '',
            config: withoutTree(vm.config),
          });
          vm.config.parent = name;
        },
      });
    },

    'POST /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback': (call) => {
      const name = call.pathParams.snapname ?? '';
      vmOf(call);
      return lockedTask(call, 'qmrollback', 'rollback', {
        check: (vm) => void snapshotOf(vm, name),
        finish(vm) {
          const snapshot = snapshotOf(vm, name);
          if (vm.running) {
            vm.running = false;
            vm.startedAt = null;
            ctx.vmStopped(vm.vmid, false);
          }
          vm.config = { ...snapshot.config, parent: name, lock: 'rollback' };
        },
      });
    },

    'DELETE /nodes/{node}/qemu/{vmid}/snapshot/{snapname}': (call) => {
      const name = call.pathParams.snapname ?? '';
      vmOf(call);
      return lockedTask(call, 'qmdelsnapshot', 'snapshot-delete', {
        check: (vm) => void snapshotOf(vm, name),
        finish(vm) {
          const snapshot = snapshotOf(vm, name);
          vm.snapshots = vm.snapshots.filter((s) => s !== snapshot);
          // Its children and the current state now descend from its parent.
          for (const s of vm.snapshots) {
            if (s.parent !== name) continue;
            if (snapshot.parent) s.parent = snapshot.parent;
            else delete s.parent;
          }
          if (vm.config.parent === name) {
            if (snapshot.parent) vm.config.parent = snapshot.parent;
            else delete vm.config.parent;
          }
        },
      });
    },
  };
}

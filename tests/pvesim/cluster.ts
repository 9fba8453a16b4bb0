import { cpusOf, diskBytes, disksOf } from './config';
import { failure, flagParam, intParam, paramError, textParam } from './errors';
import { isTemplate, memoryBytes, MIB, uptimeOf, type VmRecord } from './state';
import { STORAGES } from './storage';
import type { SimTask } from './tasks';
import { nodeOf, type Call, type Routes, type SimContext } from './types';

// Cluster-wide reads of the PVE API simulator (version, nodes, resources, next free vmid),
// task status and logs, and resource pools. Storage endpoints are in storage.ts.

export const SIMULATOR_VERSION = { version: '8.4.0', release: '8.4', repoid: 'topoplay-simulator' };

/** CPUs each simulated node reports. */
const NODE_CPUS = 32;

/** PVE returns 50 log lines unless asked for another number. */
const DEFAULT_LOG_LIMIT = 50;

function vmResource(vm: VmRecord) {
  return {
    id: `qemu/${vm.vmid}`,
    type: 'qemu',
    vmid: vm.vmid,
    name: vm.config.name ?? `VM ${vm.vmid}`,
    node: vm.node,
    status: vm.running ? 'running' : 'stopped',
    template: isTemplate(vm) ? 1 : 0,
    maxmem: memoryBytes(vm),
    mem: vm.running ? memoryBytes(vm) : 0,
    maxcpu: cpusOf(vm.config),
    cpu: vm.running ? 0.01 : 0,
    maxdisk: disksOf(vm.config).reduce((sum, [, value]) => sum + diskBytes(value), 0),
    disk: 0,
    uptime: uptimeOf(vm),
    ...(vm.config.tags ? { tags: vm.config.tags } : {}),
    ...(vm.config.lock ? { lock: vm.config.lock } : {}),
    ...(vm.pool ? { pool: vm.pool } : {}),
  };
}

const taskStatus = (task: SimTask) => ({
  upid: task.upid,
  node: task.node,
  pid: task.pid,
  pstart: task.pstart,
  starttime: task.starttime,
  type: task.type,
  id: task.id,
  user: task.user,
  status: task.status,
  ...(task.exitstatus !== undefined ? { exitstatus: task.exitstatus } : {}),
});

export function clusterRoutes(ctx: SimContext, fingerprint: string | null): Routes {
  const { cluster } = ctx;
  const started = Date.now();
  const nodeUptime = () => Math.floor((Date.now() - started) / 1000) + 86_400;

  const nodeEntry = (name: string) => {
    const node = cluster.node(name);
    return {
      id: `node/${name}`,
      type: 'node',
      node: name,
      status: 'online',
      maxmem: node.maxmemMiB * MIB,
      mem: cluster.usedMemory(name),
      maxcpu: NODE_CPUS,
      cpu: 0.02,
      uptime: nodeUptime(),
      level: '',
      ...(fingerprint ? { ssl_fingerprint: fingerprint } : {}),
    };
  };

  const storageEntries = () =>
    [...cluster.nodes.keys()].flatMap((node) =>
      Object.entries(STORAGES).map(([storage, info]) => ({
        id: `storage/${node}/${storage}`,
        type: 'storage',
        storage,
        node,
        status: 'available',
        content: info.content,
        plugintype: info.type,
        shared: info.shared ? 1 : 0,
        maxdisk: info.total,
        disk: 0,
      })),
    );

  const sdnEntries = () =>
    [...cluster.nodes.keys()].map((node) => ({
      id: `sdn/${node}/${ctx.sdn.zone}`,
      type: 'sdn',
      sdn: ctx.sdn.zone,
      node,
      status: 'ok',
    }));

  const poolEntries = () =>
    [...cluster.pools.keys()].map((pool) => ({ id: `/pool/${pool}`, type: 'pool', pool }));

  const taskOf = (call: Call): SimTask => {
    cluster.node(nodeOf(call));
    const upid = call.pathParams.upid ?? '';
    const task = ctx.tasks.get(upid);
    if (!task || task.node !== nodeOf(call)) throw failure(`no such task '${upid}'`);
    return task;
  };

  const poolMembers = (poolid: string) =>
    [...cluster.vms.values()].filter((vm) => vm.pool === poolid).map(vmResource);

  const deletePool = (poolid: string) => {
    if (!cluster.pools.has(poolid)) {
      throw failure(`delete pool failed: pool '${poolid}' does not exist`);
    }
    if (poolMembers(poolid).length > 0) {
      throw failure(`delete pool failed: pool '${poolid}' is not empty`);
    }
    cluster.pools.delete(poolid);
    return null;
  };

  return {
    'GET /version': () => SIMULATOR_VERSION,

    'GET /nodes': () => [...cluster.nodes.keys()].map(nodeEntry),

    'GET /cluster/resources': ({ params }) => {
      const vms = () => [...cluster.vms.values()].map(vmResource);
      const nodes = () => [...cluster.nodes.keys()].map(nodeEntry);
      switch (textParam(params, 'type')) {
        case 'vm':
          return vms();
        case 'node':
          return nodes();
        case 'storage':
          return storageEntries();
        case 'sdn':
          return sdnEntries();
        case undefined:
          return [...vms(), ...nodes(), ...storageEntries(), ...sdnEntries(), ...poolEntries()];
        default:
          return [];
      }
    },

    // PVE sends the next id as a string ("100"), whatever its schema says.
    'GET /cluster/nextid': ({ params }) => {
      const wanted = intParam(params, 'vmid');
      if (wanted === undefined) return String(cluster.nextFreeId());
      if (cluster.vms.has(wanted)) throw paramError({ vmid: `VM ${wanted} already exists` });
      return String(wanted);
    },

    'GET /nodes/{node}/tasks/{upid}/status': (call) => taskStatus(taskOf(call)),

    'GET /nodes/{node}/tasks/{upid}/log': (call) => {
      const task = taskOf(call);
      const start = intParam(call.params, 'start') ?? 0;
      const limit = intParam(call.params, 'limit') ?? DEFAULT_LOG_LIMIT;
      return task.lines
        .map((t, i) => ({ n: i + 1, t }))
        .slice(start, limit > 0 ? start + limit : undefined);
    },

    'GET /pools': ({ params }) => {
      const only = textParam(params, 'poolid');
      return [...cluster.pools.entries()]
        .filter(([poolid]) => only === undefined || poolid === only)
        .map(([poolid, pool]) => ({
          poolid,
          ...(pool.comment !== undefined ? { comment: pool.comment } : {}),
          ...(only !== undefined ? { members: poolMembers(poolid) } : {}),
        }));
    },

    'GET /pools/{poolid}': ({ pathParams }) => {
      const poolid = pathParams.poolid ?? '';
      const pool = cluster.pools.get(poolid);
      if (!pool) throw failure(`pool '${poolid}' does not exist`);
      return {
        members: poolMembers(poolid),
        ...(pool.comment !== undefined ? { comment: pool.comment } : {}),
      };
    },

    'POST /pools': ({ params }) => {
      const poolid = textParam(params, 'poolid') ?? '';
      if (cluster.pools.has(poolid)) {
        throw failure(`create pool failed: pool '${poolid}' already exists`);
      }
      const comment = textParam(params, 'comment');
      cluster.pools.set(poolid, comment !== undefined ? { comment } : {});
      return null;
    },

    'PUT /pools': ({ params }) => {
      const poolid = textParam(params, 'poolid') ?? '';
      const pool = cluster.pools.get(poolid);
      if (!pool) throw failure(`update pools failed: pool '${poolid}' does not exist`);
      const comment = textParam(params, 'comment');
      if (comment !== undefined) pool.comment = comment;
      const removing = flagParam(params, 'delete') === true;
      const ids = (textParam(params, 'vms') ?? '').split(/[,;\s]+/).filter((v) => v !== '');
      for (const id of ids.map(Number)) {
        const vm = cluster.vms.get(id);
        if (!vm) throw failure(`update pools failed: VM ${id} does not exist`);
        if (removing) {
          if (vm.pool === poolid) delete vm.pool;
        } else if (vm.pool && vm.pool !== poolid) {
          throw failure(`update pools failed: VM ${id} belongs already to pool '${vm.pool}'`);
        } else {
          vm.pool = poolid;
        }
      }
      return null;
    },

    'DELETE /pools': ({ params }) => deletePool(textParam(params, 'poolid') ?? ''),

    'DELETE /pools/{poolid}': ({ pathParams }) => deletePool(pathParams.poolid ?? ''),
  };
}

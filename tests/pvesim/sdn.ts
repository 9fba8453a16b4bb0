import { createHash } from 'node:crypto';
import { HOST_BRIDGE } from './config';
import { failure, flagParam, intParam, paramError, textParam } from './errors';
import type { ParamValue } from './schema';
import type { Routes, SimContext } from './types';

// Software-defined networking in the PVE API simulator, as PVE does it: a vnet created or
// deleted through the API changes only the SDN *configuration*; PUT /cluster/sdn commits that
// configuration as the running one at once and starts a `reloadnetworkall` task that builds the
// bridges on every node, so a vnet's bridge exists only once that task has ended. Listings follow
// PVE: by default the configuration, `running=1` the committed one, `pending=1` the differences
// (a new vnet there has its zone and tag only under `pending`).

export interface VnetSpec {
  vnet: string;
  zone: string;
  tag: number;
  alias?: string;
}

/** What a PUT of a vnet sets and deletes; `digest` guards against a concurrent change. */
export interface VnetChange {
  set: Partial<VnetSpec>;
  remove: string[];
  digest?: string;
}

/** A vnet as tests see it: whether its bridge exists on the nodes, or is still to come or go. */
export interface VnetView extends VnetSpec {
  state: 'applied' | 'new' | 'changed' | 'deleted';
}

export interface Sdn {
  zone: string;
  /** Whether a NIC may name the bridge: the host bridge or a vnet in the configuration. */
  configured(bridge: string): boolean;
  /** Whether the bridge exists on the nodes now: the host bridge or a vnet whose reload ended. */
  live(bridge: string): boolean;
  inspect(): VnetView[];
  /** Creates, deletes and commits (for the routes). */
  create(spec: VnetSpec): void;
  /** A vnet's configuration changed (PUT): its new values, checked as PVE checks them. */
  update(vnet: string, change: VnetChange): void;
  remove(vnet: string): void;
  /** Makes the configuration the running one; returns what the bridges become once reloaded. */
  commit(): Map<string, VnetSpec>;
  reloaded(bridges: Map<string, VnetSpec>): void;
  list(mode: 'config' | 'running' | 'pending'): Record<string, unknown>[];
  get(vnet: string, mode: 'config' | 'running'): Record<string, unknown>;
}

const fieldsOf = (spec: VnetSpec): Record<string, string | number> => ({
  zone: spec.zone,
  tag: spec.tag,
  ...(spec.alias !== undefined ? { alias: spec.alias } : {}),
});

const digestOf = (spec: VnetSpec): string =>
  createHash('sha1')
    .update(JSON.stringify(fieldsOf(spec)))
    .digest('hex');

const entry = (spec: VnetSpec) => ({
  vnet: spec.vnet,
  type: 'vnet',
  ...fieldsOf(spec),
  digest: digestOf(spec),
});

/** One line of PVE's pending view: running values on top, configured changes under `pending`. */
function pendingEntry(id: string, running?: VnetSpec, config?: VnetSpec): Record<string, unknown> {
  const result: Record<string, unknown> = { vnet: id, type: 'vnet' };
  const before = running ? fieldsOf(running) : {};
  Object.assign(result, before);
  if (running && !config) return { ...result, state: 'deleted', pending: {} };
  if (!config) return result;
  const after = fieldsOf(config);
  const pending: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(after)) if (before[key] !== value) pending[key] = value;
  for (const key of Object.keys(before)) if (!(key in after)) pending[key] = 'deleted';
  if (!running) return { ...result, state: 'new', pending };
  if (Object.keys(pending).length === 0) return result;
  return { ...result, state: 'changed', pending };
}

export function createSdn(zone: string): Sdn {
  const config = new Map<string, VnetSpec>();
  const running = new Map<string, VnetSpec>();
  let bridges = new Map<string, VnetSpec>();

  /** VXLAN network identifiers are unique across the cluster's VXLAN zones. */
  function checkTag(spec: VnetSpec): void {
    const clash = [...config.values()].find((v) => v.tag === spec.tag && v.vnet !== spec.vnet);
    if (clash) {
      throw paramError({
        tag: `vxlan tag ${spec.tag} already exist in vnet ${clash.vnet} in zone ${clash.zone}`,
      });
    }
  }

  const sorted = (map: Map<string, VnetSpec>) =>
    [...map.values()].sort((a, b) => a.vnet.localeCompare(b.vnet));

  return {
    zone,
    configured: (bridge) => bridge === HOST_BRIDGE || config.has(bridge),
    live: (bridge) => bridge === HOST_BRIDGE || bridges.has(bridge),
    inspect() {
      const ids = [...new Set([...config.keys(), ...bridges.keys()])].sort();
      const views: VnetView[] = [];
      for (const id of ids) {
        const configured = config.get(id);
        const built = bridges.get(id);
        if (configured && built && digestOf(configured) === digestOf(built)) {
          views.push({ ...configured, state: 'applied' });
        } else if (configured && built && configured.tag === built.tag) {
          // Only its label changed: its bridge is the same one.
          views.push({ ...configured, state: 'changed' });
        } else if (configured) {
          // A vnet deleted and made again with other values before a reload counts as new.
          views.push({ ...configured, state: 'new' });
        } else if (built) {
          views.push({ ...built, state: 'deleted' });
        }
      }
      return views;
    },
    create(spec) {
      if (spec.zone !== zone) {
        throw failure(`create sdn vnet object failed: sdn '${spec.zone}' does not exist`);
      }
      if (config.has(spec.vnet)) {
        throw failure(
          `create sdn vnet object failed: sdn vnet object ID '${spec.vnet}' already defined`,
        );
      }
      checkTag(spec);
      config.set(spec.vnet, spec);
    },
    update(vnet, change) {
      const current = config.get(vnet);
      if (!current) throw failure(`sdn vnet '${vnet}' does not exist`);
      if (change.digest !== undefined && change.digest !== digestOf(current)) {
        throw failure('detected modified configuration - file changed by other user? Try again.');
      }
      const next: VnetSpec = { ...current, ...change.set };
      if (change.remove.includes('alias')) delete next.alias;
      if (next.zone !== zone) {
        throw failure(`update sdn vnet object failed: sdn '${next.zone}' does not exist`);
      }
      if (next.tag !== current.tag) checkTag(next);
      config.set(vnet, next);
    },
    remove(vnet) {
      if (!config.delete(vnet)) {
        throw failure(`delete sdn vnet object failed: sdn vnet '${vnet}' does not exist`);
      }
    },
    commit() {
      running.clear();
      for (const [id, spec] of config) running.set(id, { ...spec });
      return new Map(running);
    },
    reloaded(next) {
      bridges = next;
    },
    list(mode) {
      if (mode === 'config') return sorted(config).map(entry);
      if (mode === 'running') return sorted(running).map(entry);
      const ids = [...new Set([...running.keys(), ...config.keys()])].sort();
      return ids.map((id) => pendingEntry(id, running.get(id), config.get(id)));
    },
    get(vnet, mode) {
      const spec = (mode === 'running' ? running : config).get(vnet);
      if (!spec) throw failure(`sdn vnet '${vnet}' does not exist`);
      return entry(spec);
    },
  };
}

const modeOf = (params: Record<string, ParamValue>): 'config' | 'running' | 'pending' => {
  if (flagParam(params, 'pending')) return 'pending';
  if (flagParam(params, 'running')) return 'running';
  return 'config';
};

export function sdnRoutes(ctx: SimContext): Routes {
  const { sdn } = ctx;
  return {
    'GET /cluster/sdn/vnets': ({ params }) => sdn.list(modeOf(params)),

    'GET /cluster/sdn/vnets/{vnet}': ({ pathParams, params }) => {
      const vnet = pathParams.vnet ?? '';
      const mode = modeOf(params);
      if (mode !== 'pending') return sdn.get(vnet, mode);
      const found = sdn.list('pending').find((v) => v.vnet === vnet);
      if (!found) throw failure(`sdn vnet '${vnet}' does not exist`);
      return found;
    },

    'POST /cluster/sdn/vnets': ({ params }) => {
      const tag = intParam(params, 'tag');
      if (tag === undefined) throw paramError({ tag: 'missing vxlan tag' });
      const alias = textParam(params, 'alias');
      sdn.create({
        vnet: textParam(params, 'vnet') ?? '',
        zone: textParam(params, 'zone') ?? '',
        tag,
        ...(alias !== undefined ? { alias } : {}),
      });
      return null;
    },

    // A change goes to the configuration only, as a new vnet does: the bridges change at the next
    // apply. An alias is PVE's label of the vnet; its bridge (the vnet's id) stays as it is.
    'PUT /cluster/sdn/vnets/{vnet}': ({ pathParams, params }) => {
      const set: Partial<VnetSpec> = {};
      const alias = textParam(params, 'alias');
      const tag = intParam(params, 'tag');
      const zone = textParam(params, 'zone');
      if (alias !== undefined) set.alias = alias;
      if (tag !== undefined) set.tag = tag;
      if (zone !== undefined) set.zone = zone;
      const remove = (textParam(params, 'delete') ?? '').split(/[,;\s]+/).filter(Boolean);
      const digest = textParam(params, 'digest');
      sdn.update(pathParams.vnet ?? '', { set, remove, ...(digest ? { digest } : {}) });
      return null;
    },

    'DELETE /cluster/sdn/vnets/{vnet}': ({ pathParams }) => {
      sdn.remove(pathParams.vnet ?? '');
      return null;
    },

    'PUT /cluster/sdn': ({ session }) => {
      const next = sdn.commit();
      const task = ctx.tasks.start({
        node: ctx.apiNode,
        type: 'reloadnetworkall',
        id: '',
        user: session.user,
        durationMs: ctx.settings.sdnReloadMs,
        finish(log) {
          for (const node of ctx.cluster.nodes.keys()) log(`${node}: reloading network config`);
          sdn.reloaded(next);
        },
      });
      return task.upid;
    },

    'GET /cluster/sdn/zones/{zone}': ({ pathParams }) => {
      const zone = pathParams.zone ?? '';
      if (zone !== sdn.zone) throw failure(`sdn '${zone}' does not exist`);
      // The nodes' addresses in a simulated cluster network.
      const peers = [...ctx.cluster.nodes.keys()].map((_, i) => `10.0.0.${i + 1}`).join(',');
      return {
        zone,
        type: 'vxlan',
        peers,
        ipam: 'pve',
        digest: createHash('sha1').update(`${zone}:${peers}`).digest('hex'),
      };
    },
  };
}

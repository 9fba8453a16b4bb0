import { realClock, type Clock } from '../../clock';
import type { PveClient } from './client';
import { machineMetaOf, OWN_TAG, RETIRED_TAG, tagList, type MachineMeta } from './names';

// What the cluster holds, as this driver sees it: one listing of the cluster's VMs
// (GET /cluster/resources), shared by the calls made within a short while, and the meta of each
// of our machines (its exact name, base image and nets, from its description), read once per
// machine and kept, since only this driver changes it.

export interface PveResource {
  id: string;
  type: string;
  vmid?: number;
  name?: string;
  node: string;
  status?: string;
  template?: number;
  tags?: string;
  lock?: string;
  maxmem?: number;
  mem?: number;
  cpu?: number;
  maxcpu?: number;
  pool?: string;
}

export interface PveNodeResource {
  node: string;
  status?: string;
  maxmem?: number;
  mem?: number;
}

/** One of our machines on the cluster, with its meta. */
export interface OwnVm {
  resource: PveResource & { vmid: number };
  meta: MachineMeta;
}

export interface Inventory {
  /** The cluster's VMs and templates, at most `maxAgeMs` old. */
  resources(): Promise<Array<PveResource & { vmid: number }>>;
  /** Our machines (not base images). */
  machines(): Promise<OwnVm[]>;
  /** The base image of that PVE name: a template, not retired. */
  baseImage(name: string): Promise<(PveResource & { vmid: number }) | null>;
  nodes(): Promise<PveNodeResource[]>;
  /** What is cached is stale: the next call lists again. */
  invalidate(): void;
  /** The meta of a machine this driver just made or changed. */
  remember(vmid: number, meta: MachineMeta): void;
  forget(vmid: number): void;
}

export const isOwn = (r: PveResource): boolean => tagList(r.tags).includes(OWN_TAG);
export const isRetired = (r: PveResource): boolean => tagList(r.tags).includes(RETIRED_TAG);

export function createInventory(
  api: Pick<PveClient, 'get'>,
  options: { maxAgeMs?: number; clock?: Clock } = {},
): Inventory {
  const maxAgeMs = options.maxAgeMs ?? 500;
  const clock = options.clock ?? realClock;
  let listing: { at: number; result: Promise<Array<PveResource & { vmid: number }>> } | null = null;
  // Only found metas are kept: a machine read in the middle of its clone has none yet (PVE
  // writes the clone's description when the clone ends).
  const metas = new Map<number, MachineMeta>();

  function resources() {
    if (listing && clock.now() - listing.at <= maxAgeMs) return listing.result;
    const result = api
      .get<PveResource[]>('/cluster/resources', { type: 'vm' })
      .then((all) =>
        all.filter(
          (r): r is PveResource & { vmid: number } =>
            typeof r.vmid === 'number' && (r.type === 'qemu' || r.id.startsWith('qemu/')),
        ),
      );
    listing = { at: clock.now(), result };
    // A failed listing is not kept.
    result.catch(() => {
      if (listing?.result === result) listing = null;
    });
    return result;
  }

  async function metaOf(r: PveResource & { vmid: number }): Promise<MachineMeta | null> {
    const known = metas.get(r.vmid);
    if (known) return known;
    try {
      const config = await api.get<{ description?: string }>(
        `/nodes/${r.node}/qemu/${r.vmid}/config`,
      );
      const meta = machineMetaOf(config.description);
      if (meta) metas.set(r.vmid, meta);
      return meta;
    } catch {
      // Gone meanwhile, or its node is out of reach: asked again next time.
      return null;
    }
  }

  return {
    resources,
    async machines() {
      const ours = (await resources()).filter((r) => !r.template && isOwn(r));
      const found = await Promise.all(
        ours.map(async (resource) => ({ resource, meta: await metaOf(resource) })),
      );
      return found.filter((m): m is OwnVm => m.meta !== null);
    },
    async baseImage(name) {
      const matches = (await resources()).filter(
        (r) => r.template === 1 && r.name === name && !isRetired(r),
      );
      // Two of one name (a save that had not retired the old one yet): the newest is the one.
      return matches.sort((a, b) => b.vmid - a.vmid)[0] ?? null;
    },
    async nodes() {
      return api.get<PveNodeResource[]>('/nodes');
    },
    invalidate() {
      listing = null;
    },
    remember(vmid, meta) {
      metas.set(vmid, meta);
    },
    forget(vmid) {
      metas.delete(vmid);
    },
  };
}

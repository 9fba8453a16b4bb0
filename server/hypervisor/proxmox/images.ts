import type { Clock } from '../../clock';
import { DriverError, type MachineSpec } from '../types';
import type { PveClient } from './client';
import type { CloneQueue } from './cloneQueue';
import { emptyVmConfig, ownEmptyBase, startsEmpty } from './emptyDisks';
import { isRetired, type Inventory, type PveResource } from './inventory';
import { OWN_TAG, pveTagOf, RETIRED_TAG, tagList } from './names';

// Base images: the PVE VM templates machines are linked clones of. A stock one is the admin's
// (any template without our tag); a workspace's own is a full clone of its parent made when the
// template is initialized (the spec's baseImage, named by the template id, copied from
// baseImageSource), tagged `topoplay` and with the workspace's tag. Only our own are ever removed
// or replaced. A save makes the machine the new base image of that name; the old one is retired
// (tagged), since the machines cloned from it still need its disks, and removed once none does.

export interface ImagesOptions {
  api: Pick<PveClient, 'get' | 'post' | 'put' | 'delete' | 'waitTask'>;
  inventory: Inventory;
  queue: CloneQueue;
  storage: string;
  pool?: string;
  /** A VMID no one has (the driver's reservations counted); release it once PVE has it. */
  reserveVmid(): Promise<number>;
  releaseVmid(vmid: number): void;
  destroy(node: string, vmid: number): Promise<void>;
  clock: Clock;
  log?: { warn(o: object, msg?: string): void };
}

type Resource = PveResource & { vmid: number };

interface Copy {
  progress: number;
  started: number;
}

const DNS_NAME =
  /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/;

export function createImages(options: ImagesOptions) {
  const { api, inventory, queue, storage } = options;
  const pool = options.pool || undefined;
  const copies = new Map<string, Copy>();

  const isOurs = (r: PveResource): boolean => tagList(r.tags).includes(OWN_TAG);

  /** Clone a VM fully into a new base image of `name` with `tags`, in the source's turn. */
  async function copyInto(
    source: Resource,
    name: string,
    tags: string,
    onProgress: (percent: number) => void,
  ): Promise<number> {
    const vmid = await options.reserveVmid();
    try {
      await queue.run(`${source.vmid}:${storage}`, async () => {
        const upid = await api.post<string>(`/nodes/${source.node}/qemu/${source.vmid}/clone`, {
          newid: vmid,
          name,
          full: 1,
          target: source.node,
          storage,
          pool,
        });
        await api.waitTask(upid, { onProgress: (p) => onProgress(p * 0.9) });
      });
      options.releaseVmid(vmid);
      const path = `/nodes/${source.node}/qemu/${vmid}`;
      await api.put(`${path}/config`, { tags, description: `Topoplay base image ${name}` });
      await api.waitTask(await api.post<string>(`${path}/template`));
      onProgress(100);
      inventory.invalidate();
      return vmid;
    } catch (error) {
      options.releaseVmid(vmid);
      await options.destroy(source.node, vmid).catch(() => undefined);
      throw error;
    }
  }

  /** A base image of empty disks (emptyDisks.ts ownEmptyBase), made in the background. */
  async function makeEmpty(spec: MachineSpec, name: string): Promise<number> {
    const node = (await inventory.nodes()).find((n) => n.status === 'online')?.node;
    if (!node) throw new DriverError('unavailable', 'no online Proxmox node to make a disk on');
    const copy: Copy = { progress: 0, started: options.clock.now() };
    copies.set(name, copy);
    const tags = `${OWN_TAG};${pveTagOf(spec.isolationTag)}`;
    void (async () => {
      const vmid = await options.reserveVmid();
      try {
        const upid = await api.post<string>(`/nodes/${node}/qemu`, {
          vmid,
          name,
          pool,
          tags,
          description: `Topoplay base image ${name}`,
          ...emptyVmConfig(spec, storage),
        });
        options.releaseVmid(vmid);
        await api.waitTask(upid, { onProgress: (p) => (copy.progress = Math.round(p * 0.9)) });
        await api.waitTask(await api.post<string>(`/nodes/${node}/qemu/${vmid}/template`));
        inventory.invalidate();
      } catch (error) {
        options.releaseVmid(vmid);
        await options.destroy(node, vmid).catch(() => undefined);
        throw error;
      }
    })()
      .catch((error: unknown) => {
        options.log?.warn({ err: error, name }, 'proxmox: making an empty base image failed');
      })
      .finally(() => copies.delete(name));
    return 0;
  }

  async function progress(spec: MachineSpec): Promise<number> {
    // Machines with empty disks need no base image: nothing to make.
    if (startsEmpty(spec)) return 100;
    if (!spec.baseImage) return -1;
    const copy = copies.get(spec.baseImage);
    if (copy) return copy.progress;
    return (await inventory.baseImage(spec.baseImage)) ? 100 : -1;
  }

  return {
    isOurs,
    progress,
    /** When the copy of the spec's base image started, while it runs. */
    copyOf: (spec: MachineSpec): number | null =>
      (spec.baseImage && copies.get(spec.baseImage)?.started) || null,

    /** Starts copying the spec's base image from its source; the copy's progress. */
    async create(spec: MachineSpec): Promise<number> {
      const name = spec.baseImage;
      if (startsEmpty(spec)) return 100;
      if (!name) {
        throw new DriverError(
          'invalid-request',
          'the template names no Proxmox template (its detail has no Template)',
        );
      }
      const now = await progress(spec);
      if (now >= 0) return now;
      if (!DNS_NAME.test(name)) {
        throw new DriverError('invalid-request', `${name} is not a valid Proxmox VM name`);
      }
      if (ownEmptyBase(spec)) return makeEmpty(spec, name);
      const source = spec.baseImageSource ? await inventory.baseImage(spec.baseImageSource) : null;
      if (!source) {
        throw new DriverError(
          'invalid-state',
          `the Proxmox template ${spec.baseImageSource ?? '(none)'} to copy ${name} from does not exist`,
        );
      }
      const copy: Copy = { progress: 0, started: options.clock.now() };
      copies.set(name, copy);
      const tags = `${OWN_TAG};${pveTagOf(spec.isolationTag)}`;
      copyInto(source, name, tags, (p) => {
        copy.progress = Math.min(99, Math.round(p));
      })
        .catch((error: unknown) => {
          options.log?.warn({ err: error, name }, 'proxmox: copying a base image failed');
        })
        .finally(() => copies.delete(name));
      return 0;
    },

    /** Removes the spec's base image when it is its workspace's own; stock ones stay. */
    async remove(spec: MachineSpec): Promise<void> {
      if (!spec.baseImage) return;
      const owner = pveTagOf(spec.isolationTag);
      const mine = (await inventory.resources()).filter(
        (r) =>
          r.template === 1 &&
          r.name === spec.baseImage &&
          isOurs(r) &&
          tagList(r.tags).includes(owner),
      );
      for (const r of mine) await options.destroy(r.node, r.vmid);
      inventory.invalidate();
    },

    /** The machine becomes the base image `base` was; `base` is retired. */
    async replaceWith(base: Resource, machine: Resource, onProgress: (p: number) => void) {
      const tags = tagList(base.tags).filter((t) => t !== RETIRED_TAG);
      await copyInto(machine, base.name ?? '', tags.join(';'), onProgress);
      await queue.run(`${base.vmid}:${storage}`, () =>
        api.put(`/nodes/${base.node}/qemu/${base.vmid}/config`, {
          tags: [...tags, RETIRED_TAG].join(';'),
        }),
      );
      inventory.invalidate();
    },

    /** Retired base images. */
    async retired(): Promise<Resource[]> {
      return (await inventory.resources()).filter((r) => r.template === 1 && isRetired(r));
    },

    /** Removes the retired base images no machine is a clone of any more; how many. */
    async removeRetired(): Promise<number> {
      inventory.invalidate();
      const retired = (await inventory.resources()).filter((r) => r.template === 1 && isRetired(r));
      const used = new Set((await inventory.machines()).map((m) => m.meta.source));
      let removed = 0;
      for (const r of retired) {
        if (used.has(r.vmid)) continue;
        try {
          await options.destroy(r.node, r.vmid);
          removed++;
        } catch (error) {
          // A clone we do not know of (made by hand) still uses it: kept.
          options.log?.warn({ err: error, vmid: r.vmid }, 'proxmox: a retired base image stays');
        }
      }
      return removed;
    },
  };
}

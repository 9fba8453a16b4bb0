import { DriverError, EMPTY_TAG } from '../types';
import { PveError, type PveClient } from './client';
import type { Inventory } from './inventory';
import { isoPathOf, isoVolumeOf } from './names';
import { createStorageNodes } from './storageNodes';

// ISO images on the cluster's ISO storage (PROXMOX_ISO_STORAGE), named `{tag}__{file}.iso` in its
// flat `iso/` folder: listed for a tag's machines, copied there from this server's uploads (to
// every allowed node when each node has its own storage, as PVE's `local`; once when it is
// shared), and removed. Errors are PVE's; the driver puts them in its own words.

export interface IsoStorageOptions {
  api: Pick<PveClient, 'get' | 'delete' | 'upload' | 'waitTask'>;
  inventory: Pick<Inventory, 'nodes'>;
  storage: string;
  /** Nodes machines may run on; empty: every online node. */
  nodes: readonly string[];
}

export function createIsoStorage(options: IsoStorageOptions) {
  const { api, storage } = options;
  const { usableNodes, copiesOn } = createStorageNodes(options);
  /** Where an ISO must be for every machine to mount it (storageNodes.ts). */
  const isoNodes = () => copiesOn(storage);

  /** The PVE volume name of an ISO path, refusing paths that are not `{tag}/x.iso`. */
  function isoVolume(path: string): { name: string; volid: string } {
    const volid = isoVolumeOf(storage, path);
    const name = volid.slice(volid.indexOf('iso/') + 4);
    if (!/^[^/]+__[^/]+\.iso$/i.test(name)) {
      throw new DriverError('invalid-request', `${path} is not an ISO path of a folder`);
    }
    return { name, volid };
  }

  async function storeIso(path: string, file: string): Promise<void> {
    const { name } = isoVolume(path);
    for (const node of await isoNodes()) {
      const upid = await api.upload<string>(
        `/nodes/${node}/storage/${storage}/upload`,
        { content: 'iso' },
        { field: 'filename', name, path: file },
      );
      await api.waitTask(upid);
    }
  }

  async function removeIso(path: string): Promise<void> {
    const { volid } = isoVolume(path);
    for (const node of await isoNodes()) {
      try {
        const upid = await api.delete<string | null>(
          `/nodes/${node}/storage/${storage}/content/${encodeURIComponent(volid)}`,
        );
        if (upid) await api.waitTask(upid);
      } catch (error) {
        // Not on that node (never copied there, or removed by hand): nothing to do.
        if (!(error instanceof PveError && error.kind === 'not-found')) throw error;
      }
    }
  }

  /** ISO paths a tag's machines may mount: the tag's and the public ones. */
  async function isoOptions(tag: string): Promise<string[]> {
    const node = (await usableNodes())[0];
    if (!node) return [];
    const content = await api.get<Array<{ volid: string }>>(
      `/nodes/${node}/storage/${storage}/content`,
      { content: 'iso' },
    );
    return content
      .map((c) => isoPathOf(c.volid))
      .filter((p): p is string => p !== null && [tag, EMPTY_TAG].includes(p.split('/')[0]!))
      .sort();
  }

  return { usableNodes, isoOptions, storeIso, removeIso };
}

export type IsoStorage = ReturnType<typeof createIsoStorage>;

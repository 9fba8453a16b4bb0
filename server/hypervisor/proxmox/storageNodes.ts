import { DriverError } from '../types';
import type { PveClient } from './client';
import type { Inventory } from './inventory';

// Where a file this server copies to a cluster storage (an ISO, a disk image to import) must be
// for every machine to use it: on one node when the storage is shared, on every allowed node when
// each has its own (PVE's `local`).

export interface StorageNodesOptions {
  api: Pick<PveClient, 'get'>;
  inventory: Pick<Inventory, 'nodes'>;
  /** Nodes machines may run on; empty: every online node. */
  nodes: readonly string[];
}

export function createStorageNodes(options: StorageNodesOptions) {
  const { api, inventory } = options;

  /** The allowed nodes that are online. */
  async function usableNodes(): Promise<string[]> {
    const allowed = options.nodes;
    return (await inventory.nodes())
      .filter((n) => n.status === 'online' && (allowed.length === 0 || allowed.includes(n.node)))
      .map((n) => n.node);
  }

  /** The nodes a file on `storage` must be copied to. */
  async function copiesOn(storage: string): Promise<string[]> {
    const nodes = await usableNodes();
    if (nodes.length === 0) {
      throw new DriverError('unavailable', 'no online Proxmox node is allowed to run machines');
    }
    const status = await api.get<{ shared?: number }>(
      `/nodes/${nodes[0]}/storage/${storage}/status`,
    );
    return status.shared ? nodes.slice(0, 1) : nodes;
  }

  return { usableNodes, copiesOn };
}

export type StorageNodes = ReturnType<typeof createStorageNodes>;

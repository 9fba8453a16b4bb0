import { realClock, type Clock } from '../clock';
import type { StockTemplateRepository } from '../store/repositories/stockTemplates';
import type { TemplateTable } from '../store/schema';
import { EMPTY_GUID, newId } from './ids';
import { serializeDetail, toVmTemplate } from './templateDetail';

// Stock templates: published, in no workspace, so every author can link them from the first
// start. Their disks live in the public folder; the hypervisor driver deploys them.

/** Marks a database whose stock templates were seeded, so deleting them all is not undone. */
export const STOCK_SEEDED_KEY = 'templates.stockSeeded';

export interface StockTemplate {
  name: string;
  description: string;
  networks: string;
  detail: Record<string, unknown>;
}

const disk = (file: string, size: number) => ({
  Path: `[ds] ${EMPTY_GUID}/${file}.vmdk`,
  Source: '',
  Controller: 'lsilogic',
  Size: size,
});

/**
 * The tiny Linux machine every driver can run: with the qemu driver, the stock image that
 * `npm run images` (or the first start) builds, booting to a shell prompt within seconds; with
 * the proxmox driver, a linked clone of the cluster's VM template `topoplay-tiny`.
 */
export const TINY_TEMPLATE: StockTemplate = {
  name: 'tiny-linux',
  description:
    'A tiny Linux machine that boots to a root shell in seconds: 1 CPU, 512 MB of memory, one ' +
    'network card. It prints its guest settings at boot. Good for trying a lab out.',
  networks: 'lan',
  detail: {
    Cpu: '1x1',
    Ram: 0,
    Guest: 'otherLinux64Guest',
    Adapters: 1,
    Eth: [{ Net: 'lan', Type: 'virtio' }],
    // The image's own name: the qemu driver finds it in its images folder.
    Disks: [{ Path: 'topoplay-tiny.qcow2', Source: '', Controller: 'virtio', Size: 1 }],
    // The Proxmox VM template the proxmox driver clones (docs/deploy.md says how to make it).
    Template: 'topoplay-tiny',
  },
};

/** Marks a database that got the tiny template (seeded apart: databases seeded before it). */
export const TINY_SEEDED_KEY = 'templates.stockSeeded.tiny';

export const STOCK_TEMPLATES: readonly StockTemplate[] = [
  {
    name: 'linux-server',
    description: 'A small Linux server: 1 CPU, 1 GB of memory, a 10 GB disk, one network card.',
    networks: 'lan',
    detail: {
      Cpu: '1x1',
      Ram: 1,
      Guest: 'ubuntu64Guest',
      Adapters: 1,
      Eth: [{ Net: 'lan', Type: 'vmxnet3' }],
      Disks: [disk('linux-server', 10)],
    },
  },
  {
    name: 'workstation',
    description: 'A Linux desktop workstation: 2 CPUs, 4 GB of memory, a 20 GB disk.',
    networks: 'lan',
    detail: {
      Cpu: '1x2',
      Ram: 4,
      VideoRam: 128,
      Guest: 'ubuntu64Guest',
      Adapters: 1,
      Eth: [{ Net: 'lan', Type: 'vmxnet3' }],
      Disks: [disk('workstation', 20)],
    },
  },
  {
    name: 'router',
    description: 'A router between two networks, lan and wan: 1 CPU, 1 GB of memory, a 2 GB disk.',
    networks: 'lan wan',
    detail: {
      Cpu: '1x1',
      Ram: 1,
      Guest: 'otherLinux64Guest',
      Adapters: 2,
      Eth: [
        { Net: 'lan', Type: 'vmxnet3' },
        { Net: 'wan', Type: 'vmxnet3' },
      ],
      Disks: [disk('router', 2)],
    },
  },
];

export function stockTemplateRow(stock: StockTemplate, now: number): TemplateTable {
  return {
    id: newId(),
    name: stock.name,
    description: stock.description,
    audience: '',
    iso: '',
    networks: stock.networks,
    guestinfo: '',
    isHidden: 0,
    isPublished: 1,
    isLinked: 0,
    detail: serializeDetail(toVmTemplate({ ...stock.detail, Name: stock.name })),
    parentId: null,
    replicas: 0,
    variant: 0,
    workspaceId: null,
    whenCreated: now,
  };
}

/**
 * Seeds the stock templates once per database: on its first start, or on the first start of a
 * database that already has users but was never seeded. Several servers starting together on one
 * database seed it once (the marker row's key is unique). Returns how many were added.
 */
export async function seedStockTemplates(
  stock: StockTemplateRepository,
  clock: Clock = realClock,
): Promise<number> {
  const now = clock.now();
  let added = 0;
  for (const [key, templates] of [
    [STOCK_SEEDED_KEY, STOCK_TEMPLATES],
    [TINY_SEEDED_KEY, [TINY_TEMPLATE]],
  ] as const) {
    if (await stock.isMarked(key)) continue;
    const seeded = await stock.seed(
      { key, value: String(now) },
      templates.map((s) => stockTemplateRow(s, now)),
    );
    if (seeded) added += templates.length;
  }
  return added;
}

import { realClock, type Clock } from '../clock';
import type { StockTemplateRepository } from '../store/repositories/stockTemplates';
import type { TemplateTable } from '../store/schema';
import { EMPTY_GUID, newId } from './ids';
import { parseDetail, serializeDetail, toVmTemplate } from './templateDetail';

// Stock templates: published, in no workspace, so every author can link them from the first
// start. Each names the images it is made from: for the qemu driver a file of its images folder
// (`npm run images` builds them), for the proxmox driver a VM template of the cluster
// (docs/deploy.md); the sim driver runs any of them.

/** Marks a database whose stock templates were seeded, so deleting them all is not undone. */
export const STOCK_SEEDED_KEY = 'templates.stockSeeded';

export interface StockTemplate {
  name: string;
  description: string;
  networks: string;
  detail: Record<string, unknown>;
}

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

/**
 * The Debian desktop (X with IceWM, xterm and Mousepad), whose clipboard the browser's console
 * shares: with the qemu driver, the image `debian-desktop.qcow2` that `npm run images` builds;
 * with the proxmox driver, a linked clone of the cluster's VM template `topoplay-debian-desktop`.
 */
export const DESKTOP_TEMPLATE: StockTemplate = {
  name: 'linux-desktop',
  description:
    'A Debian 12 desktop: IceWM, a terminal and a text editor; copy and paste with your own ' +
    'computer: 2 CPUs, 2 GB of memory, a 4 GB disk, one network card.',
  networks: 'lan',
  detail: {
    Cpu: '1x2',
    Ram: 2,
    Guest: 'debian12_64Guest',
    Adapters: 1,
    Eth: [{ Net: 'lan', Type: 'virtio' }],
    // The image's own name: the qemu driver finds it in its images folder.
    Disks: [{ Path: 'debian-desktop.qcow2', Source: '', Controller: 'virtio', Size: 4 }],
    // The Proxmox VM template the proxmox driver clones (docs/deploy.md says how to make it).
    Template: 'topoplay-debian-desktop',
  },
};

/** Marks a database that got the desktop template (seeded apart: databases seeded before it). */
export const DESKTOP_SEEDED_KEY = 'templates.stockSeeded.desktop';

/** The Debian machine of the qemu images folder (`npm run images`) and its Proxmox VM template. */
const debianDisk = (size: number) => ({
  // The image's own name: the qemu driver finds it in its images folder.
  Disks: [{ Path: 'debian-12.qcow2', Source: '', Controller: 'virtio', Size: size }],
  // The Proxmox VM template the proxmox driver clones (docs/deploy.md says how to make it).
  Template: 'topoplay-debian-12',
});

export const STOCK_TEMPLATES: readonly StockTemplate[] = [
  {
    name: 'linux-server',
    description:
      'A small Debian 12 server: 1 CPU, 1 GB of memory, a 4 GB disk, one network card, SSH.',
    networks: 'lan',
    detail: {
      Cpu: '1x1',
      Ram: 1,
      Guest: 'debian12_64Guest',
      Adapters: 1,
      Eth: [{ Net: 'lan', Type: 'virtio' }],
      ...debianDisk(4),
    },
  },
  {
    name: 'workstation',
    description: 'A Debian 12 workstation: 2 CPUs, 4 GB of memory, a 4 GB disk, one network card.',
    networks: 'lan',
    detail: {
      Cpu: '1x2',
      Ram: 4,
      VideoRam: 128,
      Guest: 'debian12_64Guest',
      Adapters: 1,
      Eth: [{ Net: 'lan', Type: 'virtio' }],
      ...debianDisk(4),
    },
  },
  {
    name: 'router',
    description:
      'A router between two networks, lan and wan: 1 CPU, 1 GB of memory, a 2 GB disk. It ' +
      'serves DHCP on lan and forwards lan to wan.',
    networks: 'lan wan',
    detail: {
      Cpu: '1x1',
      Ram: 1,
      Guest: 'debian12_64Guest',
      Adapters: 2,
      // Its first NIC faces lan, its second wan: the image is made so.
      Eth: [
        { Net: 'lan', Type: 'virtio' },
        { Net: 'wan', Type: 'virtio' },
      ],
      Disks: [{ Path: 'router.qcow2', Source: '', Controller: 'virtio', Size: 2 }],
      Template: 'topoplay-router',
    },
  },
];

/**
 * Marks a database whose stock templates name the real images (STOCK_TEMPLATES above): those
 * seeded before named placeholder disks that no driver had, and are rewritten once, when no one
 * changed them.
 */
export const STOCK_IMAGES_KEY = 'templates.stockSeeded.images';

const placeholderDisk = (file: string, size: number) => ({
  Path: `[ds] ${EMPTY_GUID}/${file}.vmdk`,
  Source: '',
  Controller: 'lsilogic',
  Size: size,
});

/** The stock templates as first seeded, with placeholder disks: rows still so are rewritten. */
export const PLACEHOLDER_STOCK_TEMPLATES: readonly StockTemplate[] = [
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
      Disks: [placeholderDisk('linux-server', 10)],
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
      Disks: [placeholderDisk('workstation', 20)],
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
      Disks: [placeholderDisk('router', 2)],
    },
  },
];

/** A stock template's detail as stored. */
const detailOf = (stock: StockTemplate): string =>
  serializeDetail(toVmTemplate({ ...stock.detail, Name: stock.name }));

/** Detail text in the form the current code stores it; null when it does not parse. */
function normalized(detail: string | null): string | null {
  try {
    return detail ? serializeDetail(parseDetail(detail)) : null;
  } catch {
    return null;
  }
}

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
    detail: detailOf(stock),
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
    [DESKTOP_SEEDED_KEY, [DESKTOP_TEMPLATE]],
  ] as const) {
    if (await stock.isMarked(key)) continue;
    const seeded = await stock.seed(
      { key, value: String(now) },
      templates.map((s) => stockTemplateRow(s, now)),
    );
    if (seeded) added += templates.length;
  }
  await updateStockTemplates(stock, clock);
  return added;
}

/**
 * Once per database: the stock templates seeded with placeholder disks (PLACEHOLDER_STOCK_TEMPLATES)
 * get the real images' detail, and their description when it is the placeholder's too. Only a
 * stock row (no workspace) of a stock name whose detail is still the placeholder's is rewritten:
 * a template an administrator changed, and every workspace's copy, is left as it is; workspace
 * templates linked to a stock one follow it, as they deploy from its detail. Returns how many
 * were rewritten; several servers starting together rewrite them once (the marker's key is
 * unique).
 */
export async function updateStockTemplates(
  stock: StockTemplateRepository,
  clock: Clock = realClock,
): Promise<number> {
  if (await stock.isMarked(STOCK_IMAGES_KEY)) return 0;
  const placeholders = new Map(PLACEHOLDER_STOCK_TEMPLATES.map((p) => [p.name, p]));
  const current = new Map(STOCK_TEMPLATES.map((t) => [t.name, t]));
  const rows = await stock.stockNamed([...placeholders.keys()]);
  const changes = rows.flatMap((row) => {
    const placeholder = placeholders.get(row.name);
    const template = current.get(row.name);
    if (!placeholder || !template) return [];
    if (normalized(row.detail) !== normalized(detailOf(placeholder))) return [];
    const description =
      row.description === placeholder.description ? template.description : row.description;
    return [{ id: row.id, changes: { detail: detailOf(template), description } }];
  });
  const updated = await stock.update(
    { key: STOCK_IMAGES_KEY, value: String(clock.now()) },
    changes,
  );
  return updated ? changes.length : 0;
}

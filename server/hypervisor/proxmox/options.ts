import type { Clock } from '../../clock';
import type { ConsoleTickets } from '../types';
import type { PveClient } from './client';
import type { ProxmoxSnippets } from './cloudInit';

// What the proxmox driver is given: its cluster, where machines go, and its timings.

export interface ProxmoxDriverOptions {
  client: PveClient;
  /** Where clones and base image copies go. */
  storage: string;
  /** The storage whose `iso` content machines mount (flat: `{tag}__file.iso`). */
  isoStorage: string;
  /**
   * The storage with `import` content disk images are uploaded to and imported from
   * (PROXMOX_IMAGE_STORAGE); default: the ISO storage.
   */
  imageStorage?: string;
  /** This server's images folder (QEMU_IMAGES_DIR), where imported disk images are; null: none. */
  imagesDir?: string | null;
  /** The SDN zone of our vnets, and the tags (VNIs or VLAN ids) they take. */
  zone: string;
  vnetTags: readonly [number, number];
  /** Nodes machines may run on; empty: every online node. */
  nodes?: readonly string[];
  /** A resource pool our machines join; '' for none. */
  pool?: string;
  console?: ConsoleTickets;
  /** How long a listing of the cluster is reused. */
  listingMaxAgeMs?: number;
  /** SDN changes gather this long before they are applied. */
  sdnDebounceMs?: number;
  /** How often machines are checked for having stopped on their own while someone listens. */
  watchMs?: number;
  /** The first back-off of a clone that met a busy lock. */
  lockBackoffMs?: number;
  /**
   * A client signed in as root@pam (PROXMOX_ROOT_PASSWORD): guest settings then go to the guest
   * through QEMU's fw_cfg (the VM's `args`, which PVE lets only root@pam set) instead of the
   * guest agent.
   */
  rootClient?: PveClient;
  /**
   * A storage with `snippets` content and its folder on this server (PROXMOX_SNIPPETS_STORAGE,
   * PROXMOX_SNIPPETS_DIR): machines then get our own cloud-init user-data and network-config
   * (`cicustom`), which write every guest setting as a file in the guest. Null: PVE's own.
   */
  snippets?: ProxmoxSnippets | null;
  /** Where in the guest the guest agent writes a machine's guest settings. */
  guestSettingsFile?: string;
  /** How often the guest agent is asked whether it runs yet, and for how long. */
  agentPollMs?: number;
  agentGiveUpMs?: number;
  /**
   * When tasks and deploys start, what listing ages and give-up deadlines are measured by, and
   * the driver's own waits; the real one unless a test moves a manual one on.
   */
  clock?: Clock;
  log?: { warn(o: object, msg?: string): void; info?(o: object, msg?: string): void };
}

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fp from 'fastify-plugin';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { createConsoleTickets, type ConsoleTicketStore } from '../console/tickets';
import { createSimDriver, type ConsoleTickets, type HypervisorDriver } from '../hypervisor';
import { createPveClient, type PveClient } from '../hypervisor/proxmox/client';
import {
  createProxmoxDriver,
  type ProxmoxDriverOptions,
} from '../hypervisor/proxmox/proxmoxDriver';
import { createQemuDriver } from '../hypervisor/qemu/qemuDriver';
import { buildTinyImage } from '../hypervisor/qemu/tinyImage';
import type { Db } from '../store/db';
import { createSimMachineStore } from '../store/simMachineStore';

// The hypervisor driver (HYPERVISOR), with the one-time tickets of the consoles this server
// serves itself. Its tasks run on the settings' clock. The wiring is here, not in
// server/hypervisor: a driver knows nothing of the store, so what it persists through is built
// here and handed to it.

declare module 'fastify' {
  interface FastifyInstance {
    driver: HypervisorDriver;
    consoleTickets: ConsoleTicketStore;
  }
}

export interface DriverDeps {
  db: Db;
  /** The data folder: ISO files are under `{dataDir}/isos`. */
  dataDir: string;
  console?: ConsoleTickets;
  log?: { warn(o: object, msg?: string): void; info(o: object, msg?: string): void };
  /** The real one unless a test moves time on by hand. */
  clock?: Clock;
}

/** The hypervisor driver the configuration names (HYPERVISOR). */
export async function createDriver(config: Config, deps: DriverDeps): Promise<HypervisorDriver> {
  const { db, ...rest } = deps;
  switch (config.hypervisor) {
    case 'sim':
      return createSimDriver({ ...rest, store: createSimMachineStore(db), speed: config.simSpeed });
    case 'qemu': {
      const { imagesDir, stateDir, maxRunning, maxMemoryMiB, warmImages } = config.qemu;
      // The first start builds the tiny stock image (seconds, from Debian's packages), so that
      // its stock template deploys a working machine out of the box. A host that cannot build it
      // still runs the authors' own images: it is told why, and the tiny template's machines say
      // their disk is missing.
      try {
        await buildTinyImage(imagesDir, (line) => deps.log?.info({ imagesDir }, line));
      } catch (error) {
        deps.log?.warn({ err: error, imagesDir }, 'the tiny stock image could not be built');
      }
      return createQemuDriver({
        imagesDir,
        isosDir: join(deps.dataDir, 'isos'),
        stateDir,
        console: deps.console,
        maxRunning,
        // Unset: three quarters of the host's memory (the driver's default).
        maxMemoryMiB: maxMemoryMiB ?? undefined,
        warmImages,
        log: deps.log,
        clock: deps.clock,
      });
    }
    case 'proxmox': {
      const pve = config.proxmox;
      const driver = proxmoxDriverOf(pve, await proxmoxClientOf(pve), {
        console: deps.console,
        log: deps.log,
        clock: deps.clock,
        // The disk images an administrator imports, uploaded to the cluster on Initialize.
        imagesDir: config.qemu.imagesDir,
        // Root's password only signs in to set `args` (fw_cfg guest settings).
        rootClient: pve.rootPassword
          ? await proxmoxClientOf(pve, { username: 'root@pam', password: pve.rootPassword })
          : undefined,
      });
      // A cluster out of reach is said at start, but does not stop the server: the admin
      // dashboard and every machine call say so until it answers.
      await driver
        .ready()
        .catch((error: unknown) =>
          deps.log?.warn(
            { err: error, url: config.proxmox.url },
            'the Proxmox cluster is not ready',
          ),
        );
      return driver;
    }
  }
}

/** The PVE API client of the PROXMOX_* settings (the server's and `npm run check:proxmox`'s). */
export async function proxmoxClientOf(
  pve: Config['proxmox'],
  login?: { username: string; password: string },
): Promise<PveClient> {
  return createPveClient({
    url: pve.url,
    tokenId: pve.tokenId,
    tokenSecret: pve.tokenSecret,
    login,
    ca: pve.caFile ? await readFile(pve.caFile, 'utf8') : undefined,
    fingerprint: pve.fingerprint ?? undefined,
  });
}

/** The proxmox driver of the PROXMOX_* settings, on `client`. */
export function proxmoxDriverOf(
  pve: Config['proxmox'],
  client: PveClient,
  extras: Pick<
    ProxmoxDriverOptions,
    'console' | 'log' | 'pool' | 'rootClient' | 'clock' | 'imagesDir'
  > = {},
): HypervisorDriver {
  return createProxmoxDriver({
    client,
    storage: pve.storage,
    isoStorage: pve.isoStorage,
    zone: pve.zone,
    vnetTags: pve.vnetTags,
    nodes: pve.nodes,
    pool: pve.pool,
    snippets: pve.snippets,
    ...extras,
  });
}

export const hypervisorPlugin = fp(
  async (fastify) => {
    const { config } = fastify;
    const consoleTickets = createConsoleTickets(fastify.cache);
    const driver = await createDriver(config, {
      db: fastify.store.db,
      dataDir: config.dataDir,
      console: consoleTickets,
      log: fastify.log,
      clock: fastify.clock,
    });
    fastify.addHook('onClose', () => driver.close());
    fastify.decorate('driver', driver);
    fastify.decorate('consoleTickets', consoleTickets);
  },
  { name: 'hypervisor', dependencies: ['settings', 'store', 'cache'] },
);

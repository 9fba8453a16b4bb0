import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Db } from '../store/db';
import type { ConsoleTickets, HypervisorDriver } from './driver';
import { createSimDriver } from './sim/simDriver';

export type { HypervisorDriver } from './driver';

export interface DriverDeps {
  db: Db;
  /** The data folder: ISO files are under `{dataDir}/isos`. */
  dataDir: string;
  console?: ConsoleTickets;
  log?: { warn(o: object, msg?: string): void };
  /** The real one unless a test moves time on by hand. */
  clock?: Clock;
}

/** The hypervisor driver the configuration names (HYPERVISOR). */
export function createDriver(config: Config, deps: DriverDeps): HypervisorDriver {
  switch (config.hypervisor) {
    case 'sim':
      return createSimDriver({ ...deps, speed: config.simSpeed });
  }
}

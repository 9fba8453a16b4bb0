import type { HypervisorDriver } from '../../../server/hypervisor';
import { createPveClient } from '../../../server/hypervisor/proxmox/client';
import { createProxmoxDriver } from '../../../server/hypervisor/proxmox/proxmoxDriver';
import type { PveSimulator } from '../../pvesim/simulator';

/** The proxmox driver on the PVE API simulator, with its waits short enough for a test. */
export function proxmoxDriverOn(sim: PveSimulator): HypervisorDriver {
  return createProxmoxDriver({
    client: createPveClient({
      url: sim.url,
      tokenId: sim.tokenId,
      tokenSecret: sim.tokenSecret,
      ca: sim.ca ?? undefined,
      taskIntervalMs: 20,
    }),
    storage: 'local-lvm',
    isoStorage: 'local',
    zone: 'topoplay',
    vnetTags: [2000, 3999],
    sdnDebounceMs: 40,
    lockBackoffMs: 20,
    agentPollMs: 50,
  });
}

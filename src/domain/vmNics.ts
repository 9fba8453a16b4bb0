/** A machine's NICs as the server reports them: each NIC's 0-based index and its network. */
export interface NicReport {
  nics?: readonly { index: number; network: string }[] | null;
}

/** More NICs than any hypervisor gives a machine: an index past it is not believed. */
const MAX_NICS = 16;

/**
 * Each NIC's network in NIC order ('' for a gap), or null when the machine (or its nets) does not
 * say: a TopoMojo server sends no NICs.
 */
export function nicNetworks(report: NicReport | null): string[] | null {
  if (!report?.nics) return null;
  const networks: string[] = [];
  for (const nic of report.nics) {
    if (Number.isInteger(nic.index) && nic.index >= 0 && nic.index < MAX_NICS) {
      networks[nic.index] = nic.network;
    }
  }
  return Array.from(networks, (network) => network ?? '');
}

import type { Sdn } from './sdn';

// The bridges machines' NICs go on: our vnets for isolated networks, reserved vnets (those an
// admin made, outside our zone's naming) by their name or alias.

/** The names a privileged deploy may put a NIC on as they are: reserved vnets and aliases. */
export async function reservedNets(sdn: Sdn): Promise<string[]> {
  return (await sdn.reserved()).flatMap((v) => (v.alias ? [v.alias, v.vnet] : [v.vnet]));
}

/** The bridge of each network, our isolated ones created (if not yet applied) first. */
export async function bridgesOf(sdn: Sdn, nets: string[]): Promise<Map<string, string>> {
  const reserved = await sdn.reserved();
  const bridges = await sdn.ensure(nets.filter((n) => n.includes('#')));
  for (const v of reserved) {
    for (const name of [v.vnet, v.alias]) if (name) bridges.set(name, v.vnet);
  }
  return bridges;
}

/**
 * A workspace's machines and networks as a diagram (the Templates tab): every template is a
 * machine, every network name its templates list is a network, and each NIC a link between them.
 * A machine on two networks or more forwards between them: it is drawn as a router. Pure layout:
 * machines in a row at the top, each network a bus below them, a machine's line dropping to the
 * buses it joins.
 */

/**
 * What the diagram reads of a template, or of a machine of a gamespace: its networks as a
 * template's networks field (spec §3 Template) or as a list of names (the play page's
 * GameState.topology).
 */
export interface TopologyTemplate {
  name: string;
  networks: string | readonly string[];
}

export interface TopologyMachine {
  name: string;
  kind: 'machine' | 'router';
  /** The centre of the machine's box. */
  x: number;
  y: number;
  /** Its networks, in the order of its NICs. */
  networks: string[];
}

export interface TopologyNetwork {
  name: string;
  /** The bus runs from x1 to x2 at y. */
  x1: number;
  x2: number;
  y: number;
}

export interface TopologyLink {
  machine: string;
  network: string;
  x: number;
  y1: number;
  y2: number;
}

export interface Topology {
  width: number;
  height: number;
  machines: TopologyMachine[];
  networks: TopologyNetwork[];
  links: TopologyLink[];
}

/** Room for a machine's box and its name, and for a network's row and its label. */
export const TOPOLOGY_LAYOUT = {
  column: 150,
  boxHeight: 44,
  top: 16,
  firstBus: 110,
  row: 44,
  margin: 20,
  /** The network names sit left of the buses. */
  labelWidth: 90,
} as const;

/**
 * Network names as authors type them: separated by spaces, commas, semicolons or line breaks.
 * One NIC each, in order (the server deploys a machine's NICs from this list).
 */
export function networkNames(networks: string): string[] {
  return networks.split(/[\s,;]+/).filter(Boolean);
}

/** The networks a machine is on, each once, in the order of its NICs. */
export const networksOf = (networks: string | readonly string[]): string[] => [
  ...new Set(typeof networks === 'string' ? networkNames(networks) : networks.filter(Boolean)),
];

export function topologyOf(templates: readonly TopologyTemplate[]): Topology {
  const L = TOPOLOGY_LAYOUT;
  const networkNames = [...new Set(templates.flatMap((t) => networksOf(t.networks)))];
  const machines: TopologyMachine[] = templates.map((t, i) => {
    const networks = networksOf(t.networks);
    return {
      name: t.name,
      kind: networks.length > 1 ? 'router' : 'machine',
      x: L.margin + L.labelWidth + L.column * i + L.column / 2,
      y: L.top + L.boxHeight / 2,
      networks,
    };
  });
  const right = L.margin + L.labelWidth + L.column * Math.max(1, templates.length);
  const networks: TopologyNetwork[] = networkNames.map((name, i) => ({
    name,
    x1: L.margin + L.labelWidth,
    x2: right,
    y: L.firstBus + L.row * i,
  }));
  const busOf = new Map(networks.map((n) => [n.name, n]));
  const links: TopologyLink[] = machines.flatMap((m) =>
    m.networks.map((network) => ({
      machine: m.name,
      network,
      x: m.x,
      y1: m.y + L.boxHeight / 2,
      y2: busOf.get(network)?.y ?? m.y,
    })),
  );
  const lowest = networks.length > 0 ? networks[networks.length - 1]!.y : L.top + L.boxHeight;
  return { width: right + L.margin, height: lowest + L.margin, machines, networks, links };
}

/** One machine in words: `Router gw on lan, wan`. */
export function describeMachine(m: Pick<TopologyMachine, 'name' | 'kind' | 'networks'>): string {
  const where = m.networks.length === 0 ? 'on no network' : `on ${m.networks.join(', ')}`;
  return `${m.kind === 'router' ? 'Router' : 'Machine'} ${m.name} ${where}`;
}

/** The diagram in words, for those who do not see it. */
export function describeTopology(topology: Topology): string {
  if (topology.machines.length === 0) return 'No machines yet.';
  return topology.machines.map(describeMachine).join('; ').concat('.');
}

/** Each network and the machines on it, in the diagram's order: who can reach whom. */
export function machinesByNetwork(
  topology: Topology,
): Array<{ network: string; machines: string[] }> {
  return topology.networks.map((n) => ({
    network: n.name,
    machines: topology.machines.filter((m) => m.networks.includes(n.name)).map((m) => m.name),
  }));
}

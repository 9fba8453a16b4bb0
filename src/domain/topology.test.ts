import { describe, expect, it } from 'vitest';
import {
  describeTopology,
  machinesByNetwork,
  networksOf,
  TOPOLOGY_LAYOUT,
  topologyOf,
} from './topology';

const LAB = [
  { name: 'kali', networks: 'lan' },
  { name: 'router', networks: 'lan wan' },
  { name: 'web', networks: 'wan' },
  { name: 'notes', networks: '' },
];

describe('topologyOf', () => {
  it('draws every template as a machine, one on two networks or more as a router', () => {
    const { machines } = topologyOf(LAB);
    expect(machines.map((m) => [m.name, m.kind, m.networks])).toEqual([
      ['kali', 'machine', ['lan']],
      ['router', 'router', ['lan', 'wan']],
      ['web', 'machine', ['wan']],
      ['notes', 'machine', []],
    ]);
    // In a row, left to right, a column apart.
    expect(machines[1]!.x - machines[0]!.x).toBe(TOPOLOGY_LAYOUT.column);
    expect(new Set(machines.map((m) => m.y)).size).toBe(1);
  });

  it('draws each network once, as a bus below the machines spanning all of them', () => {
    const { networks, machines } = topologyOf(LAB);
    expect(networks.map((n) => n.name)).toEqual(['lan', 'wan']);
    for (const network of networks) {
      expect(network.y).toBeGreaterThan(machines[0]!.y);
      expect(network.x1).toBeLessThan(machines[0]!.x);
      expect(network.x2).toBeGreaterThan(machines[machines.length - 1]!.x);
    }
    expect(networks[1]!.y).toBeGreaterThan(networks[0]!.y);
  });

  it('links each NIC from its machine down to its network', () => {
    const { links, networks, machines } = topologyOf(LAB);
    expect(links.map((l) => `${l.machine}-${l.network}`)).toEqual([
      'kali-lan',
      'router-lan',
      'router-wan',
      'web-wan',
    ]);
    const wan = networks.find((n) => n.name === 'wan')!;
    const routerToWan = links.find((l) => l.machine === 'router' && l.network === 'wan')!;
    expect(routerToWan.x).toBe(machines[1]!.x);
    expect(routerToWan.y2).toBe(wan.y);
  });

  it('fits everything in its width and height', () => {
    const t = topologyOf(LAB);
    for (const m of t.machines) expect(m.x).toBeLessThan(t.width);
    for (const n of t.networks) {
      expect(n.x2).toBeLessThanOrEqual(t.width);
      expect(n.y).toBeLessThan(t.height);
    }
  });

  it('reads a networks field as the server deploys it: spaces, commas, semicolons; each once', () => {
    expect(networksOf('  lan   wan lan ')).toEqual(['lan', 'wan']);
    expect(networksOf('lan, dmz;wan\nlan')).toEqual(['lan', 'dmz', 'wan']);
    expect(networksOf('')).toEqual([]);
    // A game state's topology sends the names as a list.
    expect(networksOf(['lan', 'dmz', 'lan', ''])).toEqual(['lan', 'dmz']);
  });

  it('draws a game state topology (names as lists) as it draws templates', () => {
    const fromLists = topologyOf([
      { name: 'kali', networks: ['lan'] },
      { name: 'router', networks: ['lan', 'wan'] },
    ]);
    expect(fromLists).toEqual(
      topologyOf([
        { name: 'kali', networks: 'lan' },
        { name: 'router', networks: 'lan, wan' },
      ]),
    );
  });

  it('lists each network with the machines on it: who shares which network', () => {
    expect(machinesByNetwork(topologyOf(LAB))).toEqual([
      { network: 'lan', machines: ['kali', 'router'] },
      { network: 'wan', machines: ['router', 'web'] },
    ]);
  });

  it('says the diagram in words', () => {
    expect(describeTopology(topologyOf(LAB))).toBe(
      'Machine kali on lan; Router router on lan, wan; Machine web on wan; Machine notes on no network.',
    );
    expect(describeTopology(topologyOf([]))).toBe('No machines yet.');
  });
});

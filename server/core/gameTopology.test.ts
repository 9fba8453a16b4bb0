import { describe, expect, it } from 'vitest';
import {
  templateOfMachine,
  topologyOfMachines,
  topologyOfTemplates,
  type TemplateNetworks,
} from './gameTopology';

const row = (name: string, networks: string, extra: Partial<TemplateNetworks> = {}) => ({
  name,
  networks,
  isHidden: 0 as const,
  variant: 0,
  ...extra,
});

const LAB: TemplateNetworks[] = [
  row('kali', 'lan'),
  row('gw', 'lan, dmz;lan'),
  row('web_v1', 'dmz', { variant: 1 }),
  row('web_v2', 'wan', { variant: 2 }),
  row('grader', 'mgmt', { isHidden: 1 }),
];

describe('the topology a player sees', () => {
  it("finds a machine's template by the names machines take: replicas, variant suffix", () => {
    const byName = new Map(LAB.map((t) => [t.name, t.networks]));
    expect(templateOfMachine('kali_2', 0, byName)).toBe('lan');
    expect(templateOfMachine('web', 1, byName)).toBe('wan');
    expect(templateOfMachine('web_1', 0, byName)).toBe('dmz');
    expect(templateOfMachine('printer', 0, byName)).toBeUndefined();
  });

  it("puts each machine on its template's networks, each once, none for a machine of no template", () => {
    const machines = [{ name: 'gw' }, { name: 'kali_1' }, { name: 'web' }, { name: 'stray' }];
    expect(topologyOfMachines(machines, 1, LAB)).toEqual([
      { name: 'gw', networks: ['lan', 'dmz'] },
      { name: 'kali_1', networks: ['lan'] },
      { name: 'web', networks: ['wan'] },
      { name: 'stray', networks: [] },
    ]);
  });

  it("before the machines, draws the variant's visible templates, never a hidden one", () => {
    expect(topologyOfTemplates(LAB, 0)).toEqual([
      { name: 'gw', networks: ['lan', 'dmz'] },
      { name: 'kali', networks: ['lan'] },
      { name: 'web', networks: ['dmz'] },
    ]);
  });

  it('for a preview, whose variant is not drawn yet, draws every variant, each name once', () => {
    const names = topologyOfTemplates(LAB, null).map((n) => n.name);
    expect(names).toEqual(['gw', 'kali', 'web']);
    expect(JSON.stringify(topologyOfTemplates(LAB, null))).not.toContain('mgmt');
  });
});

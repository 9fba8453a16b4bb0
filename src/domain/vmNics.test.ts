import { describe, expect, it } from 'vitest';
import { nicNetworks, type NicReport } from './vmNics';

const VM: NicReport & Record<string, string> = {
  id: 'vm-1',
  name: 'web-01#ws-1',
  status: 'deployed',
  state: 'running',
};

describe('nicNetworks', () => {
  it("reads each NIC's network in NIC order from our own field", () => {
    const vm = {
      ...VM,
      nics: [
        { index: 1, network: 'wan#ws-1' },
        { index: 0, network: 'lan#ws-1' },
        { index: 3, network: '' },
      ],
    };
    expect(nicNetworks(vm)).toEqual(['lan#ws-1', 'wan#ws-1', '', '']);
  });

  it('says nothing for a machine without the field, as a TopoMojo server sends it', () => {
    expect(nicNetworks(VM)).toBeNull();
    expect(nicNetworks({ ...VM, nics: null })).toBeNull();
    expect(nicNetworks(null)).toBeNull();
  });

  it('does not believe an index past any real machine', () => {
    expect(nicNetworks({ ...VM, nics: [{ index: 1_000_000, network: 'lan' }] })).toEqual([]);
  });
});

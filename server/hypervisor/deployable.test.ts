import { describe, expect, it } from 'vitest';
import { serializeDetail, toVmTemplate } from '../core/templates';
import { EMPTY_GUID } from '../core/ids';
import {
  guestSettings,
  networkNames,
  toDeployable,
  withNetworks,
  type DeployableSource,
} from './deployable';

const parentDetail = serializeDetail(
  toVmTemplate({
    Name: 'router',
    Cpu: '1x1',
    Ram: 1,
    AutoStart: true,
    HostAffinity: false,
    UseUplinkSwitch: false,
    Iso: 'parent.iso',
    Eth: [
      { Id: 0, Net: 'lan', Type: 'vmxnet3', Mac: '00:11' },
      { Id: 1, Net: 'wan', Type: 'e1000' },
    ],
    Disks: [{ Path: `[ds] ${EMPTY_GUID}/router.vmdk`, Source: '', Size: 2 }],
    GuestSettings: [{ Key: 'guestinfo.base', Value: '1' }],
  }),
);

const source = (overrides: Partial<DeployableSource['template']> = {}): DeployableSource => ({
  template: {
    id: 'tpl1',
    name: 'router-123',
    iso: '',
    networks: '',
    guestinfo: '',
    detail: null,
    isLinked: 1,
    ...overrides,
  },
  parentDetail,
  tag: 'ws1',
  workspace: { hostAffinity: 0, useUplinkSwitch: 0 },
});

describe('toDeployable', () => {
  it('takes a linked template from its parent with its own id, name, tag and iso', () => {
    const vm = toDeployable(source({ iso: 'ws1/tools.iso' }));
    expect(vm).toMatchObject({
      Id: 'tpl1',
      Name: 'router-123',
      IsolationTag: 'ws1',
      Iso: 'ws1/tools.iso',
      Cpu: '1x1',
      Ram: 1,
    });
    expect(vm.Disks[0]?.Path).toBe(`[ds] ${EMPTY_GUID}/router.vmdk`);
  });

  it('sets the iso from the template even when empty', () => {
    expect(toDeployable(source()).Iso).toBe('');
  });

  it('uses the template own detail when unlinked, the parent one when it has none', () => {
    const own = serializeDetail(
      toVmTemplate({ Cpu: '2x2', Disks: [{ Path: '[ds] ws1/x_0.vmdk' }] }),
    );
    expect(toDeployable(source({ isLinked: 0, detail: own })).Cpu).toBe('2x2');
    expect(toDeployable(source({ isLinked: 0, detail: null })).Cpu).toBe('1x1');
    // A linked template ignores a stale detail of its own.
    expect(toDeployable(source({ isLinked: 1, detail: own })).Cpu).toBe('1x1');
  });

  it('falls back to the default machine when neither the template nor a parent has a detail', () => {
    const vm = toDeployable({ ...source({ isLinked: 0 }), parentDetail: null });
    expect(vm.Eth.map((e) => e.Net)).toEqual(['lan']);
    expect(vm.Disks).toHaveLength(1);
  });

  it('keeps the detail NICs when networks is empty', () => {
    const vm = toDeployable(source());
    expect(vm.Eth.map((e) => [e.Net, e.Type])).toEqual([
      ['lan', 'vmxnet3'],
      ['wan', 'e1000'],
    ]);
  });

  it('rewrites the NICs to the networks: extra ones cloned from the first type', () => {
    const vm = toDeployable(source({ networks: 'inside, outside;dmz\ttest\nlast' }));
    expect(vm.Eth.map((e) => [e.Net, e.Type])).toEqual([
      ['inside', 'vmxnet3'],
      ['outside', 'e1000'],
      ['dmz', 'vmxnet3'],
      ['test', 'vmxnet3'],
      ['last', 'vmxnet3'],
    ]);
    expect(vm.Eth[0]?.Mac).toBe('00:11');
    expect(vm.Eth[4]?.Id).toBe(4);
  });

  it('removes surplus NICs', () => {
    const vm = toDeployable(source({ networks: 'only' }));
    expect(vm.Eth.map((e) => e.Net)).toEqual(['only']);
  });

  it('appends guest settings with the guestinfo prefix, skipping comments and empty entries', () => {
    const vm = toDeployable(
      source({ guestinfo: 'user=alice; guestinfo.pass = s3cret\n#skip=1;;\r\nnoequals\nurl=a=b' }),
    );
    expect(vm.GuestSettings).toEqual([
      { Key: 'guestinfo.base', Value: '1' },
      { Key: 'guestinfo.user', Value: 'alice' },
      { Key: 'guestinfo.pass', Value: 's3cret' },
      { Key: 'guestinfo.url', Value: 'a=b' },
    ]);
  });

  it('takes the uplink switch and host affinity from the workspace', () => {
    const plain = toDeployable(source());
    expect(plain).toMatchObject({ UseUplinkSwitch: false, HostAffinity: false, AutoStart: true });
    const together = toDeployable({
      ...source(),
      workspace: { hostAffinity: 1, useUplinkSwitch: 1 },
    });
    expect(together).toMatchObject({ UseUplinkSwitch: true, HostAffinity: true, AutoStart: false });
  });

  it('keeps the detail flags for a stock template (no workspace)', () => {
    const vm = toDeployable({ ...source(), tag: EMPTY_GUID, workspace: null });
    expect(vm).toMatchObject({ IsolationTag: EMPTY_GUID, AutoStart: true, HostAffinity: false });
  });
});

describe('the pieces', () => {
  it('split network names on every separator', () => {
    expect(networkNames(' a ,b;;c\n\td ')).toEqual(['a', 'b', 'c', 'd']);
    expect(networkNames('')).toEqual([]);
  });

  it('leave the NIC list alone without names', () => {
    const eth = toVmTemplate({ Eth: [{ Net: 'x', Type: 't' }] }).Eth;
    expect(withNetworks(eth, [])).toBe(eth);
  });

  it('give a template without NICs typeless new ones', () => {
    expect(withNetworks([], ['a'])).toEqual([
      { Id: 0, Net: 'a', Key: null, Type: null, Mac: null, Ip: null, Vlan: 0 },
    ]);
  });

  it('parse no guest settings from an empty text', () => {
    expect(guestSettings('')).toEqual([]);
    expect(guestSettings('=value')).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { serializeDetail, toVmTemplate } from './templates';
import { EMPTY_GUID } from './ids';
import {
  cpuOf,
  DEFAULT_MEMORY_MIB,
  guestSettings,
  networkNames,
  toDeployable,
  toMachineSpec,
  withNetworks,
  type DeployableSource,
} from './machineSpecs';

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

describe('toMachineSpec', () => {
  const template = toVmTemplate({
    Id: 't1',
    Name: 'kali',
    IsolationTag: 'gs1',
    Cpu: '2x4',
    Ram: 2,
    Guest: 'debian10_64Guest',
    Iso: 'ws1/tools.iso:Tools',
    Delay: 30,
    AutoStart: true,
    HostAffinity: true,
    UseUplinkSwitch: true,
    Template: 'kali-t1',
    ParentTemplate: 'kali-base',
    Eth: [
      { Id: 0, Net: 'lan', Type: 'e1000' },
      { Id: 0, Net: 'wan', Mac: '00:50:56:00:00:01' },
    ],
    Disks: [{ Path: '[ds] ws1/kali.vmdk', Source: '[ds] stock/kali.vmdk', Size: 40 }],
    GuestSettings: [
      { Key: 'guestinfo.flag', Value: 'abc' },
      { Key: '', Value: 'dropped' },
      { Key: 'guestinfo.empty', Value: null },
    ],
  });

  it('normalizes CPU, memory, disks, NICs, guest settings, ISO and flags', () => {
    expect(toMachineSpec(template)).toEqual({
      templateId: 't1',
      name: 'kali',
      isolationTag: 'gs1',
      cpu: { sockets: 2, coresPerSocket: 4 },
      memoryMiB: 2048,
      guestOs: 'debian10_64Guest',
      disks: [
        {
          index: 0,
          path: '[ds] ws1/kali.vmdk',
          source: '[ds] stock/kali.vmdk',
          controller: null,
          sizeGiB: 40,
        },
      ],
      nics: [
        { index: 0, network: 'lan', adapter: 'e1000', mac: null },
        { index: 1, network: 'wan', adapter: null, mac: '00:50:56:00:00:01' },
      ],
      guestSettings: [
        { key: 'guestinfo.flag', value: 'abc' },
        { key: 'guestinfo.empty', value: '' },
      ],
      iso: 'ws1/tools.iso',
      bootDelaySeconds: 30,
      autoStart: true,
      hostAffinity: true,
      useUplink: true,
      baseImage: 'kali-t1',
      baseImageSource: 'kali-base',
    });
  });

  it('gives a template without memory the default, and without an ISO none', () => {
    const spec = toMachineSpec({ ...template, Ram: 0, Iso: '' });
    expect(spec.memoryMiB).toBe(DEFAULT_MEMORY_MIB);
    expect(spec.iso).toBeNull();
    const plain = toMachineSpec({ ...template, Template: null, ParentTemplate: '' });
    expect([plain.baseImage, plain.baseImageSource]).toEqual([null, null]);
    expect(toMachineSpec({ ...template, Ram: -1, Iso: null }).memoryMiB).toBe(DEFAULT_MEMORY_MIB);
  });

  it('boots UEFI when the detail says Firmware uefi or the reference’s firmware=efi', () => {
    expect(toMachineSpec(template).firmware).toBeUndefined();
    const own = toVmTemplate({ ...template, Firmware: 'UEFI' });
    expect(toMachineSpec(own).firmware).toBe('uefi');
    // Written only when set: other details keep the reference's shape.
    expect(JSON.parse(serializeDetail(own))).toMatchObject({ Firmware: 'UEFI' });
    expect(JSON.parse(serializeDetail(template))).not.toHaveProperty('Firmware');
    const reference = toVmTemplate({
      ...template,
      GuestSettings: [{ Key: 'firmware', Value: 'efi' }],
    });
    expect(toMachineSpec(reference).firmware).toBe('uefi');
    expect(toMachineSpec({ ...reference, Firmware: 'bios' }).firmware).toBeUndefined();
  });

  it('reads the CPU as sockets x cores, one core when it cannot', () => {
    expect(cpuOf('1x2')).toEqual({ sockets: 1, coresPerSocket: 2 });
    expect(cpuOf('4')).toEqual({ sockets: 4, coresPerSocket: 1 });
    expect(cpuOf('many')).toEqual({ sockets: 1, coresPerSocket: 1 });
    expect(cpuOf(null)).toEqual({ sockets: 1, coresPerSocket: 1 });
  });
});

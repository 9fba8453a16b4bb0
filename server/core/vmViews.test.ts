import { describe, expect, it } from 'vitest';
import { SIM_CAPABILITIES, type DriverCapabilities, type Machine } from '../hypervisor';
import {
  hubActionOf,
  hypervisorTypeOf,
  isoPathOf,
  parseChange,
  parseNetChange,
  vmDto,
} from './vmViews';

const machine: Machine = {
  id: 'm1',
  name: 'kali#gs1',
  host: 'sim',
  path: '[sim] gs1/kali',
  reference: '',
  diskPath: '',
  stats: 'deployed | running',
  status: 'deployed',
  state: 'running',
  question: null,
  task: { id: 't1', name: 'starting', progress: 40, started: Date.UTC(2024, 0, 2, 3, 4, 5) },
  tags: null,
  isTemplate: false,
  nics: [{ index: 0, network: 'lan#gs1' }],
};

const withRevert: DriverCapabilities = {
  ...SIM_CAPABILITIES,
  kind: 'qemu',
  operations: ['start', 'stop', 'save', 'revert', 'delete', 'reset'],
  liveNicChange: false,
};

describe('the Vm DTO', () => {
  it('carries the machine, its task start as ISO text, and what the driver can do', () => {
    expect(vmDto(machine, SIM_CAPABILITIES)).toMatchObject({
      id: 'm1',
      name: 'kali#gs1',
      groupName: '',
      task: {
        id: 't1',
        name: 'starting',
        progress: 40,
        whenCreated: '2024-01-02T03:04:05.000+00:00',
      },
      hypervisorType: 'proxmox',
      operations: ['start', 'stop', 'save', 'delete', 'reset'],
      nics: [{ index: 0, network: 'lan#gs1' }],
      capabilities: { isoChange: true, netChange: true, guestChange: true },
    });
  });

  it("keeps hypervisorType to the reference's two kinds", () => {
    expect(hypervisorTypeOf(SIM_CAPABILITIES)).toBe('proxmox');
    expect(hypervisorTypeOf(withRevert)).toBe('vsphere');
    expect(hypervisorTypeOf({ ...withRevert, kind: 'proxmox' })).toBe('proxmox');
    expect(vmDto(machine, withRevert).capabilities.netChange).toBe(false);
  });

  it('publishes driver events under the hub actions of the reference', () => {
    expect(hubActionOf({ type: 'deployed', machine })).toBe('VM.DEPLOY');
    expect(hubActionOf({ type: 'updated', machine })).toBe('VM.UPDATE');
    expect(hubActionOf({ type: 'started', machine })).toBe('VM.START');
    expect(hubActionOf({ type: 'stopped', machine })).toBe('VM.STOP');
    expect(hubActionOf({ type: 'deleted', machine })).toBe('VM.DELETE');
  });
});

describe('wire changes', () => {
  it('reads a net change as netName[:index], _none_ or empty disconnecting', () => {
    expect(parseNetChange('lan#ws1:1')).toEqual({ net: 'lan#ws1', index: 1 });
    expect(parseNetChange('lan#ws1')).toEqual({ net: 'lan#ws1', index: 0 });
    expect(parseNetChange('lan#ws1:Network adapter')).toEqual({ net: 'lan#ws1', index: 0 });
    expect(parseNetChange('_none_:2')).toEqual({ net: '', index: 2 });
    expect(parseNetChange('')).toEqual({ net: '', index: 0 });
  });

  it('drops the label of an ISO change', () => {
    expect(isoPathOf('ws1/tools.iso:Tools')).toBe('ws1/tools.iso');
    expect(isoPathOf('ws1/tools.iso')).toBe('ws1/tools.iso');
  });

  it('parses every key into the driver’s change', () => {
    expect(parseChange({ key: 'iso', value: 'ws1/a.iso:A' })).toEqual({
      kind: 'iso',
      path: 'ws1/a.iso',
    });
    expect(parseChange({ key: 'eth', value: 'wan#t:1' })).toEqual({
      kind: 'net',
      nic: 1,
      network: 'wan#t',
    });
    expect(parseChange({ key: 'boot', value: '10' })).toEqual({ kind: 'boot', delaySeconds: 10 });
    expect(parseChange({ key: 'guest', value: 'guestinfo.a = 1' })).toEqual({
      kind: 'guest',
      key: 'guestinfo.a',
      value: '1',
    });
  });

  it('refuses an unknown key and a boot delay that is no number, as InvalidOperation', () => {
    expect(() => parseChange({ key: 'colour', value: 'blue' })).toThrow(
      'InvalidOperation unknown configuration key colour',
    );
    expect(() => parseChange({ key: 'boot', value: 'soon' })).toThrow(
      'InvalidOperation boot delay is not a number',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { isoPathOf } from '../driver';
import { isolatedNet, netOptions, parseNetChange, withNet } from './networks';

describe('sim networks', () => {
  const reserved = ['bridge-net'];

  it('tags a net with the isolation tag, re-tagging a net tagged for another lab', () => {
    expect(isolatedNet('lan', 'gs1', false, reserved)).toBe('lan#gs1');
    expect(isolatedNet('lan#ws1', 'gs1', false, reserved)).toBe('lan#gs1');
    expect(isolatedNet(null, 'gs1', false, reserved)).toBe('');
  });

  it('leaves a reserved net shared for privileged deploys only', () => {
    expect(isolatedNet('bridge-net', 'ws1', true, reserved)).toBe('bridge-net');
    expect(isolatedNet('bridge-net', 'gs1', false, reserved)).toBe('bridge-net#gs1');
    expect(isolatedNet('lan', 'ws1', true, reserved)).toBe('lan#ws1');
  });

  it('reads a net change as netName[:index], _none_ or empty disconnecting', () => {
    expect(parseNetChange('lan#ws1:1')).toEqual({ net: 'lan#ws1', index: 1 });
    expect(parseNetChange('lan#ws1')).toEqual({ net: 'lan#ws1', index: 0 });
    expect(parseNetChange('lan#ws1:Network adapter')).toEqual({ net: 'lan#ws1', index: 0 });
    expect(parseNetChange('_none_:2')).toEqual({ net: '', index: 2 });
    expect(parseNetChange('')).toEqual({ net: '', index: 0 });
  });

  it('sets one NIC and refuses a NIC the machine does not have', () => {
    expect(withNet(['a', 'b'], 1, 'c')).toEqual(['a', 'c']);
    expect(() => withNet(['a'], 1, 'c')).toThrow('InvalidOperation');
  });

  it('drops the label of an ISO change', () => {
    expect(isoPathOf('ws1/tools.iso:Tools')).toBe('ws1/tools.iso');
    expect(isoPathOf('ws1/tools.iso')).toBe('ws1/tools.iso');
  });

  it("offers reserved nets and the tag's own nets, sorted, once each", () => {
    expect(
      netOptions(reserved, ['lan#t', 'wan#t', 'lan#t', 'bridge-net', '', 'lan#u'], 't'),
    ).toEqual(['bridge-net', 'lan#t', 'wan#t']);
  });
});

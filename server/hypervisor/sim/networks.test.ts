import { describe, expect, it } from 'vitest';
import { isolatedNet } from '../types';
import { netOptions, withNet } from './networks';

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

  it('sets one NIC and refuses a NIC the machine does not have', () => {
    expect(withNet(['a', 'b'], 1, 'c')).toEqual(['a', 'c']);
    expect(() => withNet(['a'], 1, 'c')).toThrow(
      expect.objectContaining({ code: 'invalid-request', message: 'no NIC 1' }),
    );
  });

  it("offers reserved nets and the tag's own nets, sorted, once each", () => {
    expect(
      netOptions(reserved, ['lan#t', 'wan#t', 'lan#t', 'bridge-net', '', 'lan#u'], 't'),
    ).toEqual(['bridge-net', 'lan#t', 'wan#t']);
  });
});

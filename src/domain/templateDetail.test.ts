import { describe, expect, it } from 'vitest';
import { templateDetailProblem, templateDetailProblems } from './templateDetail';

const good = {
  Cpu: '1x2',
  Ram: 4,
  Eth: [{ Net: 'lan', Type: 'e1000', Key: null }],
  Disks: [{ Path: '[ds] 0000/box.vmdk', Controller: 'lsilogic', Size: 10 }],
  GuestSettings: null,
};

const problems = (value: unknown) => templateDetailProblems(JSON.stringify(value));

describe('template detail rule', () => {
  it('accepts an empty detail, which the server replaces by the default', () => {
    expect(templateDetailProblems('  ')).toEqual([]);
    expect(templateDetailProblem('')).toBeNull();
  });

  it('accepts a complete VmTemplate, with property names in any case and nulls', () => {
    expect(problems(good)).toEqual([]);
    expect(problems({ cpu: '2', RAM: 1, disks: [{ path: '[ds] a/b.vmdk' }] })).toEqual([]);
  });

  it('names the JSON syntax error', () => {
    const [message] = templateDetailProblems('{"Ram": 4,}');
    expect(message).toMatch(/^Detail is not valid JSON: /);
  });

  it('refuses JSON that is not an object', () => {
    expect(problems([good])).toEqual(['Detail must be a JSON object (a VmTemplate)']);
    expect(problems('text')).toEqual(['Detail must be a JSON object (a VmTemplate)']);
  });

  it('names a misspelt property, which the deploy would silently ignore', () => {
    expect(problems({ ...good, Dsks: [] })).toEqual([
      expect.stringMatching(/^"Dsks" is not a property \(expected Id, .*Disks/),
    ]);
    expect(problems({ ...good, Eth: [{ Network: 'lan' }] })[0]).toMatch(
      /^Eth\[0\]\."Network" is not a property/,
    );
  });

  it('ignores names the deploy does not read when asked to, as the server and TopoMojo do', () => {
    const ignored = (value: unknown) => templateDetailProblems(JSON.stringify(value), 'ignored');
    expect(ignored({ ...good, Dsks: [], Eth: [{ Network: 'lan' }] })).toEqual([]);
    expect(ignored({ ...good, Ram: 0, Extra: true })).toEqual(['Ram must be at least 1 (GB)']);
  });

  it('names a value of the wrong type with its path', () => {
    expect(problems({ ...good, Ram: '4GB' })).toEqual(['Ram must be a whole number, not "4GB"']);
    expect(problems({ ...good, AutoStart: 'yes' })).toEqual([
      'AutoStart must be true or false, not "yes"',
    ]);
    expect(problems({ ...good, Disks: [{ Path: 'p', Size: -1 }] })).toEqual([
      'Disks[0].Size must be a whole number, not -1',
    ]);
    expect(problems({ ...good, Eth: ['lan'] })).toEqual(['Eth[0] must be an object']);
    expect(problems({ ...good, Disks: {} })).toEqual(['Disks must be a list, not {}']);
  });

  it('refuses what the hypervisor cannot deploy: CPU format, no memory, a disk without path or size', () => {
    expect(problems({ ...good, Cpu: 'two' })).toEqual([
      'Cpu must be sockets x cores, such as "1x2", not "two"',
    ]);
    expect(problems({ ...good, Ram: 0 })).toEqual(['Ram must be at least 1 (GB)']);
    expect(problems({ ...good, Disks: [{ Path: ' ', Size: 0 }] })).toEqual([
      'Disks[0].Path is required, such as "[ds] folder/disk.vmdk", or a Size (GB) for an empty disk',
    ]);
    // A size and no path: an empty disk, to install a system on from an ISO.
    expect(problems({ ...good, Disks: [{ Path: '', Size: 10 }] })).toEqual([]);
    expect(problems({ ...good, Firmware: 'uefi' })).toEqual([]);
  });

  it('joins several problems into one message', () => {
    expect(templateDetailProblem(JSON.stringify({ Ram: 'x', Cpu: 3 }))).toBe(
      'Ram must be a whole number, not "x"; Cpu must be a string, not 3',
    );
  });
});

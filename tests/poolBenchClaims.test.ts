import { describe, expect, it } from 'vitest';
import type { PlayerRun, Snapshot } from './bench/launch';
import { checkClaims } from './bench/poolClaims';

// bench:pool fails on a double claim: its check, on starts made up to have one.

const machine = (id: string, template: string, tag: string) => ({
  id,
  name: `${template}#${tag}`,
  tag,
  state: 'running',
  nics: JSON.stringify([`lan#${tag}`]),
});
const pair = (a: string, b: string, tag: string) => [
  machine(a, 'server', tag),
  machine(b, 'workstation', tag),
];
const run = (gamespaceId: string, vmIds: string[]): PlayerRun => ({
  gamespaceId,
  vmIds,
  answeredMs: 1,
  runningMs: 1,
});

/** Two ready sets, s1 (m1, m2) and s2 (m3, m4); s0 was claimed in an earlier start. */
const before: Snapshot = {
  sets: [
    { id: 's0', state: 'claimed', claimedBy: 'g0' },
    { id: 's1', state: 'ready', claimedBy: '' },
    { id: 's2', state: 'ready', claimedBy: '' },
  ],
  machines: [...pair('m1', 'm2', 's1'), ...pair('m3', 'm4', 's2')],
};

describe("bench:pool's check of a pooled start", () => {
  it('tells sets ready before the start, sets warmed during it and deploys apart', () => {
    const after: Snapshot = {
      sets: [
        { id: 's0', state: 'claimed', claimedBy: 'g0' },
        { id: 's1', state: 'claimed', claimedBy: 'g1' },
        { id: 's2', state: 'claimed', claimedBy: 'g2' },
        { id: 's3', state: 'claimed', claimedBy: 'g3' },
      ],
      machines: [...pair('m1', 'm2', 'g1'), ...pair('m3', 'm4', 'g2'), ...pair('m5', 'm6', 'g3')],
    };
    const runs = [run('g1', ['m1', 'm2']), run('g2', ['m4', 'm3']), run('g3', ['m5', 'm6'])];
    const afterWithDeploy = { ...after, machines: [...after.machines, ...pair('m7', 'm8', 'g4')] };
    const check = checkClaims(before, afterWithDeploy, [...runs, run('g4', ['m7', 'm8'])]);
    expect(check.problems).toEqual([]);
    expect([...check.pooled]).toEqual(['g1', 'g2']);
    expect([...check.late]).toEqual(['g3']);
    expect(check.claims).toBe(3);
  });

  it("fails when one set's machines were handed to two gamespaces", () => {
    // s1 went to g1 and g2 both: its machines were retagged twice, the last one keeps them.
    const after: Snapshot = {
      sets: [
        { id: 's1', state: 'claimed', claimedBy: 'g2' },
        { id: 's2', state: 'ready', claimedBy: '' },
      ],
      machines: [...pair('m1', 'm2', 'g2'), ...pair('m3', 'm4', 's2')],
    };
    const check = checkClaims(before, after, [run('g1', ['m1', 'm2']), run('g2', ['m1', 'm2'])]);
    expect(check.problems).toEqual(
      expect.arrayContaining([
        'g1 has 0 machines',
        'g1 was answered m1 m2, has none',
        'machine m1 was handed to two gamespaces',
      ]),
    );
  });

  it('fails when a gamespace holds a machine of another set or another tag', () => {
    const after: Snapshot = {
      sets: [
        { id: 's1', state: 'claimed', claimedBy: 'g1' },
        { id: 's2', state: 'claimed', claimedBy: 'g2' },
      ],
      // g1 has one machine of s1 and one of s2; s2 kept one under its own tag.
      machines: [
        machine('m1', 'server', 'g1'),
        machine('m4', 'workstation', 'g1'),
        machine('m3', 'server', 's2'),
        { ...machine('m5', 'server', 'g2'), nics: '["lan#g1"]' },
        machine('m6', 'workstation', 'g2'),
      ],
    };
    const check = checkClaims(before, after, [run('g1', ['m1', 'm4']), run('g2', ['m5', 'm6'])]);
    expect(check.problems).toEqual(
      expect.arrayContaining([
        'g1 has machines of a ready set it did not claim',
        'server#g2 is on lan#g1',
        'g2 claimed the ready set s2 but has machines of its own',
        'claimed set s2 kept machines',
      ]),
    );
    expect(check.pooled.size).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { oneAtATime } from './removal';

// Deleting a gamespace's machines one call at a time per gamespace: the background removal of a
// completed game and the player's delete of it come together.

/** A removal that waits until its test lets it finish, recording when it runs. */
function heldRemovals() {
  const log: string[] = [];
  const releases = new Map<string, () => void>();
  let calls = 0;
  const remove = async (id: string) => {
    const call = `${id}#${++calls}`;
    log.push(`start ${call}`);
    await new Promise<void>((resolve) => releases.set(call, resolve));
    log.push(`end ${call}`);
    if (id === 'failing') throw new Error('the driver failed');
  };
  const release = async (call: string) => {
    await expect.poll(() => releases.has(call)).toBe(true);
    releases.get(call)!();
  };
  return { log, remove, release };
}

describe('oneAtATime', () => {
  it('runs a second call for the same gamespace only once the first has finished', async () => {
    const held = heldRemovals();
    const remove = oneAtATime(held.remove);
    const first = remove('g1');
    const second = remove('g1');
    await held.release('g1#1');
    await first;
    await held.release('g1#2');
    await second;
    expect(held.log).toEqual(['start g1#1', 'end g1#1', 'start g1#2', 'end g1#2']);
  });

  it('lets calls for different gamespaces run together', async () => {
    const held = heldRemovals();
    const remove = oneAtATime(held.remove);
    const both = Promise.all([remove('g1'), remove('g2')]);
    await expect.poll(() => held.log).toEqual(['start g1#1', 'start g2#2']);
    await held.release('g2#2');
    await held.release('g1#1');
    await both;
  });

  it('runs the next call after one that failed, and reports the failure to its own caller', async () => {
    const held = heldRemovals();
    const remove = oneAtATime(held.remove);
    const first = remove('failing');
    const second = remove('failing');
    await held.release('failing#1');
    await expect(first).rejects.toThrow('the driver failed');
    await held.release('failing#2');
    await expect(second).rejects.toThrow('the driver failed');
    expect(held.log).toEqual([
      'start failing#1',
      'end failing#1',
      'start failing#2',
      'end failing#2',
    ]);
  });
});

import { describe, expect, it, vi } from 'vitest';
import { createManualClock } from '../../../tests/server/manualClock';
import type { Machine, MachineSpec } from '../../hypervisor';
import { deployAndWait } from './deploy';

// A launch waits for its machines on the clock it is given: polls of the driver come
// `intervalMs` apart on that clock, however fast or slow the test machine is.

const POLL = { attempts: 3, intervalMs: 5_000 };
const CONTEXT = { gamespaceId: 'g1', hostAffinity: false, privileged: false };
const TEMPLATES = [{ name: 'kali' }, { name: 'win' }] as MachineSpec[];

/** A driver whose machines all exist from its `appearAt`-th look on (never, when null). */
function driver(appearAt: number | null) {
  let looks = 0;
  return {
    looks: () => looks,
    deployBatch: vi.fn(async () => [] as Machine[]),
    async machinesOf() {
      looks += 1;
      return appearAt !== null && looks >= appearAt ? (TEMPLATES as unknown as Machine[]) : [];
    },
  };
}

describe('deployAndWait', () => {
  it('looks again every intervalMs of the clock until every machine exists', async () => {
    const clock = createManualClock(0);
    const hypervisor = driver(3);
    const waiting = deployAndWait(hypervisor, CONTEXT, TEMPLATES, POLL, clock);
    await vi.waitFor(() => expect(clock.pending()).toBe(1));
    expect(hypervisor.looks()).toBe(1);
    clock.advance(POLL.intervalMs - 1);
    expect(hypervisor.looks()).toBe(1);
    clock.advance(1);
    await vi.waitFor(() => expect(hypervisor.looks()).toBe(2));
    await vi.waitFor(() => expect(clock.pending()).toBe(1));
    clock.advance(POLL.intervalMs);
    expect(await waiting).toEqual({ complete: true, deployed: [] });
    expect(hypervisor.looks()).toBe(3);
    expect(hypervisor.deployBatch).toHaveBeenCalledOnce();
  });

  it('asks no more when the deploy answers every machine already', async () => {
    const hypervisor = driver(null);
    hypervisor.deployBatch.mockResolvedValue(TEMPLATES as unknown as Machine[]);
    const result = await deployAndWait(hypervisor, CONTEXT, TEMPLATES, POLL, createManualClock(0));
    expect(result).toEqual({ complete: true, deployed: TEMPLATES });
    expect(hypervisor.looks()).toBe(0);
  });

  it('gives up after its attempts, and the gamespace does not start', async () => {
    const clock = createManualClock(0);
    const hypervisor = driver(null);
    let outcome: { complete: boolean } | null = null;
    void deployAndWait(hypervisor, CONTEXT, TEMPLATES, POLL, clock).then((r) => (outcome = r));
    for (let look = 1; look <= POLL.attempts; look++) {
      await vi.waitFor(() => expect(clock.pending()).toBe(1));
      expect(hypervisor.looks()).toBe(look);
      clock.advance(POLL.intervalMs);
    }
    await vi.waitFor(() => expect(outcome).toEqual({ complete: false, deployed: [] }));
    expect(hypervisor.looks()).toBe(POLL.attempts);
  });
});

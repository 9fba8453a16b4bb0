import { describe, expect, it, vi } from 'vitest';
import type { HypervisorDriver, Machine } from '../../hypervisor';
import type { GamespaceTable, PooledSetTable, WorkspaceTable } from '../../store/schema';
import { createPoolClaims, type ClaimDeps } from './claims';

// When a claim asks the keeper for a refill: a refill restores or boots machines, which on a
// small host takes the cores the claimed set's handover needs, so it starts once the player has
// the set; a miss asks at once.

const workspace = {
  id: 'w1',
  challenge: '',
  hostAffinity: 0,
  useUplinkSwitch: 0,
} as WorkspaceTable;
const gamespace = { id: 'g1', variant: 0, challenge: '' } as GamespaceTable;

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function claimsWith(set: PooledSetTable | undefined, retag: Promise<Machine[]>) {
  const keep = vi.fn();
  const retagCalled = vi.fn(() => retag);
  const driver = {
    machinesOf: async () => [],
    retag: retagCalled,
    deleteAll: async () => undefined,
  } as unknown as HypervisorDriver;
  const repos = {
    pools: {
      setting: async () => ({ workspaceId: workspace.id, size: 1 }),
      claim: async () => set,
      countMiss: async () => undefined,
    },
  } as unknown as ClaimDeps['repos'];
  const claims = createPoolClaims({
    repos,
    driver,
    now: () => 0,
    warn: () => undefined,
    supported: () => true,
    keep,
  });
  return { claims, keep, retagCalled };
}

describe('a pool claim', () => {
  it('asks for a refill only once the claimed set is handed over', async () => {
    const retag = deferred<Machine[]>();
    const { claims, keep, retagCalled } = claimsWith({ id: 's1' } as PooledSetTable, retag.promise);
    const claimed = claims.claim(gamespace, workspace, [], []);
    // The handover is under way (its retag unanswered): no refill yet.
    await vi.waitFor(() => expect(retagCalled).toHaveBeenCalledWith('s1', gamespace.id));
    expect(keep).not.toHaveBeenCalled();
    retag.resolve([]);
    expect(await claimed).toBe(true);
    expect(keep).toHaveBeenCalledWith(workspace.id);
  });

  it('asks for a refill after a handover that failed too', async () => {
    const { claims, keep } = claimsWith(
      { id: 's1' } as PooledSetTable,
      Promise.reject(new Error('retag refused')),
    );
    expect(await claims.claim(gamespace, workspace, [], [])).toBe(false);
    expect(keep).toHaveBeenCalledWith(workspace.id);
  });

  it('asks for a refill at once on a miss', async () => {
    const { claims, keep } = claimsWith(undefined, Promise.resolve([]));
    expect(await claims.claim(gamespace, workspace, [], [])).toBe(false);
    expect(keep).toHaveBeenCalledWith(workspace.id);
  });
});

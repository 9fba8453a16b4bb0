import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { modelDisagreements } from '../../../src/machines/testing/modelAgreement';
import { modelPaths, transitionCoverage } from '../../../src/machines/testing/modelPaths';
import { unreachedStateIds } from '../../../src/machines/testing/reachability';
import { createTestDatabase, type TestDatabase } from '../../../tests/server/databases';
import { openStore, type Store } from '../../store/db';
import { createPoolRepository, type PoolRepository } from '../../store/repositories/pools';
import type { PooledSetState } from '../../store/schema';
import { leavesFrom, pooledSetMachine, type PooledSetEvent } from './pooledSet';

// A pooled set's lifecycle, and the stored row that follows it: every path of a small model is
// walked on a real actor and, through the repository's conditional moves with the terms
// leavesFrom derives from the machine, on a real row. Both end in the same state at every step,
// and an event the machine ignores in a state changes no row.

const EVENTS: PooledSetEvent['type'][] = ['set.warmed', 'set.failed', 'set.claimed', 'set.drained'];

describe('a pooled set', () => {
  let database: TestDatabase;
  let store: Store;
  let pools: PoolRepository;
  let serial = 0;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    store = await openStore({ url: database.url });
    pools = createPoolRepository(store.db);
  });
  afterAll(async () => {
    await store.close();
    await database.cleanup();
  });

  it('is claimed only from ready, and drained from anything not claimed', () => {
    expect(leavesFrom('set.claimed')).toEqual({ from: ['ready'], to: 'claimed' });
    expect(leavesFrom('set.drained')).toEqual({
      from: ['warming', 'ready', 'failed'],
      to: 'drained',
    });
    expect(leavesFrom('set.warmed')).toEqual({ from: ['warming'], to: 'ready' });
    expect(leavesFrom('set.failed')).toEqual({ from: ['warming'], to: 'failed' });
  });

  const model = createMachine({
    id: 'pooledSetModel',
    initial: 'warming',
    states: {
      warming: { on: { WARMED: 'ready', FAILED: 'failed', DRAINED: 'drained' } },
      ready: { on: { CLAIMED: 'claimed', DRAINED: 'drained' } },
      failed: { on: { DRAINED: 'drained' } },
      claimed: { type: 'final' },
      drained: { type: 'final' },
    },
  });
  const MODEL_EVENTS: Record<string, PooledSetEvent['type']> = {
    WARMED: 'set.warmed',
    FAILED: 'set.failed',
    CLAIMED: 'set.claimed',
    DRAINED: 'set.drained',
  };

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, pooledSetMachine, {
        states: {
          warming: 'warming',
          ready: 'ready',
          failed: 'failed',
          claimed: 'claimed',
          drained: 'drained',
        },
        events: MODEL_EVENTS,
      }),
    ).toEqual([]);
  });

  it('reaches every state of the real machine from a new set', () => {
    expect(
      unreachedStateIds(pooledSetMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const actor = createActor(pooledSetMachine).start();
      const id = `set-${++serial}`;
      const ws = `ws-${serial}`;
      await pools.addSet({ id, workspaceId: ws, variant: 0, fingerprint: 'f', created: serial });
      /** The row, moved as the keeper and a launch move it. */
      const move = async (event: PooledSetEvent['type']) => {
        const { from, to } = leavesFrom(event);
        if (event === 'set.claimed') {
          return (await pools.claim(ws, 0, 'f', `gs-${id}`, serial)) !== undefined;
        }
        return pools.move(id, from, to, serial);
      };
      const expectState = (state: PooledSetState) => async () => {
        expect(actor.getSnapshot().value).toBe(state);
        expect((await pools.set(id))?.state).toBe(state);
        // What the machine ignores here, the store refuses.
        for (const other of EVENTS) {
          if (actor.getSnapshot().can({ type: other })) continue;
          expect(await move(other)).toBe(false);
        }
        expect((await pools.set(id))?.state).toBe(state);
      };
      const send = (event: PooledSetEvent['type']) => async () => {
        actor.send({ type: event });
        expect(await move(event)).toBe(true);
      };
      await path.test({
        states: {
          warming: expectState('warming'),
          ready: expectState('ready'),
          failed: expectState('failed'),
          claimed: expectState('claimed'),
          drained: expectState('drained'),
        },
        events: Object.fromEntries(Object.entries(MODEL_EVENTS).map(([k, v]) => [k, send(v)])),
      });
    });
  }
});

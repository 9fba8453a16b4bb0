import { describe, expect, it } from 'vitest';
import {
  applyEditorChanges,
  applyRemoteUpdate,
  createReplica,
  replicaWithText,
  stateOf,
  textOf,
} from './coedit';
import { author, memoryServer, simulate } from './testing/coeditSimulation';

/**
 * The convergence proof of the co-editing contract (src/domain/testing/coeditSimulation.ts)
 * against a server that keeps the log in memory. server/core/documents.convergence.test.ts runs
 * the same simulation through the server's document service and a real store.
 */

const RUNS = 3_000;

describe('co-editing convergence', () => {
  it(`converges without losing a keystroke in ${RUNS} random runs`, async () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const failure = await simulate(seed, memoryServer());
      if (failure !== null) expect.fail(`seed ${seed}: ${failure}`);
    }
    // About 5 s on an idle machine; the margin is for a machine shared with other test runs.
  }, 90_000);

  it('converges when a client that does not co-edit saves whole texts meanwhile', async () => {
    for (let seed = 1; seed <= RUNS / 3; seed++) {
      const failure = await simulate(seed, memoryServer(), { putRate: 0.05 });
      if (failure !== null) expect.fail(`seed ${seed}: ${failure}`);
    }
  }, 90_000);

  it('notices a lost update (the check is not vacuous)', () => {
    // Dropping one batch on the way to one replica must break convergence.
    const a = author(replicaWithText('x'));
    const b = author(createReplica());
    applyRemoteUpdate(b.replica, stateOf(a.replica));
    applyEditorChanges(a.replica.text, [{ rangeOffset: 1, rangeLength: 0, text: 'y' }]);
    expect(textOf(b.replica)).not.toBe(textOf(a.replica));
  });

  it('notices a server that loses a stored update', async () => {
    const lossy = () => {
      const server = memoryServer();
      let stored = 0;
      return {
        ...server,
        edited: async (update: Uint8Array) => {
          if (++stored !== 2) await server.edited(update);
        },
      };
    };
    let failure: string | null = null;
    for (let seed = 1; seed <= 20 && failure === null; seed++)
      failure = await simulate(seed, lossy());
    expect(failure).not.toBeNull();
  });
});

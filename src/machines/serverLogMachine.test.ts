import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { ServerLogEntry } from '../api/admin';
import { serverLogMachine } from './serverLogMachine';
import {
  selectIsLoadingLog,
  selectLogError,
  selectNewestFirst,
} from './serverLogMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { unreachedStateIds } from './testing/reachability';

const entry = (message: string, timestamp: string): ServerLogEntry => ({ message, timestamp });

function start() {
  const loads: Deferred<ServerLogEntry[]>[] = [];
  const actor = createActor(
    serverLogMachine.provide({
      actors: {
        loadLog: fromPromise<ServerLogEntry[], void>(() => {
          const answer = deferred<ServerLogEntry[]>();
          loads.push(answer);
          return answer.promise;
        }),
      },
    }),
  ).start();
  return { actor, loads, snap: () => actor.getSnapshot() };
}

describe('serverLogMachine', () => {
  it('lists the entries newest first', async () => {
    const l = start();
    expect(selectIsLoadingLog(l.snap())).toBe(true);
    l.loads[0]!.resolve([
      entry('first', '2025-01-01T00:00:00Z'),
      entry('second', '2025-01-01T00:01:00Z'),
    ]);
    await flush();
    expect(selectNewestFirst(l.snap()).map((e) => e.message)).toEqual(['second', 'first']);
    // The same array while nothing changes, as useSelector needs.
    expect(selectNewestFirst(l.snap())).toBe(selectNewestFirst(l.snap()));
  });

  it('loads again on refresh, and keeps the list with the reason when that fails', async () => {
    const l = start();
    l.loads[0]!.resolve([entry('first', '2025-01-01T00:00:00Z')]);
    await flush();
    l.actor.send({ type: 'log.refreshRequested' });
    expect(l.loads).toHaveLength(2);
    l.loads[1]!.reject({ status: 0, message: 'Failed to fetch' });
    await flush();
    expect(selectLogError(l.snap())).toBe(
      'The server could not be reached: check your connection and try again.',
    );
    expect(selectNewestFirst(l.snap())).toHaveLength(1);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(serverLogMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
      }),
    ).toEqual([]);
  });
});

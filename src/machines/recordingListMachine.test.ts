import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { Recording } from '../api/recordings';
import { recordingListMachine } from './recordingListMachine';
import {
  selectAreRecordingsLoading,
  selectRecordings,
  selectRecordingsError,
} from './recordingListMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { unreachedStateIds } from './testing/reachability';

const recording: Recording = {
  id: 'rec1',
  gamespaceId: 'gs1',
  machineId: 'vm1',
  machineName: 'web01',
  userId: 'u1',
  userName: 'Ann',
  startedAt: '2026-11-30T10:00:00.000Z',
  endedAt: null,
  durationMs: 1_000,
  bytes: 10,
  truncated: false,
};

function startList() {
  const loads: Deferred<Recording[]>[] = [];
  const actor = createActor(
    recordingListMachine.provide({
      actors: {
        loadRecordings: fromPromise(() => {
          const load = deferred<Recording[]>();
          loads.push(load);
          return load.promise;
        }),
      },
    }),
    { input: { gamespaceId: 'gs1' } },
  ).start();
  return { actor, loads, snapshot: () => actor.getSnapshot() };
}

describe('recordingListMachine', () => {
  it("lists the gamespace's recordings once loaded", async () => {
    const l = startList();
    expect(selectAreRecordingsLoading(l.snapshot())).toBe(true);
    l.loads[0]?.resolve([recording]);
    await flush();
    expect(selectRecordings(l.snapshot())).toEqual([recording]);
    expect(selectAreRecordingsLoading(l.snapshot())).toBe(false);
  });

  it("says a viewer outside the gamespace's audience may not, and Retry asks again", async () => {
    const l = startList();
    l.loads[0]?.reject({ status: 403, message: 'ActionForbidden' });
    await flush();
    expect(selectRecordingsError(l.snapshot())).toBe('You are not allowed to do this.');
    l.actor.send({ type: 'recordings.retryRequested' });
    expect(l.loads).toHaveLength(2);
    l.loads[1]?.resolve([]);
    await flush();
    expect(selectRecordingsError(l.snapshot())).toBeNull();
    expect(l.snapshot().value).toBe('loaded');
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(recordingListMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ gamespaceId: 'gs1' }],
      }),
    ).toEqual([]);
  });
});

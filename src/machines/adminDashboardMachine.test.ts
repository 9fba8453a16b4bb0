import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { JanitorReport, LiveConnection } from '../api/admin';
import { adminDashboardMachine, type AdminDashboardSnapshot } from './adminDashboardMachine';
import {
  selectAnnounceError,
  selectCanAnnounce,
  selectCommit,
  selectIsJanitorRunning,
  selectLive,
  selectReport,
  selectSent,
} from './adminDashboardMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { unreachedStateIds } from './testing/reachability';

type Kind = 'announce' | 'loadLive' | 'loadVersion' | 'runJanitor';
interface Call {
  kind: Kind;
  input: unknown;
  answer: Deferred<unknown>;
}

function start() {
  const calls: Call[] = [];
  const call = <T, I>(kind: Kind) =>
    fromPromise<T, I>(({ input }) => {
      const answer = deferred<unknown>();
      calls.push({ kind, input, answer });
      return answer.promise as Promise<T>;
    });
  const actor = createActor(
    adminDashboardMachine.provide({
      actors: {
        announce: call<unknown, { message: string }>('announce'),
        loadLive: call<LiveConnection[], void>('loadLive'),
        loadVersion: call<{ commit?: string | null }, void>('loadVersion'),
        runJanitor: call<JanitorReport[], { dryRun: boolean }>('runJanitor'),
      },
    }),
  ).start();
  const pending = (kind: Kind) => calls.filter((c) => c.kind === kind).at(-1)!;
  const answer = async (kind: Kind, value: unknown) => {
    pending(kind).answer.resolve(value);
    await flush();
  };
  const fail = async (kind: Kind, message: string) => {
    pending(kind).answer.reject({ status: 400, message });
    await flush();
  };
  return { actor, calls, pending, answer, fail, snap: () => actor.getSnapshot() };
}

describe('adminDashboardMachine', () => {
  it('loads the live connections and the version on entry', async () => {
    const d = start();
    expect(d.calls.map((c) => c.kind).sort()).toEqual(['loadLive', 'loadVersion']);
    await d.answer('loadLive', [{ id: 'c1', room: 'ws-1', profileName: 'Ada' }]);
    await d.answer('loadVersion', { commit: 'abc123' });
    expect(selectLive(d.snap())).toEqual([{ id: 'c1', room: 'ws-1', profileName: 'Ada' }]);
    expect(selectCommit(d.snap())).toBe('abc123');
  });

  it('sends the trimmed announcement, clears the form and confirms it', async () => {
    const d = start();
    expect(selectCanAnnounce(d.snap())).toBe(false);
    d.actor.send({ type: 'announce.edited', text: '  lunch at noon ' });
    d.actor.send({ type: 'announce.submitted' });
    expect(d.pending('announce').input).toEqual({ message: 'lunch at noon' });
    // One at a time: a second submit while sending sends nothing.
    d.actor.send({ type: 'announce.submitted' });
    expect(d.calls.filter((c) => c.kind === 'announce')).toHaveLength(1);
    await d.answer('announce', true);
    expect(d.snap().context.draft).toBe('');
    expect(selectSent(d.snap())).toBe('lunch at noon');
  });

  it('keeps the draft and says why when the announcement fails', async () => {
    const d = start();
    d.actor.send({ type: 'announce.edited', text: 'hello' });
    d.actor.send({ type: 'announce.submitted' });
    await d.fail('announce', 'ActionForbidden');
    expect(selectAnnounceError(d.snap())).toBe('You are not allowed to do this.');
    expect(d.snap().context.draft).toBe('hello');
    expect(selectCanAnnounce(d.snap())).toBe(true);
  });

  it('runs the janitor as asked and keeps its report, while the rest stays usable', async () => {
    const d = start();
    d.actor.send({ type: 'janitor.runRequested', dryRun: false });
    expect(selectIsJanitorRunning(d.snap())).toBe(true);
    expect(d.pending('runJanitor').input).toEqual({ dryRun: false });
    d.actor.send({ type: 'announce.edited', text: 'still here' });
    expect(selectCanAnnounce(d.snap())).toBe(true);
    const report: JanitorReport[] = [
      { id: 'w1', name: 'Old lab', reason: 'IdleWorkspaceVms', vmCount: 2 },
    ];
    await d.answer('runJanitor', report);
    expect(selectIsJanitorRunning(d.snap())).toBe(false);
    expect(selectReport(d.snap())).toEqual(report);
  });

  it('refreshes the live connections on request', async () => {
    const d = start();
    await d.answer('loadLive', []);
    d.actor.send({ type: 'live.refreshRequested' });
    await d.answer('loadLive', [{ id: 'c2' }]);
    expect(selectLive(d.snap())).toEqual([{ id: 'c2' }]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(adminDashboardMachine, {
        // Whether there is a draft decides whether it can be sent: abstracted to a flag.
        serializeState: (snapshot) =>
          JSON.stringify([
            snapshot.value,
            (snapshot as unknown as AdminDashboardSnapshot).context.draft !== '',
          ]),
        payloads: [
          { type: 'announce.edited', text: 'hello' },
          { type: 'janitor.runRequested', dryRun: true },
        ],
      }),
    ).toEqual([]);
  });
});

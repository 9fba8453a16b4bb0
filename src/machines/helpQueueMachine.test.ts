import { describe, expect, it } from 'vitest';
import { Subject } from 'rxjs';
import {
  createActor,
  createMachine,
  fromCallback,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
} from 'xstate';
import type { HelpRequest } from '../api/help';
import type { HelpUpdatedEvent } from '../streams/help';
import {
  helpQueueMachine,
  QUEUE_REFRESH_MS,
  type ChannelsChanged,
  type LoadedQueue,
} from './helpQueueMachine';
import {
  selectActingOn,
  selectCanAct,
  selectIsQueueLoading,
  selectOpenCount,
  selectQueueError,
  selectQueueRequests,
} from './helpQueueMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

let serial = 0;
/** An open request of ws-1, raised later than every one before it. */
function raised(fields: Partial<HelpRequest> = {}): HelpRequest {
  serial += 1;
  return {
    id: `h-${serial}`,
    gamespaceId: `gs-${serial}`,
    workspaceId: 'ws-1',
    gamespaceName: 'Lab',
    playerId: 'p-1',
    playerName: 'Ann',
    message: `Question ${serial}`,
    status: 'open',
    raisedAt: new Date(Date.UTC(2026, 10, 30, 12, 0, serial)).toISOString(),
    ...fields,
  };
}
const loaded = (requests: HelpRequest[], workspaceIds: string[] = []): LoadedQueue => ({
  requests,
  workspaceIds,
});
const answered = (r: HelpRequest): HelpRequest => ({
  ...r,
  status: 'answered',
  answer: 'Yes.',
  answeredByName: 'Olga',
  claimedById: 'o',
  claimedByName: 'Olga',
  closedAt: new Date(Date.parse(r.raisedAt) + 60_000).toISOString(),
});

function start({ workspaceId }: { workspaceId?: string } = { workspaceId: 'ws-1' }) {
  const clock = new SimulatedClock();
  const loads: { input: { workspaceId: string | undefined }; d: Deferred<LoadedQueue> }[] = [];
  const claims: { input: { id: string }; d: Deferred<HelpRequest> }[] = [];
  const answers: { input: { id: string; text: string }; d: Deferred<HelpRequest> }[] = [];
  /** The channels listened on now. */
  let channels: string[] = [];
  const heard = new Subject<HelpUpdatedEvent>();
  const ticks = new Subject<{ type: 'clock.ticked'; now: number }>();
  const actor = createActor(
    helpQueueMachine.provide({
      actors: {
        loadQueue: fromPromise(({ input }: { input: { workspaceId: string | undefined } }) => {
          const d = deferred<LoadedQueue>();
          loads.push({ input, d });
          return d.promise;
        }),
        claimHelp: fromPromise(({ input }: { input: { id: string } }) => {
          const d = deferred<HelpRequest>();
          claims.push({ input, d });
          return d.promise;
        }),
        answerHelp: fromPromise(({ input }: { input: { id: string; text: string } }) => {
          const d = deferred<HelpRequest>();
          answers.push({ input, d });
          return d.promise;
        }),
        listenToChannels: fromCallback<ChannelsChanged, { channelIds: string[] }>(
          ({ input, receive }) => {
            channels = input.channelIds;
            receive((event) => (channels = event.channelIds));
            return () => (channels = []);
          },
        ),
        helpUpdates: fromEventObservable(() => heard),
        clock: fromEventObservable(() => ticks),
      },
    }),
    { input: { workspaceId, now: 0 }, clock },
  ).start();
  const snapshot = () => actor.getSnapshot();
  return {
    actor,
    clock,
    loads,
    claims,
    answers,
    snapshot,
    channels: () => channels,
    ticks,
    hear: (request: HelpRequest) => heard.next({ type: 'help.updated', request }),
    ids: () => selectQueueRequests(snapshot()).map((r) => r.id),
  };
}

describe('helpQueueMachine', () => {
  it("loads one workspace's queue, open first and oldest first, listening on its channel", async () => {
    const q = start();
    expect(q.loads[0]!.input.workspaceId).toBe('ws-1');
    expect(q.channels()).toEqual(['observe:ws-1']);
    expect(selectIsQueueLoading(q.snapshot())).toBe(true);
    const old = answered(raised());
    const first = raised();
    const second = raised();
    q.loads[0]!.d.resolve(loaded([second, old, first]));
    await flush();
    expect(q.ids()).toEqual([first.id, second.id, old.id]);
    expect(selectOpenCount(q.snapshot())).toBe(2);
  });

  it('keeps the queue in order as requests are raised, claimed and answered live', async () => {
    const q = start();
    const first = raised();
    q.loads[0]!.d.resolve(loaded([first]));
    await flush();
    const second = raised();
    q.hear(second);
    q.hear({ ...raised(), workspaceId: 'ws-2' });
    expect(q.ids()).toEqual([first.id, second.id]);
    q.hear({ ...first, claimedById: 'o', claimedByName: 'Olga' });
    expect(selectQueueRequests(q.snapshot())[0]!.claimedByName).toBe('Olga');
    q.hear(answered(first));
    expect(q.ids()).toEqual([second.id, first.id]);
  });

  it("of every workspace, listens on the channels of the queue's workspaces as they come", async () => {
    const q = start({});
    expect(q.loads[0]!.input.workspaceId).toBeUndefined();
    expect(q.channels()).toEqual([]);
    // A workspace with a running gamespace and no request yet is listened on too.
    q.loads[0]!.d.resolve(loaded([raised(), raised({ workspaceId: 'ws-2' })], ['ws-0', 'ws-1']));
    await flush();
    expect(q.channels()).toEqual(['observe:ws-0', 'observe:ws-1', 'observe:ws-2']);
    q.hear(raised({ workspaceId: 'ws-3' }));
    expect(q.channels()).toEqual(['observe:ws-0', 'observe:ws-1', 'observe:ws-2', 'observe:ws-3']);
    expect(q.ids()).toHaveLength(3);
  });

  it('loads again every QUEUE_REFRESH_MS, and at once on Refresh', async () => {
    const q = start();
    q.loads[0]!.d.resolve(loaded([]));
    await flush();
    q.clock.increment(QUEUE_REFRESH_MS - 1);
    expect(q.loads).toHaveLength(1);
    q.clock.increment(1);
    expect(q.loads).toHaveLength(2);
    q.loads[1]!.d.reject({ status: 403, message: '' });
    await flush();
    expect(selectQueueError(q.snapshot())).not.toBeNull();
    q.actor.send({ type: 'queue.refreshRequested' });
    expect(q.loads).toHaveLength(3);
  });

  it('claims one request at a time and shows what the server answers', async () => {
    const q = start();
    const r = raised();
    q.loads[0]!.d.resolve(loaded([r]));
    await flush();
    q.actor.send({ type: 'queue.claimRequested', id: r.id });
    expect(q.claims[0]!.input.id).toBe(r.id);
    expect(selectActingOn(q.snapshot())).toBe(r.id);
    expect(selectCanAct(q.snapshot())).toBe(false);
    q.actor.send({ type: 'queue.claimRequested', id: r.id });
    expect(q.claims).toHaveLength(1);
    q.claims[0]!.d.resolve({ ...r, claimedById: 'me', claimedByName: 'Me' });
    await flush();
    expect(selectQueueRequests(q.snapshot())[0]!.claimedByName).toBe('Me');
    expect(selectActingOn(q.snapshot())).toBeNull();
    q.actor.send({ type: 'queue.claimRequested', id: r.id });
    q.claims[1]!.d.reject({ status: 400, message: 'InvalidOperation' });
    await flush();
    expect(selectQueueError(q.snapshot())).not.toBeNull();
  });

  it('answers with the trimmed text of its box, never a blank one, and keeps it on failure', async () => {
    const q = start();
    const r = raised();
    q.loads[0]!.d.resolve(loaded([r]));
    await flush();
    q.actor.send({ type: 'queue.answerChanged', id: r.id, text: '   ' });
    q.actor.send({ type: 'queue.answerRequested', id: r.id });
    expect(q.answers).toHaveLength(0);
    q.actor.send({ type: 'queue.answerChanged', id: r.id, text: ' Reboot it. ' });
    q.actor.send({ type: 'queue.answerRequested', id: r.id });
    expect(q.answers[0]!.input).toEqual({ id: r.id, text: 'Reboot it.' });
    q.answers[0]!.d.reject({ status: 400, message: 'InvalidOperation' });
    await flush();
    expect(q.snapshot().context.answers[r.id]).toBe(' Reboot it. ');
    q.actor.send({ type: 'queue.answerRequested', id: r.id });
    q.answers[1]!.d.resolve(answered(r));
    await flush();
    expect(q.snapshot().context.answers[r.id]).toBeUndefined();
    expect(selectQueueRequests(q.snapshot())[0]!.status).toBe('answered');
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(helpQueueMachine, {
        serializeState: (s) =>
          JSON.stringify([
            s.value,
            Object.keys((s as { context?: { answers?: object } }).context?.answers ?? {}).length,
          ]),
        inputs: [{ workspaceId: 'ws-1', now: 0 }],
        payloads: [
          { type: 'queue.answerChanged', id: 'h-1', text: 'Yes.' },
          { type: 'queue.answerRequested', id: 'h-1' },
          { type: 'queue.claimRequested', id: 'h-1' },
          { type: 'help.updated', request: raised() },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: loading (and failing to), live requests, the periodic reload, claiming and
 * answering with their failures. The queue's order and whether it may act are checked in every
 * state.
 */
describe('helpQueueMachine against its model', () => {
  type ModelEvent =
    | { type: 'LOADED' }
    | { type: 'LOAD_FAILED' }
    | { type: 'HEARD' }
    | { type: 'REFRESH' }
    | { type: 'REFRESH_DUE' }
    | { type: 'CLAIM' }
    | { type: 'CLAIMED' }
    | { type: 'CLAIM_FAILED' }
    | { type: 'ANSWER_BLANK' }
    | { type: 'ANSWER' }
    | { type: 'ANSWERED' }
    | { type: 'ANSWER_FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'helpQueueModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'ready', LOAD_FAILED: 'ready', HEARD: 'loading' } },
      ready: {
        on: {
          HEARD: 'ready',
          REFRESH: 'loading',
          REFRESH_DUE: 'loading',
          CLAIM: 'claiming',
          ANSWER_BLANK: 'ready',
          ANSWER: 'answering',
        },
      },
      claiming: { on: { CLAIMED: 'ready', CLAIM_FAILED: 'ready', HEARD: 'claiming' } },
      answering: { on: { ANSWERED: 'ready', ANSWER_FAILED: 'ready' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, helpQueueMachine, {
        states: {
          loading: 'loading',
          ready: 'ready',
          claiming: 'claiming',
          answering: 'answering',
        },
        events: {
          LOADED: 'xstate.done.actor.0.helpQueue.loading',
          LOAD_FAILED: 'xstate.error.actor.0.helpQueue.loading',
          HEARD: 'help.updated',
          REFRESH: 'queue.refreshRequested',
          REFRESH_DUE: 'xstate.after.queueRefresh.helpQueue.ready',
          CLAIM: 'queue.claimRequested',
          CLAIMED: 'xstate.done.actor.0.helpQueue.claiming',
          CLAIM_FAILED: 'xstate.error.actor.0.helpQueue.claiming',
          ANSWER_BLANK: ['queue.answerChanged', 'queue.answerRequested'],
          ANSWER: ['queue.answerChanged', 'queue.answerRequested'],
          ANSWERED: 'xstate.done.actor.0.helpQueue.answering',
          ANSWER_FAILED: 'xstate.error.actor.0.helpQueue.answering',
        },
        // The clock only moves the waiting times on (checked by the view's selectors).
        unmodelledEvents: ['clock.ticked'],
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
      const q = start();
      /** What the queue should hold, in queue order. */
      let expected: HelpRequest[] = [];
      const put = (r: HelpRequest) => {
        const rest = expected.filter((x) => x.id !== r.id);
        const open = [...rest, r].filter((x) => x.status === 'open');
        const closed = [...rest, r].filter((x) => x.status !== 'open');
        const byTime = (a: HelpRequest, b: HelpRequest) => a.raisedAt.localeCompare(b.raisedAt);
        expected = [...open.sort(byTime), ...closed.sort(byTime)];
      };
      const target = () => expected.find((r) => r.status === 'open') ?? expected[0] ?? raised();
      const check = (acting: boolean) => {
        expect(selectQueueRequests(q.snapshot())).toEqual(expected);
        expect(selectCanAct(q.snapshot())).toBe(!acting && q.snapshot().matches('ready'));
      };
      await path.test({
        states: {
          loading: () => expect(selectIsQueueLoading(q.snapshot())).toBe(true),
          ready: () => check(false),
          claiming: () => check(true),
          answering: () => check(true),
        },
        events: {
          LOADED: async () => {
            const fresh = [raised(), raised()];
            expected = [];
            fresh.forEach(put);
            q.loads.at(-1)!.d.resolve(loaded(fresh));
            await flush();
          },
          LOAD_FAILED: async () => {
            q.loads.at(-1)!.d.reject(new Error('offline'));
            await flush();
          },
          HEARD: () => {
            const r = raised();
            put(r);
            q.hear(r);
          },
          REFRESH: () => q.actor.send({ type: 'queue.refreshRequested' }),
          REFRESH_DUE: () => q.clock.increment(QUEUE_REFRESH_MS),
          CLAIM: () => q.actor.send({ type: 'queue.claimRequested', id: target().id }),
          CLAIMED: async () => {
            const claimed = { ...target(), claimedById: 'me', claimedByName: 'Me' };
            put(claimed);
            q.claims.at(-1)!.d.resolve(claimed);
            await flush();
          },
          CLAIM_FAILED: async () => {
            q.claims.at(-1)!.d.reject(new Error('offline'));
            await flush();
          },
          ANSWER_BLANK: () => {
            q.actor.send({ type: 'queue.answerChanged', id: target().id, text: '' });
            q.actor.send({ type: 'queue.answerRequested', id: target().id });
          },
          ANSWER: () => {
            q.actor.send({ type: 'queue.answerChanged', id: target().id, text: 'Yes.' });
            q.actor.send({ type: 'queue.answerRequested', id: target().id });
          },
          ANSWERED: async () => {
            const done = answered(target());
            put(done);
            q.answers.at(-1)!.d.resolve(done);
            await flush();
          },
          ANSWER_FAILED: async () => {
            q.answers.at(-1)!.d.reject(new Error('offline'));
            await flush();
          },
        },
      });
    });
  }
});

import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock, type EventObject } from 'xstate';
import { hubChannelMachine, REJOIN_RETRY_MS, type HubChannelReport } from './hubChannelMachine';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A join whose Listen calls answer with `outcomes` in turn (an Error fails the call). */
function startJoin(outcomes: Array<'ok' | Error>) {
  const clock = new SimulatedClock();
  const calls: string[] = [];
  const reports: HubChannelReport[] = [];
  const parent = createActor(
    fromCallback<EventObject>(({ receive }) => {
      receive((event) => reports.push(event as HubChannelReport));
    }),
  ).start();
  const join = createActor(
    hubChannelMachine.provide({
      actors: {
        joinChannel: fromPromise<void, { connectionId: string; channelId: string }>(
          async ({ input }) => {
            calls.push(`Listen(${input.channelId})@${input.connectionId}`);
            const outcome = outcomes.shift() ?? 'ok';
            if (outcome instanceof Error) throw outcome;
          },
        ),
      },
    }),
    { clock, input: { channelId: 'ws-1', connectionId: 'c1', parentRef: parent } },
  ).start();
  return { join, clock, calls, reports };
}

describe('hubChannelMachine', () => {
  it('listens on the channel and tells the hub connection it joined', async () => {
    const { join, calls, reports } = startJoin(['ok']);
    expect(join.getSnapshot().hasTag('joined')).toBe(false);
    await flush();
    expect(calls).toEqual(['Listen(ws-1)@c1']);
    expect(join.getSnapshot().hasTag('joined')).toBe(true);
    expect(reports).toEqual([{ type: 'hub.channelJoined', channelId: 'ws-1' }]);
  });

  it('reports a failed join and tries again after REJOIN_RETRY_MS until it succeeds', async () => {
    const { join, clock, calls, reports } = startJoin([
      new Error('ActionForbidden'),
      new Error('ActionForbidden'),
      'ok',
    ]);
    await flush();
    expect(reports).toEqual([
      { type: 'hub.channelJoinFailed', channelId: 'ws-1', error: 'Action Forbidden' },
    ]);
    clock.increment(REJOIN_RETRY_MS - 1);
    expect(calls).toHaveLength(1);
    clock.increment(1);
    expect(calls).toHaveLength(2);
    await flush();
    clock.increment(REJOIN_RETRY_MS);
    await flush();
    expect(calls).toHaveLength(3);
    expect(join.getSnapshot().hasTag('joined')).toBe(true);
    expect(reports.map((report) => report.type)).toEqual([
      'hub.channelJoinFailed',
      'hub.channelJoinFailed',
      'hub.channelJoined',
    ]);
    expect(REJOIN_RETRY_MS).toBe(1_000);
  });

  it('stops retrying once stopped', async () => {
    const { join, clock, calls } = startJoin([new Error('ActionForbidden')]);
    await flush();
    join.stop();
    clock.increment(REJOIN_RETRY_MS * 5);
    expect(calls).toHaveLength(1);
  });

  it('reaches every state', () => {
    const parentRef = createActor(fromCallback<EventObject>(() => undefined));
    expect(
      unreachedStateIds(hubChannelMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ channelId: 'ws-1', connectionId: 'c1', parentRef }],
      }),
    ).toEqual([]);
  });
});

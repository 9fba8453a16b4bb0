import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise } from 'xstate';
import {
  hubOutboxMachine,
  type HubInvocation,
  type HubOutboxEvent,
  type HubOutboxReport,
} from './hubOutboxMachine';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const greet = (channelId: string): HubInvocation => ({ method: 'Greet', args: [channelId] });
const leave = (channelId: string): HubInvocation => ({ method: 'Leave', args: [channelId] });

/** The outbox over a server the test answers; `wire` is what was sent, on which connection. */
function startOutbox() {
  const wire: string[] = [];
  const calls: Array<Deferred<unknown>> = [];
  const reports: HubOutboxReport[] = [];
  const parentRef = createActor(
    fromCallback<HubOutboxReport>(({ receive }) => receive((e) => reports.push(e))),
  ).start();
  const actor = createActor(
    hubOutboxMachine.provide({
      actors: {
        invoke: fromPromise<unknown, HubInvocation & { connectionId: string }>(({ input }) => {
          wire.push(`${input.method}(${input.args.join(',')})@${input.connectionId}`);
          const result = deferred<unknown>();
          calls.push(result);
          return result.promise;
        }),
      },
    }),
    { input: { parentRef } },
  ).start();
  const last = () => {
    const call = calls.at(-1);
    if (call === undefined) throw new Error('nothing was sent');
    return call;
  };
  return {
    actor,
    wire,
    reports,
    send: (event: HubOutboxEvent) => actor.send(event),
    enqueue: (invocation: HubInvocation) => actor.send({ type: 'outbox.enqueued', invocation }),
    waiting: () => actor.getSnapshot().context.outbox,
    async answer() {
      last().resolve(undefined);
      await flush();
    },
    async refuse(message: string) {
      last().reject(new Error(message));
      await flush();
    },
  };
}

describe('hubOutboxMachine', () => {
  it('keeps what is asked for while offline and sends it in order, one at a time, once connected', async () => {
    const o = startOutbox();
    o.enqueue(greet('ws-1'));
    o.enqueue(greet('ws-2'));
    expect(o.wire).toEqual([]);

    o.send({ type: 'outbox.connected', connectionId: 'c1' });
    expect(o.wire).toEqual(['Greet(ws-1)@c1']);
    await o.answer();
    expect(o.wire).toEqual(['Greet(ws-1)@c1', 'Greet(ws-2)@c1']);
    await o.answer();
    expect(o.waiting()).toEqual([]);
  });

  it('sends each invocation at most once: the one in flight when the connection drops is dropped', async () => {
    const o = startOutbox();
    o.send({ type: 'outbox.connected', connectionId: 'c1' });
    o.enqueue(greet('ws-1'));
    o.enqueue(greet('ws-2'));
    o.send({ type: 'outbox.disconnected' });
    expect(o.waiting()).toEqual([greet('ws-2')]);

    o.send({ type: 'outbox.connected', connectionId: 'c2' });
    expect(o.wire).toEqual(['Greet(ws-1)@c1', 'Greet(ws-2)@c2']);
  });

  it('drops unsent Leaves with the connection: the server left the groups with it', () => {
    const o = startOutbox();
    o.send({ type: 'outbox.connected', connectionId: 'c1' });
    o.enqueue(greet('ws-1'));
    o.enqueue(leave('ws-2'));
    o.enqueue(greet('ws-3'));
    o.send({ type: 'outbox.disconnected' });
    expect(o.waiting()).toEqual([greet('ws-3')]);
  });

  it('cancels a Leave of a channel listened to again, unless it is already in flight', async () => {
    const o = startOutbox();
    o.send({ type: 'outbox.connected', connectionId: 'c1' });
    o.enqueue(leave('ws-1'));
    o.enqueue(greet('ws-2'));
    o.enqueue(leave('ws-1'));
    o.send({ type: 'outbox.leaveCancelled', channelId: 'ws-1' });
    expect(o.waiting()).toEqual([leave('ws-1'), greet('ws-2')]);
    await o.answer();
    await o.answer();
    expect(o.wire).toEqual(['Leave(ws-1)@c1', 'Greet(ws-2)@c1']);
  });

  it('reports a refused invocation, drops it and goes on with the next', async () => {
    const o = startOutbox();
    o.send({ type: 'outbox.connected', connectionId: 'c1' });
    o.enqueue(greet('ws-1'));
    o.enqueue(greet('ws-2'));
    await o.refuse('ActionForbidden');
    expect(o.reports).toEqual([
      { type: 'hub.invocationFailed', error: 'You are not allowed to do this.' },
    ]);
    expect(o.wire).toEqual(['Greet(ws-1)@c1', 'Greet(ws-2)@c1']);
  });

  it('discards what waits when the session ends', () => {
    const o = startOutbox();
    o.enqueue(greet('ws-1'));
    o.send({ type: 'outbox.discarded' });
    o.send({ type: 'outbox.connected', connectionId: 'c1' });
    expect(o.wire).toEqual([]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(hubOutboxMachine, {
        // The state and whether an invocation waits; connection ids are abstracted.
        serializeState: (snapshot) => {
          const { context } = snapshot as unknown as { context: { outbox: unknown[] } };
          return JSON.stringify([snapshot.value, context.outbox.length > 0]);
        },
        inputs: [{ parentRef: createActor(fromCallback(() => {})) }],
        payloads: [{ type: 'outbox.enqueued', invocation: greet('ws-1') }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the outbox rules of spec §7 (in order, one at a time, buffered while not
 * connected, at most once) over at most two invocations, driving the real actor against a
 * server the test answers.
 */
describe('hubOutboxMachine against the spec model', () => {
  type ModelEvent =
    | { type: 'ENQUEUE' }
    | { type: 'CONNECT' }
    | { type: 'DISCONNECT' }
    | { type: 'SENT' }
    | { type: 'REFUSED' }
    | { type: 'DISCARD' };

  // States name what waits: offline with none or one; online idle, or one in flight with none
  // or one behind it.
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'hubOutboxModel',
    initial: 'offlineEmpty',
    states: {
      offlineEmpty: {
        on: { ENQUEUE: 'offlineOne', CONNECT: 'onlineIdle', DISCARD: 'offlineEmpty' },
      },
      offlineOne: { on: { CONNECT: 'sendingOne', DISCARD: 'offlineEmpty' } },
      onlineIdle: { on: { ENQUEUE: 'sendingOne', DISCONNECT: 'offlineEmpty' } },
      sendingOne: {
        on: {
          ENQUEUE: 'sendingTwo',
          SENT: 'onlineIdle',
          REFUSED: 'onlineIdle',
          DISCONNECT: 'offlineEmpty',
        },
      },
      sendingTwo: { on: { SENT: 'sendingOne', REFUSED: 'sendingOne', DISCONNECT: 'offlineOne' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, hubOutboxMachine, {
        states: {
          offlineEmpty: 'offline',
          offlineOne: 'offline',
          onlineIdle: 'online.idle',
          sendingOne: 'online.sending',
          sendingTwo: 'online.sending',
        },
        events: {
          ENQUEUE: 'outbox.enqueued',
          CONNECT: 'outbox.connected',
          DISCONNECT: 'outbox.disconnected',
          SENT: 'xstate.done.actor.invoke',
          REFUSED: 'xstate.error.actor.invoke',
          DISCARD: 'outbox.discarded',
        },
        // Leaves and their cancelling are covered by the tests above.
        unmodelledEvents: ['outbox.leaveCancelled'],
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
      const o = startOutbox();
      let next = 0;
      let connection = 0;
      let refused = 0;
      const expectOutbox = (online: boolean, waiting: number, inFlight: boolean) => () => {
        expect(o.actor.getSnapshot().matches('online')).toBe(online);
        expect(o.waiting()).toHaveLength(waiting);
        expect(o.actor.getSnapshot().matches({ online: 'sending' })).toBe(inFlight);
        // What is in flight went out on the current connection, and is first in the outbox.
        if (inFlight) {
          expect(o.wire.at(-1)).toBe(`Greet(${String(o.waiting()[0]?.args[0])})@c${connection}`);
        }
        expect(o.reports).toHaveLength(refused);
      };
      await path.test({
        states: {
          offlineEmpty: expectOutbox(false, 0, false),
          offlineOne: expectOutbox(false, 1, false),
          onlineIdle: expectOutbox(true, 0, false),
          sendingOne: expectOutbox(true, 1, true),
          sendingTwo: expectOutbox(true, 2, true),
        },
        events: {
          ENQUEUE: () => o.enqueue(greet(`ws-${++next}`)),
          CONNECT: () => o.send({ type: 'outbox.connected', connectionId: `c${++connection}` }),
          DISCONNECT: () => o.send({ type: 'outbox.disconnected' }),
          SENT: () => o.answer(),
          REFUSED: async () => {
            await o.refuse('ActionForbidden');
            refused += 1;
          },
          DISCARD: () => o.send({ type: 'outbox.discarded' }),
        },
      });
    });
  }
});

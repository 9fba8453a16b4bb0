import { describe, expect, it, vi } from 'vitest';
import { assign, createActor, fromCallback, sendTo, setup, SimulatedClock } from 'xstate';
import { createEventLog, REDACTED, replay } from './eventLog';

const DEBOUNCE_MS = 100;

interface Credentials {
  user: { accessToken: string; profile: { name: string } };
}

/**
 * A small machine with the features the log must cope with: a credential in an event, a
 * debounce (`after`), and a child actor that both receives events and sends them back.
 */
const doorMachine = setup({
  types: {
    context: {} as { token: string | null; knocks: number },
    events: {} as
      | ({ type: 'door.unlocked' } & Credentials)
      | { type: 'door.knocked' }
      | { type: 'bell.rang' }
      | { type: 'door.locked' },
  },
  actors: {
    bell: fromCallback(({ sendBack, receive }) => {
      receive(() => sendBack({ type: 'bell.rang' }));
    }),
  },
}).createMachine({
  id: 'door',
  initial: 'locked',
  context: { token: null, knocks: 0 },
  invoke: { id: 'bell', src: 'bell' },
  states: {
    locked: {
      on: {
        'door.unlocked': {
          target: 'open',
          actions: assign({ token: ({ event }) => event.user.accessToken }),
        },
      },
    },
    open: {
      on: {
        'door.knocked': {
          target: 'answering',
          actions: [
            assign({ knocks: ({ context }) => context.knocks + 1 }),
            sendTo('bell', { type: 'ring' }),
          ],
        },
        'door.locked': 'locked',
      },
    },
    answering: {
      after: { [DEBOUNCE_MS]: 'open' },
      on: { 'door.knocked': { target: 'answering', reenter: true } },
    },
  },
});

const UNLOCK = {
  type: 'door.unlocked',
  user: { accessToken: 'secret-token', profile: { name: 'Ada' } },
} as const;

function recordDoor(options: Parameters<typeof createEventLog>[0] = {}, systemId?: string) {
  const log = createEventLog({ now: () => 1_000, ...options });
  const clock = new SimulatedClock();
  const actor = createActor(doorMachine, { clock, inspect: log.inspect, systemId }).start();
  return { log, actor, clock };
}

describe('createEventLog', () => {
  it('records the events a root actor receives, with sequence, time, actor, machine and states', () => {
    let time = 5_000;
    const { log, actor } = recordDoor({ now: () => time++ }, 'door');
    actor.send(UNLOCK);

    expect(log.entries()).toEqual([
      {
        seq: 1,
        at: 5_000,
        actorId: 'door',
        machine: 'door',
        event: { type: 'xstate.init', input: undefined },
        after: 'locked',
      },
      {
        seq: 2,
        at: 5_001,
        actorId: 'door',
        machine: 'door',
        event: { ...UNLOCK, user: { ...UNLOCK.user, accessToken: REDACTED } },
        before: 'locked',
        after: 'open',
      },
    ]);
  });

  it("uses the actor's session id when it has no system id", () => {
    const { log, actor } = recordDoor();
    expect(log.entries()[0]?.actorId).toBe(actor.sessionId);
  });

  it('leaves out events sent to children but keeps what children and timers send to the root', () => {
    const { log, actor, clock } = recordDoor({}, 'door');
    actor.send(UNLOCK);
    actor.send({ type: 'door.knocked' });
    clock.increment(DEBOUNCE_MS);

    const types = log.entries().map((entry) => entry.event.type);
    expect(types).toEqual([
      'xstate.init',
      'door.unlocked',
      'door.knocked',
      'bell.rang',
      `xstate.after.${DEBOUNCE_MS}.door.answering`,
    ]);
    expect(types).not.toContain('ring');
    expect(log.entries().every((entry) => entry.actorId === 'door')).toBe(true);
  });

  it('redacts credentials at any depth without changing what the actor receives', () => {
    const { log, actor } = recordDoor();
    actor.send({
      ...UNLOCK,
      nested: {
        access_token: 'a',
        id_token: 'b',
        refresh_token: 'c',
        list: [{ password: 'd' }, { ticket: 'e', keep: 'visible' }],
        AccessToken: 'f',
      },
    } as typeof UNLOCK);

    expect(actor.getSnapshot().context.token).toBe('secret-token');
    const recorded = log.entries()[1]?.event;
    expect(recorded).toEqual({
      type: 'door.unlocked',
      user: { accessToken: REDACTED, profile: { name: 'Ada' } },
      nested: {
        access_token: REDACTED,
        id_token: REDACTED,
        refresh_token: REDACTED,
        list: [{ password: REDACTED }, { ticket: REDACTED, keep: 'visible' }],
        AccessToken: REDACTED,
      },
    });
    expect(log.toJSON()).not.toMatch(/secret-token|"[a-f]"/);
  });

  it('stores plain data: errors, dates, cycles and actor refs become JSON-safe', () => {
    const log = createEventLog();
    const root = createActor(doorMachine, { inspect: log.inspect }).start();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    root.send({
      type: 'door.knocked',
      error: Object.assign(new Error('ResourceNotFound'), { status: 404 }),
      when: new Date(Date.UTC(2024, 0, 1)),
      cyclic,
      ref: root,
      callback: () => undefined,
    } as { type: 'door.knocked' });

    expect(log.entries()[1]?.event).toEqual({
      type: 'door.knocked',
      error: { name: 'Error', message: 'ResourceNotFound', status: 404 },
      when: '2024-01-01T00:00:00.000Z',
      cyclic: { name: 'loop', self: '[circular]' },
      ref: { actorId: root.sessionId },
      callback: undefined,
    });
    expect(() => JSON.parse(log.toJSON()) as unknown).not.toThrow();
  });

  it('names bytes by their size instead of copying them', () => {
    const log = createEventLog();
    const root = createActor(doorMachine, { inspect: log.inspect }).start();
    const bytes = new Uint8Array(4 * 1024 * 1024);
    root.send({
      type: 'door.knocked',
      records: [{ offsetMs: 5, bytes: bytes.subarray(0, 3) }],
      buffer: bytes.buffer,
    } as { type: 'door.knocked' });

    expect(log.entries()[1]?.event).toEqual({
      type: 'door.knocked',
      records: [{ offsetMs: 5, bytes: '[Uint8Array: 3 bytes]' }],
      buffer: '[ArrayBuffer: 4194304 bytes]',
    });
  });

  it('keeps the newest entries up to its capacity and keeps counting', () => {
    const { log, actor } = recordDoor({ capacity: 3 });
    actor.send(UNLOCK);
    actor.send({ type: 'door.locked' });
    actor.send(UNLOCK);
    actor.send({ type: 'door.locked' });

    expect(log.entries().map((entry) => [entry.seq, entry.event.type])).toEqual([
      [3, 'door.locked'],
      [4, 'door.unlocked'],
      [5, 'door.locked'],
    ]);
  });

  it('notifies subscribers of every change and returns the same entries until one', () => {
    const { log, actor } = recordDoor();
    const listener = vi.fn();
    const unsubscribe = log.subscribe(listener);
    const before = log.entries();
    expect(log.entries()).toBe(before);

    // Once for the event, once for the state it led to.
    actor.send(UNLOCK);
    expect(listener).toHaveBeenCalledTimes(2);
    const after = log.entries();
    expect(after).not.toBe(before);
    expect(log.entries()).toBe(after);

    log.clear();
    expect(listener).toHaveBeenCalledTimes(3);
    expect(log.entries()).toEqual([]);

    unsubscribe();
    actor.send({ type: 'door.locked' });
    expect(listener).toHaveBeenCalledTimes(3);
    expect(log.entries().map((entry) => entry.seq)).toEqual([3]);
  });

  it('exports the entries as JSON', () => {
    const { log, actor } = recordDoor({}, 'door');
    actor.send(UNLOCK);
    expect(JSON.parse(log.toJSON())).toEqual(log.entries());
  });

  it('rejects a capacity that is not a positive integer', () => {
    expect(() => createEventLog({ capacity: 0 })).toThrow(RangeError);
  });
});

describe('replay', () => {
  it('brings a fresh actor to the recorded state, timers and child events included', () => {
    const { log, actor, clock } = recordDoor({}, 'door');
    actor.send(UNLOCK);
    actor.send({ type: 'door.knocked' });
    clock.increment(DEBOUNCE_MS);
    actor.send({ type: 'door.knocked' });
    expect(actor.getSnapshot().value).toBe('answering');

    const exported = JSON.parse(log.toJSON()) as ReturnType<typeof log.entries>;
    // A fresh system whose clock never moves: only the replayed events can drive it.
    const fresh = createActor(doorMachine, {
      clock: new SimulatedClock(),
      systemId: 'door',
    }).start();
    expect(replay(exported, fresh)).toBe(6);

    expect(fresh.getSnapshot().value).toBe('answering');
    expect(fresh.getSnapshot().context.knocks).toBe(2);
    // The credential was never stored, so the replayed actor sees the placeholder.
    expect(fresh.getSnapshot().context.token).toBe(REDACTED);
  });

  it('replays only the events of the given actor', () => {
    const log = createEventLog();
    const first = createActor(doorMachine, { inspect: log.inspect, systemId: 'first' }).start();
    const second = createActor(doorMachine, { inspect: log.inspect, systemId: 'second' }).start();
    first.send(UNLOCK);
    second.send({ type: 'door.locked' });

    const fresh = createActor(doorMachine).start();
    expect(replay(log.entries(), fresh, 'first')).toBe(1);
    expect(fresh.getSnapshot().value).toBe('open');
  });
});

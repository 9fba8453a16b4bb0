import { Subject } from 'rxjs';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromEventObservable, SimulatedClock } from 'xstate';
import type { HubActor } from '../streams/hub';
import {
  ANONYMOUS,
  EDIT_IDLE_MS,
  PRESENCE_COLORS,
  PRESENCE_DEBOUNCE_MS,
  presenceMachine,
  type PresenceActor,
  type PresenceSourceEvent,
} from './presenceMachine';
import { presenceLabel, selectPresentActors } from './presenceMachine.selectors';
import { unreachedStateIds } from './testing/reachability';

const ADA: HubActor = { id: 'u-ada', name: 'Ada' };
const BOB: HubActor = { id: 'u-bob', name: 'Bob' };

function startPresence({ selfId = 'u-me' }: { selfId?: string | null } = {}) {
  const clock = new SimulatedClock();
  const hub = new Subject<PresenceSourceEvent>();
  const greets: string[] = [];
  let subscriptions = 0;
  const actor = createActor(
    presenceMachine.provide({
      actors: {
        hubEvents: fromEventObservable(() => {
          subscriptions += 1;
          return hub;
        }),
      },
      actions: { greet: ({ context }) => void greets.push(context.channelId) },
    }),
    { clock, input: { channelId: 'ws-1', selfId } },
  ).start();
  return {
    actor,
    clock,
    greets,
    receive: (...events: PresenceSourceEvent[]) => events.forEach((event) => hub.next(event)),
    /** What the view shows. */
    shown: () => selectPresentActors(actor.getSnapshot()),
    /** The actors as of the last event, before the debounce. */
    roster: () => actor.getSnapshot().context.actors,
    /** Lets the debounce window close. */
    settle: () => clock.increment(PRESENCE_DEBOUNCE_MS),
    subscriptions: () => subscriptions,
  };
}

const arrived = (actor: HubActor) => ({ type: 'presence.arrived', actor }) as const;
const greeted = (actor: HubActor) => ({ type: 'presence.greeted', actor }) as const;
const departed = (actor: HubActor) =>
  ({ type: 'presence.departed', actor, action: 'PRESENCE.DEPARTED' }) as const;
const edited = (actor: HubActor) => ({ type: 'document.updated', actor, changes: [] }) as const;
const listed = (actors: HubActor[], channelId = 'ws-1') =>
  ({ type: 'presence.listed', channelId, actors }) as const;
const changed = (
  { arrived = [], departed = [] }: { arrived?: HubActor[]; departed?: HubActor[] },
  channelId = 'ws-1',
) => ({ type: 'presence.changed', channelId, arrived, departed }) as const;
const CAROL: HubActor = { id: 'u-carol', name: 'Carol' };

const summary = (actors: readonly PresenceActor[]) =>
  actors.map((a) => `${a.name}:${a.online ? 'on' : 'off'}${a.editing ? ':editing' : ''}`);

describe('presenceMachine', () => {
  it('greets an arrival on the channel and shows the actor online once changes settle', () => {
    const p = startPresence();
    p.receive(arrived(ADA));
    expect(p.greets).toEqual(['ws-1']);
    expect(summary(p.roster())).toEqual(['Ada:on']);

    p.clock.increment(PRESENCE_DEBOUNCE_MS - 1);
    expect(p.shown()).toEqual([]);
    p.clock.increment(1);
    expect(p.shown()).toEqual([
      { id: 'u-ada', name: 'Ada', color: 'success', online: true, editing: false, self: false },
    ]);
  });

  it('marks a greeting actor online without greeting back', () => {
    const p = startPresence();
    p.receive(greeted(BOB));
    p.settle();
    expect(summary(p.shown())).toEqual(['Bob:on']);
    expect(p.greets).toEqual([]);
  });

  it('greets every arrival, even of an actor already online', () => {
    const p = startPresence();
    p.receive(arrived(ADA), arrived(ADA));
    expect(p.greets).toEqual(['ws-1', 'ws-1']);
    expect(p.roster()).toHaveLength(1);
  });

  it('marks a departed actor offline and keeps them in the list', () => {
    const p = startPresence();
    p.receive(arrived(ADA), greeted(BOB));
    p.settle();
    p.receive(departed(ADA));
    p.settle();
    expect(summary(p.shown())).toEqual(['Ada:off', 'Bob:on']);
    expect(presenceLabel(p.shown()[0] as PresenceActor)).toBe('Ada, disconnected');
    expect(presenceLabel(p.shown()[1] as PresenceActor)).toBe('Bob, connected');
  });

  it('gives colors in rotation in order of arrival', () => {
    const p = startPresence();
    const actors = Array.from({ length: 7 }, (_, i) => ({ id: `u-${i}`, name: `User ${i}` }));
    p.receive(...actors.map(greeted));
    p.settle();
    expect(p.shown().map((actor) => actor.color)).toEqual([
      ...PRESENCE_COLORS,
      PRESENCE_COLORS[0],
      PRESENCE_COLORS[1],
    ]);
    expect(PRESENCE_COLORS).toEqual(['success', 'secondary', 'info', 'warning', 'primary']);
  });

  it("names an actor without a name 'anonymous'", () => {
    const p = startPresence();
    p.receive(arrived({ id: 'u-x', name: '' }));
    p.settle();
    expect(p.shown()[0]?.name).toBe(ANONYMOUS);
    expect(ANONYMOUS).toBe('anonymous');
  });

  it('marks the signed-in user seen from another tab as self', () => {
    const p = startPresence({ selfId: 'u-ada' });
    p.receive(arrived(ADA), arrived(BOB));
    p.settle();
    expect(p.shown().map((actor) => actor.self)).toEqual([true, false]);
    expect(presenceLabel(p.shown()[0] as PresenceActor)).toBe('Ada (you, elsewhere), connected');
  });

  // Our server's batched form (asked for with ?presence=batched): the server tells a newcomer
  // who is present, so nobody greets.
  describe('batched form', () => {
    it('takes the list of who was present on joining, greeting nobody', () => {
      const p = startPresence({ selfId: 'u-ada' });
      p.receive(listed([ADA, BOB]));
      p.settle();
      expect(summary(p.shown())).toEqual(['Ada:on', 'Bob:on']);
      expect(presenceLabel(p.shown()[0] as PresenceActor)).toBe('Ada (you, elsewhere), connected');
      expect(p.greets).toEqual([]);
    });

    it('marks arrivals online and departures offline, greeting nobody', () => {
      const p = startPresence();
      p.receive(listed([ADA]), edited(ADA));
      p.receive(changed({ arrived: [BOB], departed: [ADA] }));
      p.settle();
      expect(summary(p.shown())).toEqual(['Ada:off', 'Bob:on']);
      p.receive(changed({ arrived: [ADA], departed: [BOB] }));
      p.settle();
      expect(summary(p.shown())).toEqual(['Ada:on', 'Bob:off']);
      expect(p.greets).toEqual([]);
    });

    it('does not add someone it never saw who departed', () => {
      const p = startPresence();
      p.receive(changed({ departed: [CAROL] }));
      expect(p.roster()).toEqual([]);
      expect(p.actor.getSnapshot().value).toBe('settled');
    });

    it('ignores the lists and changes of other channels', () => {
      const p = startPresence();
      p.receive(listed([ADA], 'ws-2'), changed({ arrived: [BOB] }, 'ws-2'));
      expect(p.roster()).toEqual([]);
      expect(p.actor.getSnapshot().value).toBe('settled');
    });
  });

  describe('editing', () => {
    it('marks an editing actor until EDIT_IDLE_MS without edits, each edit restarting the wait', () => {
      const p = startPresence();
      p.receive(arrived(ADA), edited(ADA));
      p.settle();
      expect(summary(p.shown())).toEqual(['Ada:on:editing']);
      expect(presenceLabel(p.shown()[0] as PresenceActor)).toBe('Ada, connected, editing');

      p.clock.increment(EDIT_IDLE_MS - PRESENCE_DEBOUNCE_MS - 1);
      p.receive(edited(ADA));
      p.clock.increment(EDIT_IDLE_MS - 1);
      expect(summary(p.roster())).toEqual(['Ada:on:editing']);
      p.clock.increment(1);
      expect(summary(p.roster())).toEqual(['Ada:on']);
      p.settle();
      expect(summary(p.shown())).toEqual(['Ada:on']);
    });

    it('times each actor out on their own', () => {
      const p = startPresence();
      p.receive(arrived(ADA), arrived(BOB), edited(ADA));
      p.clock.increment(EDIT_IDLE_MS / 2);
      p.receive(edited(BOB));
      p.clock.increment(EDIT_IDLE_MS / 2);
      expect(summary(p.roster())).toEqual(['Ada:on', 'Bob:on:editing']);
      p.clock.increment(EDIT_IDLE_MS / 2);
      expect(summary(p.roster())).toEqual(['Ada:on', 'Bob:on']);
    });

    it('counts an edit from someone not seen yet as their presence', () => {
      const p = startPresence();
      p.receive(edited(BOB));
      expect(summary(p.roster())).toEqual(['Bob:on:editing']);
    });

    it('ends editing on an idle event and on departure', () => {
      const p = startPresence();
      p.receive(arrived(ADA), arrived(BOB), edited(ADA), edited(BOB));
      p.receive({ type: 'document.idled', actor: ADA }, departed(BOB));
      expect(summary(p.roster())).toEqual(['Ada:on', 'Bob:off']);
    });
  });

  // The app's source reports a hub that is down at once when subscribed: subscribing again on
  // every change would loop for ever.
  it('listens to the hub once for its whole life, whatever changes', () => {
    const p = startPresence();
    p.receive(arrived(ADA), edited(ADA), greeted(BOB), { type: 'hub.disconnected' });
    p.settle();
    p.receive(arrived(ADA));
    expect(p.subscriptions()).toBe(1);
    expect(summary(p.roster())).toEqual(['Ada:on', 'Bob:off']);
  });

  it('marks everyone offline when the hub connection drops', () => {
    const p = startPresence();
    p.receive(arrived(ADA), edited(BOB));
    p.settle();
    p.receive({ type: 'hub.disconnected' });
    p.settle();
    expect(summary(p.shown())).toEqual(['Ada:off', 'Bob:off']);
  });

  describe('debounce', () => {
    it('publishes a burst of changes once, PRESENCE_DEBOUNCE_MS after the last', () => {
      const p = startPresence();
      const published: string[][] = [];
      p.actor.subscribe((snapshot) => {
        const shown = summary(selectPresentActors(snapshot));
        if (JSON.stringify(published.at(-1) ?? []) !== JSON.stringify(shown)) published.push(shown);
      });
      p.receive(arrived(ADA));
      p.clock.increment(PRESENCE_DEBOUNCE_MS - 100);
      p.receive(arrived(BOB));
      p.clock.increment(PRESENCE_DEBOUNCE_MS - 1);
      expect(p.shown()).toEqual([]);
      p.clock.increment(1);
      expect(published).toEqual([['Ada:on', 'Bob:on']]);
      expect(PRESENCE_DEBOUNCE_MS).toBe(500);
    });

    it('is not held back by events that change nothing, such as a steady stream of edits', () => {
      const p = startPresence();
      p.receive(arrived(ADA), edited(ADA));
      p.settle();
      p.receive(greeted(BOB));
      for (let elapsed = 0; elapsed < PRESENCE_DEBOUNCE_MS; elapsed += 100) {
        p.receive(edited(ADA), greeted(BOB));
        p.clock.increment(100);
      }
      expect(summary(p.shown())).toEqual(['Ada:on:editing', 'Bob:on']);
    });

    it('keeps the same list between changes, so views do not re-render', () => {
      const p = startPresence();
      p.receive(arrived(ADA));
      p.settle();
      const before = p.shown();
      p.receive(greeted(ADA));
      p.settle();
      expect(p.shown()).toBe(before);
    });
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(presenceMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ channelId: 'ws-1', selfId: null }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: one remote actor's presence as the spec's rules (§4 Presence, document
 * editing) describe it, driving the real actor and asserting the actor's entry after each step.
 */
describe('presenceMachine against the spec model', () => {
  type ModelEvent =
    | { type: 'ARRIVED' }
    | { type: 'GREETED' }
    | { type: 'DEPARTED' }
    | { type: 'EDITED' }
    | { type: 'IDLE_ELAPSED' }
    /** The server's document.idled for the actor. */
    | { type: 'IDLED' }
    | { type: 'DISCONNECTED' }
    /** The batched form: the actor listed when we joined, or in a change as arrived. */
    | { type: 'LISTED' }
    | { type: 'CHANGED_ARRIVED' }
    /** The batched form: the actor in a change as departed (known actors only). */
    | { type: 'CHANGED_DEPARTED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'presenceModel',
    initial: 'absent',
    states: {
      absent: {
        on: {
          IDLED: 'absent',
          ARRIVED: 'online',
          GREETED: 'online',
          DEPARTED: 'offline',
          EDITED: 'editing',
          IDLE_ELAPSED: 'absent',
          DISCONNECTED: 'absent',
          LISTED: 'online',
          CHANGED_ARRIVED: 'online',
          CHANGED_DEPARTED: 'absent',
        },
      },
      online: {
        on: {
          IDLED: 'online',
          ARRIVED: 'online',
          GREETED: 'online',
          DEPARTED: 'offline',
          EDITED: 'editing',
          IDLE_ELAPSED: 'online',
          DISCONNECTED: 'offline',
          LISTED: 'online',
          CHANGED_ARRIVED: 'online',
          CHANGED_DEPARTED: 'offline',
        },
      },
      editing: {
        on: {
          IDLED: 'online',
          ARRIVED: 'editing',
          GREETED: 'editing',
          DEPARTED: 'offline',
          EDITED: 'editing',
          IDLE_ELAPSED: 'online',
          DISCONNECTED: 'offline',
          LISTED: 'editing',
          CHANGED_ARRIVED: 'editing',
          CHANGED_DEPARTED: 'offline',
        },
      },
      offline: {
        on: {
          IDLED: 'offline',
          ARRIVED: 'online',
          GREETED: 'online',
          DEPARTED: 'offline',
          EDITED: 'editing',
          IDLE_ELAPSED: 'offline',
          DISCONNECTED: 'offline',
          LISTED: 'online',
          CHANGED_ARRIVED: 'online',
          CHANGED_DEPARTED: 'offline',
        },
      },
    },
  });

  it('agrees with the real machine', () => {
    // The model follows one actor's entry; whether the view's copy is settled or still
    // debouncing is the machine's timing, which every model state spans.
    const both = ['settled', 'debouncing'];
    expect(
      modelDisagreements(model, presenceMachine, {
        states: { absent: both, online: both, editing: both, offline: both },
        events: {
          ARRIVED: 'presence.arrived',
          GREETED: 'presence.greeted',
          DEPARTED: 'presence.departed',
          EDITED: 'document.updated',
          IDLE_ELAPSED: ['presence.editIdled', 'xstate.after.presenceDebounce.presence.debouncing'],
          IDLED: 'document.idled',
          DISCONNECTED: 'hub.disconnected',
          LISTED: 'presence.listed',
          CHANGED_ARRIVED: 'presence.changed',
          CHANGED_DEPARTED: 'presence.changed',
        },
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
      const p = startPresence();
      let arrivals = 0;
      const expectAda = (expected: Pick<PresenceActor, 'online' | 'editing'> | null) => () => {
        const ada = p.roster().find((actor) => actor.id === ADA.id) ?? null;
        expect(ada && { online: ada.online, editing: ada.editing }).toEqual(expected);
        expect(p.greets).toHaveLength(arrivals);
      };
      await path.test({
        states: {
          absent: expectAda(null),
          online: expectAda({ online: true, editing: false }),
          editing: expectAda({ online: true, editing: true }),
          offline: expectAda({ online: false, editing: false }),
        },
        events: {
          ARRIVED: () => {
            arrivals += 1;
            p.receive(arrived(ADA));
          },
          GREETED: () => p.receive(greeted(ADA)),
          DEPARTED: () => p.receive(departed(ADA)),
          EDITED: () => p.receive(edited(ADA)),
          IDLE_ELAPSED: () => p.clock.increment(EDIT_IDLE_MS),
          IDLED: () => p.receive({ type: 'document.idled', actor: ADA }),
          DISCONNECTED: () => p.receive({ type: 'hub.disconnected' }),
          LISTED: () => p.receive(listed([ADA])),
          CHANGED_ARRIVED: () => p.receive(changed({ arrived: [ADA] })),
          CHANGED_DEPARTED: () => p.receive(changed({ departed: [ADA] })),
        },
      });
    });
  }
});

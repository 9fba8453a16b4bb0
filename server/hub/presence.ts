import {
  batchFrame,
  changeFrame,
  directFrame,
  HUB_ACTOR,
  isControlFrame,
  presenceFrame,
  PRESENCE_ACTIONS,
  readControl,
  type Batch,
  type ChangedModel,
  type MemberAction,
  type PresenceActor,
  type PresentModel,
} from './presenceWire';

// Who is on a channel (wire reference §3: Listen, Leave, Greet), told in two forms.
//
// The reference form, for clients that speak the reference's protocol (the reference UI, the
// agent): a PresenceEvent per member and per change, PRESENCE.ARRIVED / DEPARTED / GREETED sent
// to the others, and each client greeting every arrival so that the newcomer learns who is here.
// Joining a channel of N members costs N messages plus N greetings of N messages each: a channel
// of thousands is quadratic (issue 27).
//
// The batched form, for clients that ask for it by connecting with `?presence=batched` (our SPA):
// - on Listen, the newcomer gets one PRESENCE.PRESENT listing who is on the channel, before
//   Listen's completion (one more from each other server process that has members there);
// - the others get at most one PRESENCE.CHANGED per channel every PRESENCE_BATCH_MS, naming the
//   people whose presence changed since the last one;
// - nobody greets: the server knows who is present.
// Both carry `{ action, actor: the hub (EMPTY_GUID, 'Topoplay'), model }`; see PresentModel and
// ChangedModel. Presence there is per person (user id), not per connection: a person is present
// while any of their connections listens on this server process, and "departed" when the last
// one leaves (so a person also listening through another process is reported departed then, as
// the reference reports the departure of each connection). The recipient's own connection does
// not count: a person listed with the recipient's own id is that user in another tab.
//
// So that a reference-form newcomer still learns who is here, the server greets it
// (PRESENCE.GREETED per person) on behalf of the people who will not greet it themselves: those
// whose every connection is in the batched form, and, in a channel above the limit below, all.
//
// Both forms are bounded, so that a join costs the same in a channel of ten or ten thousand:
// - Quirk (reference form): per-member events reach a reference-form client only while the
//   channel has at most `limit` (PRESENCE_LIMIT, 100) connections on its server process. In a
//   bigger channel it hears of no arrival, departure or greeting by others, only the server's
//   greetings when it arrives itself.
// - Quirk (both forms): only the first `limit` people to arrive on a server process are named,
//   in snapshots, greetings and batches; someone further down the list is named once enough of
//   those before them have left.
//
// This file keeps the counts and decides who is told what; the messages and the control frames
// between server processes are encoded in presenceWire.ts.

/** Presence changes on one channel reach batched-form clients at most this often. */
export const PRESENCE_BATCH_MS = 500;
/** The most people one presence message names, and the channel size for per-member events. */
export const PRESENCE_LIMIT = 100;
/** `/hub?presence=batched` opts a connection in to the batched form. */
export const BATCHED_PRESENCE_QUERY = { name: 'presence', value: 'batched' } as const;

/** A connection as presence sees it. */
export interface PresenceMember {
  id: string;
  user: PresenceActor;
  /** Asked for the batched form (`?presence=batched`). */
  batched: boolean;
  groups: ReadonlySet<string>;
}

export interface PresenceOptions<M extends PresenceMember> {
  limit?: number;
  /** This process's connections listening on `room`. */
  members(room: string): ReadonlySet<M> | undefined;
  /** This process's connection with that id. */
  connection(id: string): M | undefined;
  write(member: M, frame: Buffer): void;
  /** A control frame for every server process, this one included (the backplane). */
  publish(room: string, frame: Buffer): void;
  /** Event messages written by one delivery (metrics). */
  sent?(count: number): void;
}

export interface Presence<M extends PresenceMember> {
  /** `member` now listens on `room` (counted at once, announced by `announce`). */
  entered(member: M, room: string): void;
  /** Tells the channel, on every process, that `member` arrived or greeted. */
  announce(member: M, room: string, action: 'PRESENCE.ARRIVED' | 'PRESENCE.GREETED'): void;
  /** `member` left `room`: uncounted and announced. */
  left(member: M, room: string): void;
  /** Whether a backplane frame is one of presence's control frames. */
  handles(frame: Buffer): boolean;
  /** A control frame from the backplane, for this process's members of `room`. */
  received(room: string, frame: Buffer): void;
  /** Sends every pending batch now and stops the timers (shutdown). */
  flush(): void;
}

interface Person {
  user: PresenceActor;
  /** This process's connections of this person on the room. */
  connections: number;
  /** How many of those are in the batched form (and so never greet). */
  batched: number;
}

/** One room's presence on this process. */
interface Room {
  /** People with a connection here, in order of arrival. */
  people: Map<string, Person>;
  /** Who the last batch named (the first `limit` people then). */
  named: Map<string, PresenceActor>;
  /**
   * Whose presence changed since the last batch as someone sees it: their connection count went
   * between 0 and 1 (present or not, for others) or between 1 and 2 (present in another tab or
   * not, for their own connections). A third tab changes nothing anyone is told.
   */
  changed: Set<string>;
  lastBatch: number;
  cancel: (() => void) | null;
}

export function createPresence<M extends PresenceMember>(
  origin: string,
  options: PresenceOptions<M>,
): Presence<M> {
  const { members, connection, write, publish, sent } = options;
  const limit = options.limit ?? PRESENCE_LIMIT;
  const rooms = new Map<string, Room>();

  const roomOf = (room: string): Room => {
    let state = rooms.get(room);
    if (!state) {
      state = {
        people: new Map(),
        named: new Map(),
        changed: new Set(),
        lastBatch: 0,
        cancel: null,
      };
      rooms.set(room, state);
    }
    return state;
  };

  /** The first `limit` people, the only ones presence names. */
  function named(state: Room): Map<string, Person> {
    const first = new Map<string, Person>();
    for (const [id, person] of state.people) {
      if (first.size === limit) break;
      first.set(id, person);
    }
    return first;
  }

  function batch(room: string, state: Room) {
    state.cancel = null;
    state.lastBatch = Date.now();
    const current = named(state);
    const entries: Batch['e'] = [];
    for (const [id, person] of current) {
      if (!state.named.has(id) || state.changed.has(id)) {
        entries.push([id, person.user.name, person.connections]);
      }
    }
    for (const [id, user] of state.named) if (!current.has(id)) entries.push([id, user.name, 0]);
    state.changed.clear();
    state.named = new Map([...current].map(([id, person]) => [id, person.user]));
    if (state.people.size === 0) rooms.delete(room);
    if (entries.length) publish(room, batchFrame({ o: origin, e: entries }));
  }

  /**
   * The first change after a quiet spell goes out at the end of this turn of the event loop;
   * later ones wait until PRESENCE_BATCH_MS after the previous batch.
   */
  function schedule(room: string, state: Room, id: string) {
    state.changed.add(id);
    if (state.cancel) return;
    const wait = state.lastBatch + PRESENCE_BATCH_MS - Date.now();
    if (wait > 0) {
      const timer = setTimeout(() => batch(room, state), wait);
      timer.unref();
      state.cancel = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => batch(room, state));
      state.cancel = () => clearImmediate(immediate);
    }
  }

  /**
   * Tells a batched-form connection's own person is present elsewhere (another tab) on these
   * rooms: a batch tells a connection of its own person only when that changes, so that it never
   * hears of itself.
   */
  const elsewhere = new WeakMap<M, Set<string>>();
  const toldElsewhere = (member: M, room: string, present: boolean) => {
    let rooms = elsewhere.get(member);
    if (present) {
      if (!rooms) elsewhere.set(member, (rooms = new Set()));
      rooms.add(room);
    } else rooms?.delete(room);
  };

  /**
   * The reference form: one event to each reference-form member, in a small enough room. A
   * departure from this process is judged with the departed connection, as its arrival was.
   */
  function perMember(room: string, except: string, departedHere: boolean, frame: () => Buffer) {
    const here = members(room);
    if (!here || here.size + (departedHere ? 1 : 0) > limit) return;
    let message: Buffer | null = null;
    let count = 0;
    for (const member of here) {
      if (member.batched || member.id === except) continue;
      message ??= frame();
      write(member, message);
      count += 1;
    }
    if (count) sent?.(count);
  }

  /**
   * Tells a newcomer who is on `room` on this process, in the form it asked for: everyone, in the
   * batched form; in the reference form, greetings from those who will not greet it themselves.
   */
  function welcome(room: string, newcomerId: string, batched: boolean) {
    const local = connection(newcomerId);
    const newcomer = local?.groups.has(room) ? local : undefined;
    // Reference-form members greet an arrival they were told of (see perMember).
    const theyGreet = !batched && (members(room)?.size ?? 0) <= limit;
    const people: PresenceActor[] = [];
    const state = rooms.get(room);
    if (state) {
      for (const person of named(state).values()) {
        // The newcomer's own connection is not someone else on the channel.
        const own = person.user.id === newcomer?.user.id;
        const others = person.connections - (own ? 1 : 0);
        const greeters = others - (person.batched - (own && newcomer.batched ? 1 : 0));
        if (others > 0 && !(theyGreet && greeters > 0)) people.push(person.user);
      }
    }
    // Another process with nobody there has nothing to say; this one always answers the form.
    if (!people.length && !(newcomer && batched)) return;
    const frame = batched
      ? presenceFrame(PRESENCE_ACTIONS.present, HUB_ACTOR, {
          channelId: room,
          actors: people,
        } satisfies PresentModel)
      : Buffer.concat(people.map((user) => presenceFrame(PRESENCE_ACTIONS.greeted, user)));
    if (newcomer) {
      if (batched) {
        toldElsewhere(
          newcomer,
          room,
          people.some((user) => user.id === newcomer.user.id),
        );
      }
      write(newcomer, frame);
      sent?.(batched ? 1 : people.length);
    } else if (!local) {
      publish(room, directFrame(newcomerId, frame));
    }
  }

  /** One process's batch to this process's batched-form members. */
  function deliverBatch(room: string, { o, e }: Batch) {
    const here = members(room);
    if (!here) return;
    // Counts from this process include the recipient's own connection: to a connection of a
    // person in the batch, that person is present elsewhere if they have another here, and it is
    // told so only if that changed. Everyone else gets one frame.
    const counts = new Map(o === origin ? e.map(([id, , connections]) => [id, connections]) : []);
    const frames = new Map<string, Buffer | null>();
    const frameFor = (self: string, told: boolean): Buffer | null => {
      const key = self ? `${told}${self}` : '';
      let frame = frames.get(key);
      if (frame === undefined) {
        const model: ChangedModel = { channelId: room, arrived: [], departed: [] };
        for (const [id, name, connections] of e) {
          if (id === self) {
            if (connections > 1 !== told)
              (told ? model.departed : model.arrived).push({ id, name });
          } else (connections > 0 ? model.arrived : model.departed).push({ id, name });
        }
        frame =
          model.arrived.length || model.departed.length
            ? presenceFrame(PRESENCE_ACTIONS.changed, HUB_ACTOR, model)
            : null;
        frames.set(key, frame);
      }
      return frame;
    };
    let count = 0;
    for (const member of here) {
      if (!member.batched) continue;
      const self = member.user.id;
      const connections = counts.get(self);
      let frame: Buffer | null;
      if (connections === undefined) frame = frameFor('', false);
      else {
        frame = frameFor(self, elsewhere.get(member)?.has(room) ?? false);
        toldElsewhere(member, room, connections > 1);
      }
      if (frame) {
        write(member, frame);
        count += 1;
      }
    }
    if (count) sent?.(count);
  }

  function announceChange(member: M, room: string, action: MemberAction) {
    publish(
      room,
      changeFrame({ a: action, c: member.id, u: member.user, b: member.batched, o: origin }),
    );
  }

  return {
    entered(member, room) {
      const state = roomOf(room);
      const person = state.people.get(member.user.id);
      const batched = member.batched ? 1 : 0;
      if (person) {
        person.connections += 1;
        person.batched += batched;
        if (person.connections === 2) schedule(room, state, member.user.id);
      } else {
        state.people.set(member.user.id, { user: member.user, connections: 1, batched });
        schedule(room, state, member.user.id);
      }
    },

    announce(member, room, action) {
      announceChange(member, room, action);
    },

    left(member, room) {
      const state = rooms.get(room);
      const person = state?.people.get(member.user.id);
      if (state && person) {
        person.connections -= 1;
        if (member.batched) person.batched -= 1;
        if (person.connections === 0) state.people.delete(member.user.id);
        if (person.connections < 2) schedule(room, state, member.user.id);
      }
      announceChange(member, room, PRESENCE_ACTIONS.departed);
    },

    handles: isControlFrame,

    received(room, frame) {
      const message = readControl(frame);
      if (message.kind === 'direct') {
        const target = connection(message.connectionId);
        if (target?.groups.has(room)) {
          write(target, message.frame);
          sent?.(1);
        }
        return;
      }
      if (message.kind === 'batch') {
        deliverBatch(room, message.batch);
        return;
      }
      const { a, c, u, b, o } = message.change;
      const departedHere = a === PRESENCE_ACTIONS.departed && o === origin;
      perMember(room, c, departedHere, () => presenceFrame(a, u));
      if (a === PRESENCE_ACTIONS.arrived) welcome(room, c, b);
    },

    flush() {
      for (const [room, state] of [...rooms]) {
        if (!state.cancel) continue;
        state.cancel();
        batch(room, state);
      }
    },
  };
}

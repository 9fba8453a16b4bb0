import {
  assign,
  enqueueActions,
  fromEventObservable,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { DocumentHubEvent, HubActor, PresenceHubEvent } from '../streams/hub';

/** Actors get these colors in rotation, in order of arrival (spec §3 Actor). */
export const PRESENCE_COLORS = ['success', 'secondary', 'info', 'warning', 'primary'] as const;
export type PresenceColor = (typeof PRESENCE_COLORS)[number];
/** Edits mark an actor as editing until this long without another (spec §4, §9). */
export const EDIT_IDLE_MS = 3_000;
/** Presence changes reach the view at most this often, once they settle (spec §9). */
export const PRESENCE_DEBOUNCE_MS = 500;
/** Shown for an actor whose name the server did not send. */
export const ANONYMOUS = 'anonymous';

/** Someone seen on the channel (spec §3 Actor). */
export interface PresenceActor {
  id: string;
  /** The actor's name, or 'anonymous'. */
  name: string;
  color: PresenceColor;
  /** Arrived or greeted, and neither departed since nor lost to a dropped connection. */
  online: boolean;
  /** Sent an edit less than EDIT_IDLE_MS ago. */
  editing: boolean;
  /**
   * The signed-in user, present from another tab or device: the server never tells a connection
   * about itself, so this is the same person elsewhere, not this page.
   */
  self: boolean;
}

export type PresenceEvent =
  | PresenceHubEvent
  | DocumentHubEvent
  /** The hub connection is down: nobody can be seen until it is back and they greet again. */
  | { type: 'hub.disconnected' }
  /** EDIT_IDLE_MS passed since the actor's last edit (raised by the machine itself). */
  | { type: 'presence.editIdled'; actorId: string };

/** The hub events the machine listens to; the app provides them from the hub adapter. */
export type PresenceSourceEvent =
  PresenceHubEvent | DocumentHubEvent | { type: 'hub.disconnected' };

export interface PresenceInput {
  channelId: string;
  /** The signed-in user's id, when known: their other tabs are marked `self`. */
  selfId: string | null;
}

export interface PresenceContext extends PresenceInput {
  /** Everyone seen since the channel opened, in order of arrival, as of the last event. */
  actors: PresenceActor[];
  /** `actors` as the view shows it: updated once changes have settled for PRESENCE_DEBOUNCE_MS. */
  shown: PresenceActor[];
}

const notProvided = (name: string): Error =>
  new Error(`presenceMachine: '${name}' is provided by the app (src/app)`);

const editIdleId = (actorId: string) => `editIdle:${actorId}`;

type Changes = Partial<Pick<PresenceActor, 'online' | 'editing'>>;

const differs = (actor: PresenceActor, changes: Changes, name?: string) =>
  (Object.keys(changes) as Array<keyof Changes>).some((key) => actor[key] !== changes[key]) ||
  (name !== undefined && actor.name !== name);

/**
 * The actors with `who` changed, added at the end if new; the same array if nothing changed.
 * Hub events are validated where they enter (src/streams/hub.ts); an event without an actor (a
 * synthetic one, such as a model traversal sends) changes nothing.
 */
function upsert(
  context: PresenceContext,
  who: HubActor | undefined,
  changes: Changes,
): PresenceActor[] {
  if (who === undefined) return context.actors;
  const name = who.name || ANONYMOUS;
  const index = context.actors.findIndex((actor) => actor.id === who.id);
  const known = context.actors[index];
  if (known === undefined) {
    const added: PresenceActor = {
      id: who.id,
      name,
      color: PRESENCE_COLORS[context.actors.length % PRESENCE_COLORS.length] as PresenceColor,
      online: false,
      editing: false,
      self: who.id === context.selfId,
      ...changes,
    };
    return [...context.actors, added];
  }
  if (!differs(known, changes, name)) return context.actors;
  return context.actors.map((actor, i) => (i === index ? { ...actor, ...changes, name } : actor));
}

/** `upsert` for each of `people`; the same array if nobody changed. */
function upsertAll(
  context: PresenceContext,
  people: readonly HubActor[],
  changes: Changes,
): PresenceActor[] {
  return people.reduce(
    (actors, who) => upsert({ ...context, actors }, who, changes),
    context.actors,
  );
}

/** Changes a known actor; unknown ids change nothing. */
function update(
  context: PresenceContext,
  actorId: string | undefined,
  changes: Changes,
): PresenceActor[] {
  const known = context.actors.find((actor) => actor.id === actorId);
  if (known === undefined || !differs(known, changes)) return context.actors;
  return context.actors.map((actor) => (actor.id === actorId ? { ...actor, ...changes } : actor));
}

/**
 * What an event does to the actors (spec §4 Presence): arriving or greeting marks them online,
 * any other presence action offline; an edit marks them editing (and present: only a listener
 * can edit) until EDIT_IDLE_MS idle. The batched form (our server's, src/streams/hub.ts) names
 * its channel: a list or a change on another channel changes nothing here. Someone it says left
 * whom this page never saw is not added: a newcomer may hear of a departure from before it came.
 */
function rosterAfter(context: PresenceContext, event: PresenceEvent): PresenceActor[] {
  switch (event.type) {
    case 'presence.arrived':
    case 'presence.greeted':
      return upsert(context, event.actor, { online: true });
    case 'presence.departed':
      return upsert(context, event.actor, { online: false, editing: false });
    case 'presence.listed':
      if (event.channelId !== context.channelId) return context.actors;
      return upsertAll(context, event.actors, { online: true });
    case 'presence.changed': {
      if (event.channelId !== context.channelId) return context.actors;
      const arrived = upsertAll(context, event.arrived, { online: true });
      return event.departed.reduce(
        (actors, who) => update({ ...context, actors }, who.id, { online: false, editing: false }),
        arrived,
      );
    }
    case 'document.updated':
      return upsert(context, event.actor, { online: true, editing: true });
    case 'document.idled':
      return update(context, event.actor?.id, { editing: false });
    case 'presence.editIdled':
      return update(context, event.actorId, { editing: false });
    case 'hub.disconnected':
      return context.actors.some((actor) => actor.online || actor.editing)
        ? context.actors.map((actor) => ({ ...actor, online: false, editing: false }))
        : context.actors;
    case 'document.saved':
    case 'document.cursorChanged':
      return context.actors;
  }
}

/** A change (re)starts the debounce window; when it closes the view gets the actors. */
const changeRoster = {
  guard: 'changesRoster',
  target: 'debouncing',
  reenter: true,
  actions: 'updateRoster',
} as const;

/**
 * The events of both states. They are declared on the states, not on the root: a re-entering
 * transition of the root would re-enter the root itself, restarting its hub subscription.
 */
const rosterEvents = {
  'presence.arrived': [
    { ...changeRoster, actions: ['greet', 'updateRoster'] },
    { actions: 'greet' },
  ],
  'presence.greeted': changeRoster,
  'presence.departed': changeRoster,
  // The batched form needs no greeting: the server tells newcomers who is here.
  'presence.listed': changeRoster,
  'presence.changed': changeRoster,
  'document.updated': [
    { ...changeRoster, actions: ['updateRoster', 'scheduleEditIdle'] },
    { actions: 'scheduleEditIdle' },
  ],
  'document.idled': changeRoster,
  'presence.editIdled': changeRoster,
  // Unguarded: a dropped connection is rare, and the view must stop showing anyone online.
  'hub.disconnected': { target: 'debouncing', reenter: true, actions: 'updateRoster' },
} as const;

/**
 * Who else is on one channel (a workspace): one actor per channel while it is open. Greets each
 * newcomer announced in the reference's per-member form so that they learn who is here (the
 * batched form tells them itself), tracks who is online and who is editing, and hands the view a
 * debounced list.
 */
export const presenceMachine = setup({
  types: {
    input: {} as PresenceInput,
    context: {} as PresenceContext,
    events: {} as PresenceEvent,
  },
  actors: {
    /** The channel's presence and document events, and `hub.disconnected`. */
    hubEvents: fromEventObservable<PresenceSourceEvent, { channelId: string }>(() => {
      throw notProvided('hubEvents');
    }),
  },
  actions: {
    /** Invokes Greet(channelId) on the hub, so that the newcomer learns we are here. */
    greet: () => {
      throw notProvided('greet');
    },
    updateRoster: assign({ actors: ({ context, event }) => rosterAfter(context, event) }),
    publish: assign({ shown: ({ context }) => context.actors }),
    /** Restarts the actor's idle timer: editing ends EDIT_IDLE_MS after the last edit. */
    scheduleEditIdle: enqueueActions(({ event, enqueue }) => {
      if (event.type !== 'document.updated' || event.actor === undefined) return;
      const actorId = event.actor.id;
      enqueue.cancel(editIdleId(actorId));
      enqueue.raise(
        { type: 'presence.editIdled', actorId },
        { id: editIdleId(actorId), delay: 'editIdle' },
      );
    }),
  },
  guards: {
    changesRoster: ({ context, event }) => rosterAfter(context, event) !== context.actors,
  },
  delays: {
    editIdle: EDIT_IDLE_MS,
    presenceDebounce: PRESENCE_DEBOUNCE_MS,
  },
}).createMachine({
  id: 'presence',
  description:
    'Who else is on a channel: greets per-member arrivals, takes batched lists and changes of its channel, marks actors online or offline and editing until 3 s idle, and publishes the list once changes settle for 500 ms.',
  context: ({ input }) => ({ ...input, actors: [], shown: [] }),
  invoke: {
    id: 'hubEvents',
    src: 'hubEvents',
    input: ({ context }) => ({ channelId: context.channelId }),
  },
  initial: 'settled',
  states: {
    settled: { on: rosterEvents },
    debouncing: {
      on: rosterEvents,
      after: { presenceDebounce: { target: 'settled', actions: 'publish' } },
    },
  },
});

export type PresenceActorRef = ActorRefFrom<typeof presenceMachine>;
export type PresenceSnapshot = SnapshotFrom<typeof presenceMachine>;

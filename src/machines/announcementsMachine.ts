import { assign, fromCallback, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';

/** An administrator's announcement as the banner shows it; `id` is local to this tab. */
export interface Announcement {
  id: number;
  message: string;
  /** Who announced it (the actor's name), '' when the server did not say. */
  from: string;
}

/** At most this many announcements are shown at once; a newer one pushes out the oldest. */
export const MAX_ANNOUNCEMENTS = 3;

export type AnnouncementsEvent =
  | { type: 'global.announced'; message: string; from: string }
  | { type: 'announcement.dismissRequested'; id: number }
  | { type: 'session.ended' };

const notProvided = (name: string): Error =>
  new Error(`announcementsMachine: '${name}' is provided by the app (src/app)`);

/**
 * The announcements administrators send to every connection (GLOBAL.ANNOUNCE, wire reference
 * §1.8), kept until the user dismisses them. Only a signed-in user's hub connection hears them;
 * signing out forgets them, since they were meant for the session that heard them.
 */
export const announcementsMachine = setup({
  types: {
    context: {} as { announcements: Announcement[]; nextId: number },
    events: {} as AnnouncementsEvent,
  },
  actors: {
    /** The hub's GlobalEvents as `global.announced`. */
    globalEvents: fromCallback<AnnouncementsEvent>(() => {
      throw notProvided('globalEvents');
    }),
  },
  guards: {
    hasMessage: (_, { message }: { message: string }) => message.trim() !== '',
  },
}).createMachine({
  id: 'announcements',
  description: "Administrators' announcements, heard on the hub and shown until dismissed.",
  context: { announcements: [], nextId: 1 },
  initial: 'listening',
  states: {
    listening: {
      invoke: { id: 'globalEvents', src: 'globalEvents' },
      on: {
        'global.announced': {
          guard: { type: 'hasMessage', params: ({ event }) => ({ message: event.message }) },
          actions: assign(({ context, event }) => ({
            announcements: [
              ...context.announcements,
              { id: context.nextId, message: event.message, from: event.from },
            ].slice(-MAX_ANNOUNCEMENTS),
            nextId: context.nextId + 1,
          })),
        },
        'announcement.dismissRequested': {
          actions: assign({
            announcements: ({ context, event }) =>
              context.announcements.filter((a) => a.id !== event.id),
          }),
        },
        'session.ended': { actions: assign({ announcements: [] }) },
      },
    },
  },
});

export type AnnouncementsActorRef = ActorRefFrom<typeof announcementsMachine>;
export type AnnouncementsSnapshot = SnapshotFrom<typeof announcementsMachine>;

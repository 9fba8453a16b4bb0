import { fromCallback } from 'xstate';
import type { AnnouncementsEvent, announcementsMachine } from '../machines/announcementsMachine';
import { globalEvents$, type HubEventSource } from '../streams/hub';

/** The announcements machine's effect: the hub's GLOBAL.ANNOUNCE events, whichever connection is open. */
export function announcementsImplementations(
  hubEvents: HubEventSource,
): Parameters<typeof announcementsMachine.provide>[0] {
  return {
    actors: {
      globalEvents: fromCallback<AnnouncementsEvent>(({ sendBack }) => {
        const subscription = globalEvents$(hubEvents).subscribe((event) =>
          sendBack({ type: 'global.announced', message: event.message, from: event.actor.name }),
        );
        return () => subscription.unsubscribe();
      }),
    },
  };
}

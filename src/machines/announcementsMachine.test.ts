import { describe, expect, it } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import {
  announcementsMachine,
  MAX_ANNOUNCEMENTS,
  type AnnouncementsEvent,
} from './announcementsMachine';
import { selectAnnouncements } from './announcementsMachine.selectors';
import { unreachedStateIds } from './testing/reachability';

/** The machine with a hub whose GlobalEvents the test sends. */
function start() {
  let hear: (event: AnnouncementsEvent) => void = () => {};
  const actor = createActor(
    announcementsMachine.provide({
      actors: {
        globalEvents: fromCallback<AnnouncementsEvent>(({ sendBack }) => {
          hear = sendBack;
        }),
      },
    }),
  ).start();
  const announce = (message: string, from = 'admin') =>
    hear({ type: 'global.announced', message, from });
  const shown = () => selectAnnouncements(actor.getSnapshot()).map((a) => a.message);
  return { actor, announce, shown };
}

describe('announcementsMachine', () => {
  it('shows what the hub announces, oldest first, with who sent it', () => {
    const a = start();
    a.announce('maintenance at noon', 'Ada');
    a.announce('back online');
    expect(selectAnnouncements(a.actor.getSnapshot())).toEqual([
      { id: 1, message: 'maintenance at noon', from: 'Ada' },
      { id: 2, message: 'back online', from: 'admin' },
    ]);
  });

  it('ignores an empty announcement', () => {
    const a = start();
    a.announce('   ');
    expect(a.shown()).toEqual([]);
  });

  it('removes only the dismissed announcement, even one with the same text', () => {
    const a = start();
    a.announce('same');
    a.announce('same');
    a.actor.send({ type: 'announcement.dismissRequested', id: 1 });
    expect(selectAnnouncements(a.actor.getSnapshot()).map((x) => x.id)).toEqual([2]);
  });

  it(`keeps the newest ${MAX_ANNOUNCEMENTS} announcements`, () => {
    const a = start();
    for (let i = 1; i <= MAX_ANNOUNCEMENTS + 2; i++) a.announce(`m${i}`);
    expect(a.shown()).toEqual(Array.from({ length: MAX_ANNOUNCEMENTS }, (_, i) => `m${i + 3}`));
  });

  it('forgets every announcement when the session ends, and shows new ones after', () => {
    const a = start();
    a.announce('old');
    a.actor.send({ type: 'session.ended' });
    expect(a.shown()).toEqual([]);
    a.announce('new');
    expect(a.shown()).toEqual(['new']);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(announcementsMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        payloads: [{ type: 'global.announced', message: 'hello', from: 'admin' }],
      }),
    ).toEqual([]);
  });
});

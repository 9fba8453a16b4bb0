import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback } from 'xstate';
import {
  announcementsMachine,
  MAX_ANNOUNCEMENTS,
  type AnnouncementsEvent,
} from './announcementsMachine';
import { selectAnnouncements } from './announcementsMachine.selectors';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
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

/**
 * Model-based test: announcements heard, dismissed and forgotten at sign-out never change the
 * mode; the banner's list is checked after every step.
 */
describe('announcementsMachine against its model', () => {
  type ModelEvent =
    { type: 'ANNOUNCED' } | { type: 'BLANK' } | { type: 'DISMISSED' } | { type: 'ENDED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'announcementsModel',
    initial: 'listening',
    states: {
      listening: {
        on: {
          ANNOUNCED: 'listening',
          BLANK: 'listening',
          DISMISSED: 'listening',
          ENDED: 'listening',
        },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, announcementsMachine, {
        states: { listening: 'listening' },
        events: {
          ANNOUNCED: 'global.announced',
          BLANK: 'global.announced',
          DISMISSED: 'announcement.dismissRequested',
          ENDED: 'session.ended',
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
      const a = start();
      // What the banner should show, oldest first.
      let shown: { id: number; message: string }[] = [];
      let nextId = 1;
      await path.test({
        states: {
          listening: () => {
            expect(a.actor.getSnapshot().value).toBe('listening');
            expect(
              selectAnnouncements(a.actor.getSnapshot()).map(({ id, message }) => ({
                id,
                message,
              })),
            ).toEqual(shown);
          },
        },
        events: {
          ANNOUNCED: () => {
            const id = nextId++;
            shown = [...shown, { id, message: `m${id}` }].slice(-MAX_ANNOUNCEMENTS);
            a.announce(`m${id}`);
          },
          BLANK: () => a.announce(' \n '),
          DISMISSED: () => {
            // The newest is dismissed; with none shown, an unknown id changes nothing.
            const gone = shown.at(-1)?.id ?? 999;
            shown = shown.filter((x) => x.id !== gone);
            a.actor.send({ type: 'announcement.dismissRequested', id: gone });
          },
          ENDED: () => {
            shown = [];
            a.actor.send({ type: 'session.ended' });
          },
        },
      });
    });
  }
});

import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import {
  THUMBNAIL_REFRESH_MS,
  thumbnailMachine,
  type PictureKept,
  type ThumbnailEvent,
  type ThumbnailOutcome,
} from './thumbnailMachine';
import { selectThumbnailPlaceholder, selectThumbnailUrl } from './thumbnailMachine.selectors';

interface Fetch extends Deferred<ThumbnailOutcome> {
  etag: string | null;
  signal: AbortSignal;
}

function startThumbnail({ hidden = false } = {}) {
  const clock = new SimulatedClock();
  const fetches: Fetch[] = [];
  const kept: Array<string | null> = [];
  let tellPage: ((event: ThumbnailEvent) => void) | null = null;
  const actor = createActor(
    thumbnailMachine.provide({
      actors: {
        fetchThumbnail: fromPromise(({ input, signal }) => {
          const f = Object.assign(deferred<ThumbnailOutcome>(), { etag: input.etag, signal });
          fetches.push(f);
          return f.promise;
        }),
        // Records what the machine tells its owner of pictures (wallImplementations revokes).
        pictures: fromCallback<PictureKept>(({ receive }) => {
          receive(({ url }) => kept.push(url));
          return () => kept.push('stopped');
        }),
        pageVisibility: fromCallback(({ sendBack }) => {
          tellPage = sendBack;
          sendBack({ type: hidden ? 'page.hidden' : 'page.shown' });
          return () => {
            tellPage = null;
          };
        }),
      },
    }),
    { input: { vmId: 'vm1' }, clock },
  ).start();
  /** Settles the fetch the machine waits for. */
  const settle = async (outcome: ThumbnailOutcome | { error: unknown }) => {
    const f = fetches.find((x) => !x.signal.aborted && !settled.has(x));
    if (!f) throw new Error('no fetch under way');
    settled.add(f);
    if ('error' in outcome) f.reject(outcome.error);
    else f.resolve(outcome);
    await flush();
  };
  const settled = new Set<Fetch>();
  const live = () => fetches.filter((x) => !x.signal.aborted && !settled.has(x));
  return {
    actor,
    clock,
    fetches,
    kept,
    settle,
    live,
    page: (event: ThumbnailEvent) => tellPage?.(event),
    snapshot: () => actor.getSnapshot(),
  };
}

describe('thumbnailMachine', () => {
  it('asks for nothing until its tile is in view', () => {
    const t = startThumbnail();
    expect(t.fetches).toHaveLength(0);
    t.clock.increment(THUMBNAIL_REFRESH_MS * 3);
    expect(t.fetches).toHaveLength(0);
    expect(selectThumbnailPlaceholder(t.snapshot())).toBe('No picture yet');
  });

  it('shows the picture, then asks every THUMBNAIL_REFRESH_MS with the ETag shown', async () => {
    const t = startThumbnail();
    t.actor.send({ type: 'thumbnail.inView' });
    expect(t.fetches[0]?.etag).toBeNull();
    await t.settle({ kind: 'picture', url: 'blob:1', etag: '"e1"' });
    expect(selectThumbnailUrl(t.snapshot())).toBe('blob:1');
    expect(selectThumbnailPlaceholder(t.snapshot())).toBeNull();
    t.clock.increment(THUMBNAIL_REFRESH_MS - 1);
    expect(t.fetches).toHaveLength(1);
    t.clock.increment(1);
    expect(t.fetches[1]?.etag).toBe('"e1"');
    // Unchanged: the same picture stays, nothing revoked.
    await t.settle({ kind: 'unchanged' });
    expect(selectThumbnailUrl(t.snapshot())).toBe('blob:1');
    expect(t.kept).toEqual(['blob:1']);
    t.clock.increment(THUMBNAIL_REFRESH_MS);
    await t.settle({ kind: 'picture', url: 'blob:2', etag: '"e2"' });
    expect(selectThumbnailUrl(t.snapshot())).toBe('blob:2');
    expect(t.kept).toEqual(['blob:1', 'blob:2']);
  });

  it('stops asking when its tile leaves the view, and cancels what is under way', async () => {
    const t = startThumbnail();
    t.actor.send({ type: 'thumbnail.inView' });
    t.actor.send({ type: 'thumbnail.outOfView' });
    expect(t.fetches[0]?.signal.aborted).toBe(true);
    t.clock.increment(THUMBNAIL_REFRESH_MS * 3);
    expect(t.fetches).toHaveLength(1);
  });

  it('asks for nothing while the page is hidden, and asks at once when it is shown', async () => {
    const t = startThumbnail({ hidden: true });
    t.actor.send({ type: 'thumbnail.inView' });
    expect(t.live()).toHaveLength(0);
    t.clock.increment(THUMBNAIL_REFRESH_MS * 3);
    expect(t.live()).toHaveLength(0);
    t.page({ type: 'page.shown' });
    expect(t.live()).toHaveLength(1);
    await t.settle({ kind: 'none' });
    t.page({ type: 'page.hidden' });
    t.clock.increment(THUMBNAIL_REFRESH_MS * 3);
    expect(t.live()).toHaveLength(0);
  });

  it('shows the placeholder when the machine has no picture, and keeps asking', async () => {
    const t = startThumbnail();
    t.actor.send({ type: 'thumbnail.inView' });
    await t.settle({ kind: 'picture', url: 'blob:1', etag: null });
    t.clock.increment(THUMBNAIL_REFRESH_MS);
    await t.settle({ kind: 'none' });
    expect(selectThumbnailUrl(t.snapshot())).toBeNull();
    expect(selectThumbnailPlaceholder(t.snapshot())).toBe('No picture yet');
    expect(t.kept).toEqual(['blob:1', null]);
    t.clock.increment(THUMBNAIL_REFRESH_MS);
    expect(t.live()).toHaveLength(1);
  });

  it('tries again after a failure, and stops for good when refused', async () => {
    const t = startThumbnail();
    t.actor.send({ type: 'thumbnail.inView' });
    await t.settle({ error: { status: 500, message: 'Error' } });
    expect(selectThumbnailPlaceholder(t.snapshot())).toBe('No picture');
    t.clock.increment(THUMBNAIL_REFRESH_MS);
    await t.settle({ error: { status: 403, message: 'ActionForbidden' } });
    expect(selectThumbnailPlaceholder(t.snapshot())).toBe('Not allowed');
    t.actor.send({ type: 'thumbnail.outOfView' });
    t.actor.send({ type: 'thumbnail.inView' });
    t.clock.increment(THUMBNAIL_REFRESH_MS * 3);
    expect(t.fetches).toHaveLength(2);
  });

  it('lets its pictures go with the tile', async () => {
    const t = startThumbnail();
    t.actor.send({ type: 'thumbnail.inView' });
    await t.settle({ kind: 'picture', url: 'blob:1', etag: null });
    t.actor.stop();
    expect(t.kept).toEqual(['blob:1', 'stopped']);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(thumbnailMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ vmId: 'vm1' }],
        // Refused or failed: the error decides.
        payloads: [
          { type: 'xstate.error.actor.fetchThumbnail', error: { status: 403 } },
          { type: 'xstate.error.actor.fetchThumbnail', error: { status: 500 } },
        ],
      }),
    ).toEqual([]);
  });
});

describe('thumbnailMachine against an abstract model', () => {
  type ModelEvent =
    | { type: 'SCROLLED_IN' }
    | { type: 'SCROLLED_OUT' }
    | { type: 'PAGE_HIDDEN' }
    | { type: 'PAGE_SHOWN' }
    | { type: 'ANSWERED' }
    | { type: 'FAILED' }
    | { type: 'REFUSED' }
    | { type: 'INTERVAL_ELAPSED' };

  // Whether a request is under way, one is due later, nothing is asked (out of view, page
  // hidden), or nothing ever again (refused).
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'thumbnailModel',
    initial: 'outOfView',
    states: {
      outOfView: { on: { SCROLLED_IN: 'fetching' } },
      fetching: {
        on: {
          SCROLLED_OUT: 'outOfView',
          PAGE_HIDDEN: 'paused',
          ANSWERED: 'waiting',
          FAILED: 'waiting',
          REFUSED: 'refused',
        },
      },
      waiting: {
        on: { SCROLLED_OUT: 'outOfView', PAGE_HIDDEN: 'paused', INTERVAL_ELAPSED: 'fetching' },
      },
      paused: { on: { SCROLLED_OUT: 'outOfView', PAGE_SHOWN: 'fetching' } },
      refused: {},
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, thumbnailMachine, {
        states: {
          outOfView: 'outOfView',
          fetching: 'inView.fetching',
          waiting: 'inView.waiting',
          paused: 'inView.paused',
          refused: 'refused',
        },
        events: {
          SCROLLED_IN: 'thumbnail.inView',
          SCROLLED_OUT: 'thumbnail.outOfView',
          PAGE_HIDDEN: 'page.hidden',
          PAGE_SHOWN: 'page.shown',
          ANSWERED: 'xstate.done.actor.fetchThumbnail',
          FAILED: 'xstate.error.actor.fetchThumbnail',
          REFUSED: 'xstate.error.actor.fetchThumbnail',
          INTERVAL_ELAPSED: 'xstate.after.refreshInterval.thumbnail.inView.waiting',
        },
        // Left as it is entered: the visibility actor tells the page's state as it starts.
        unmodelledStates: ['inView.checkingPage'],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  const VALUES = {
    outOfView: 'outOfView',
    fetching: { inView: 'fetching' },
    waiting: { inView: 'waiting' },
    paused: { inView: 'paused' },
    refused: 'refused',
  } as const;

  for (const path of paths) {
    it(path.description, async () => {
      const t = startThumbnail();
      let pictures = 0;
      let shown: string | null = null;
      const expectState = (name: keyof typeof VALUES, asking: number) => () => {
        expect(t.snapshot().value).toEqual(VALUES[name]);
        expect(t.live()).toHaveLength(asking);
        expect(selectThumbnailUrl(t.snapshot())).toBe(shown);
      };
      await path.test({
        states: {
          outOfView: expectState('outOfView', 0),
          fetching: expectState('fetching', 1),
          waiting: expectState('waiting', 0),
          paused: expectState('paused', 0),
          refused: expectState('refused', 0),
        },
        events: {
          SCROLLED_IN: () => t.actor.send({ type: 'thumbnail.inView' }),
          SCROLLED_OUT: () => t.actor.send({ type: 'thumbnail.outOfView' }),
          PAGE_HIDDEN: () => t.page({ type: 'page.hidden' }),
          PAGE_SHOWN: () => t.page({ type: 'page.shown' }),
          ANSWERED: async () => {
            shown = `blob:${++pictures}`;
            await t.settle({ kind: 'picture', url: shown, etag: null });
          },
          FAILED: () => t.settle({ error: { status: 500, message: 'Error' } }),
          REFUSED: () => t.settle({ error: { status: 403, message: 'ActionForbidden' } }),
          INTERVAL_ELAPSED: () => t.clock.increment(THUMBNAIL_REFRESH_MS),
        },
      });
    });
  }
});

import {
  assign,
  fromCallback,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import { httpStatusOf } from '../domain/errors';
import { errorMessage } from '../domain/text';

/** A tile in view asks for its machine's picture this often. */
export const THUMBNAIL_REFRESH_MS = 3_000;

/**
 * What the app's fetch of a picture answers: a new picture (as an object URL the machine owns
 * from then on, and revokes), the same as shown, or none yet.
 */
export type ThumbnailOutcome =
  { kind: 'picture'; url: string; etag: string | null } | { kind: 'unchanged' } | { kind: 'none' };

export type ThumbnailEvent =
  /** The tile came into view, or went out of it (the view's IntersectionObserver). */
  | { type: 'thumbnail.inView' }
  | { type: 'thumbnail.outOfView' }
  /** The page was hidden or shown again (document.visibilityState). */
  | { type: 'page.hidden' }
  | { type: 'page.shown' };

/** What the machine tells its `pictures` actor: the object URL shown now, or none. */
export interface PictureKept {
  type: 'picture.kept';
  url: string | null;
}

export interface ThumbnailInput {
  vmId: string;
}

export interface ThumbnailContext extends ThumbnailInput {
  /** The picture shown, an object URL; null: none yet. */
  url: string | null;
  /** The ETag of the picture shown, sent as If-None-Match. */
  etag: string | null;
  error: string | null;
}

/**
 * One machine's console picture on the wall: asked for only while its tile is in view and the
 * page is shown, then again every THUMBNAIL_REFRESH_MS, conditionally on the picture shown. A
 * viewer refused (403) stops asking. Object URLs are revoked when replaced and when the tile goes
 * (the `pictures` actor).
 */
export const thumbnailMachine = setup({
  types: {
    input: {} as ThumbnailInput,
    context: {} as ThumbnailContext,
    events: {} as ThumbnailEvent,
  },
  actors: {
    /** GET vm/{id}/thumbnail with If-None-Match; the app provides it (and limits how many run). */
    fetchThumbnail: fromPromise<ThumbnailOutcome, { vmId: string; etag: string | null }>(() => {
      throw new Error('thumbnailMachine: provide the fetchThumbnail actor');
    }),
    /**
     * Owns the object URLs of the pictures shown: told of each (`picture.kept`, null for none),
     * it revokes the one before, and the last one when the tile goes. The app provides it.
     */
    pictures: fromCallback<PictureKept>(() => {
      throw new Error('thumbnailMachine: provide the pictures actor');
    }),
    /** Sends page.hidden / page.shown as the page's visibility changes, the current one first. */
    pageVisibility: fromCallback<ThumbnailEvent>(() => {
      throw new Error('thumbnailMachine: provide the pageVisibility actor');
    }),
  },
  actions: {
    showPicture: assign((_, outcome: ThumbnailOutcome) =>
      outcome.kind === 'picture'
        ? { url: outcome.url, etag: outcome.etag, error: null }
        : { url: null, etag: null, error: null },
    ),
  },
  guards: {
    // Graph traversals send done events bare: read as no change.
    isUnchanged: (_, { outcome }: { outcome: ThumbnailOutcome | undefined }) =>
      (outcome?.kind ?? 'unchanged') === 'unchanged',
    isRefused: (_, { error }: { error: unknown }) => httpStatusOf(error) === 403,
  },
  delays: {
    refreshInterval: THUMBNAIL_REFRESH_MS,
  },
}).createMachine({
  id: 'thumbnail',
  description:
    "A machine's console picture on the wall: asked for while its tile is in view and the page shown, every few seconds, conditionally on the picture shown; a refusal stops it.",
  context: ({ input }) => ({ ...input, url: null, etag: null, error: null }),
  // The pictures go with the tile.
  invoke: { id: 'pictures', src: 'pictures' },
  initial: 'outOfView',
  states: {
    outOfView: {
      on: { 'thumbnail.inView': 'inView' },
    },
    inView: {
      on: { 'thumbnail.outOfView': 'outOfView' },
      invoke: { src: 'pageVisibility' },
      initial: 'checkingPage',
      states: {
        // Nothing is asked before the page is known to be shown: the visibility actor says
        // which it is as soon as it starts.
        checkingPage: {
          on: { 'page.shown': 'fetching', 'page.hidden': 'paused' },
        },
        fetching: {
          invoke: {
            id: 'fetchThumbnail',
            src: 'fetchThumbnail',
            input: ({ context }) => ({ vmId: context.vmId, etag: context.etag }),
            onDone: [
              {
                guard: { type: 'isUnchanged', params: ({ event }) => ({ outcome: event.output }) },
                target: 'waiting',
                actions: assign({ error: null }),
              },
              {
                target: 'waiting',
                actions: [
                  { type: 'showPicture', params: ({ event }) => event.output },
                  sendTo('pictures', ({ context }) => ({
                    type: 'picture.kept' as const,
                    url: context.url,
                  })),
                ],
              },
            ],
            onError: [
              {
                guard: { type: 'isRefused', params: ({ event }) => ({ error: event.error }) },
                target: '#thumbnail.refused',
                actions: assign({ error: ({ event }) => errorMessage(event.error) }),
              },
              {
                target: 'waiting',
                actions: assign({ error: ({ event }) => errorMessage(event.error) }),
              },
            ],
          },
          on: { 'page.hidden': 'paused' },
        },
        waiting: {
          after: { refreshInterval: 'fetching' },
          on: { 'page.hidden': 'paused' },
        },
        // The page is hidden: nothing is asked for until it is shown again.
        paused: {
          on: { 'page.shown': 'fetching' },
        },
      },
    },
    refused: {},
  },
});

export type ThumbnailActorRef = ActorRefFrom<typeof thumbnailMachine>;
export type ThumbnailSnapshot = SnapshotFrom<typeof thumbnailMachine>;

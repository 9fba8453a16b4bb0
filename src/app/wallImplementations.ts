import * as E from 'fp-ts/Either';
import { fromCallback, fromEventObservable, fromPromise } from 'xstate';
import { fromTaskEither } from '../api/actor';
import type { HttpClient } from '../api/http';
import { loadThumbnail, loadWall } from '../api/wall';
import {
  thumbnailMachine,
  type PictureKept,
  type ThumbnailOutcome,
} from '../machines/thumbnailMachine';
import { wallMachine } from '../machines/wallMachine';
import { clockTicks$ } from '../streams/clock';
import type { LocalSettingsStore } from './localSettings';

// The instructor wall's effects: its list, the pins kept in local settings, and the machines'
// pictures, each fetched through the app's authenticated client, a few at a time.

/** At most this many pictures are asked for at once, whatever the number of tiles in view. */
export const THUMBNAIL_CONCURRENCY = 4;

export interface WallDependencies {
  http: HttpClient;
  local: LocalSettingsStore;
}

export function wallLogic({ http, local }: WallDependencies) {
  return wallMachine.provide({
    actors: {
      loadWall: fromTaskEither((_: void, signal) => loadWall(http)(signal)),
      clock: fromEventObservable(() => clockTicks$()),
    },
    actions: {
      rememberPinned: (_, { pinned }) => local.update({ wallPins: [...pinned] }),
    },
  });
}

/** The pins of an earlier visit. */
export const rememberedPins = (local: LocalSettingsStore): string[] => local.read().wallPins ?? [];

/**
 * Runs at most `max` tasks at once, the others in the order they came. A task whose signal is
 * aborted while it waits is dropped (rejected) without running.
 */
export function concurrencyLimit(max: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  const next = () => {
    if (running >= max) return;
    const start = waiting.shift();
    if (start) start();
  };
  return function run<T>(signal: AbortSignal, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        signal.removeEventListener('abort', drop);
        running += 1;
        task()
          .then(resolve, reject)
          .finally(() => {
            running -= 1;
            next();
          });
      };
      const drop = () => {
        const at = waiting.indexOf(start);
        if (at >= 0) waiting.splice(at, 1);
        reject(new DOMException('Aborted', 'AbortError'));
      };
      if (signal.aborted) return drop();
      signal.addEventListener('abort', drop, { once: true });
      waiting.push(start);
      next();
    });
  };
}

export interface ThumbnailDependencies {
  http: HttpClient;
  /** The page's document: its visibility decides whether pictures are asked for. */
  document: Pick<Document, 'visibilityState' | 'addEventListener' | 'removeEventListener'>;
  objectUrls: Pick<typeof URL, 'createObjectURL' | 'revokeObjectURL'>;
}

/**
 * The object URLs of one tile's pictures: each one told of replaces the one before, which is
 * revoked, and the last is revoked when the tile goes.
 */
export const pictureOwner = (objectUrls: Pick<typeof URL, 'revokeObjectURL'>) =>
  fromCallback<PictureKept>(({ receive }) => {
    let current: string | null = null;
    receive(({ url }) => {
      if (current && current !== url) objectUrls.revokeObjectURL(current);
      current = url;
    });
    return () => {
      if (current) objectUrls.revokeObjectURL(current);
    };
  });

/** One logic for every tile of a wall: they share the limit on requests at once. */
export function thumbnailLogic({ http, document, objectUrls }: ThumbnailDependencies) {
  const limited = concurrencyLimit(THUMBNAIL_CONCURRENCY);
  return thumbnailMachine.provide({
    actors: {
      fetchThumbnail: fromPromise<ThumbnailOutcome, { vmId: string; etag: string | null }>(
        ({ input, signal }) =>
          limited(signal, async () => {
            const answer = await loadThumbnail(http)(input.vmId, input.etag, signal)();
            if (E.isLeft(answer)) throw answer.left;
            const found = answer.right;
            if (found.kind !== 'picture') return found;
            // A picture that came after the tile went would be nobody's to revoke.
            if (signal.aborted) throw new DOMException('Aborted', 'AbortError');
            return {
              kind: 'picture',
              url: objectUrls.createObjectURL(found.blob),
              etag: found.etag,
            };
          }),
      ),
      pictures: pictureOwner(objectUrls),
      pageVisibility: fromCallback(({ sendBack }) => {
        const tell = () =>
          sendBack({ type: document.visibilityState === 'hidden' ? 'page.hidden' : 'page.shown' });
        tell();
        document.addEventListener('visibilitychange', tell);
        return () => document.removeEventListener('visibilitychange', tell);
      }),
    },
  });
}

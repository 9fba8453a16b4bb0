import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { createHttpClient } from '../api/http';
import { flush } from '../machines/testing/deferred';
import { selectThumbnailUrl } from '../machines/thumbnailMachine.selectors';
import {
  concurrencyLimit,
  pictureOwner,
  THUMBNAIL_CONCURRENCY,
  thumbnailLogic,
} from './wallImplementations';

/** A task that runs until the test settles it. */
function manualTask() {
  let finish!: () => void;
  let started = false;
  const task = () => {
    started = true;
    return new Promise<void>((resolve) => (finish = resolve));
  };
  return { task, finish: () => finish(), started: () => started };
}

describe('concurrencyLimit', () => {
  it('runs at most max tasks at once, the others in the order they came', async () => {
    const run = concurrencyLimit(2);
    const tasks = [manualTask(), manualTask(), manualTask(), manualTask()];
    const done = tasks.map((t) => run(new AbortController().signal, t.task));
    expect(tasks.map((t) => t.started())).toEqual([true, true, false, false]);
    tasks[1]!.finish();
    await done[1];
    await flush();
    expect(tasks.map((t) => t.started())).toEqual([true, true, true, false]);
    tasks[0]!.finish();
    await done[0];
    await flush();
    expect(tasks[3]!.started()).toBe(true);
  });

  it('drops a waiting task whose signal is aborted, without running it', async () => {
    const run = concurrencyLimit(1);
    const first = manualTask();
    const second = manualTask();
    const third = manualTask();
    void run(new AbortController().signal, first.task);
    const abort = new AbortController();
    const dropped = run(abort.signal, second.task);
    void run(new AbortController().signal, third.task);
    abort.abort();
    await expect(dropped).rejects.toMatchObject({ name: 'AbortError' });
    first.finish();
    await flush();
    expect(second.started()).toBe(false);
    expect(third.started()).toBe(true);
  });
});

describe('pictureOwner', () => {
  it('revokes each picture when the next replaces it, and the last when the tile goes', () => {
    const revoked: string[] = [];
    const owner = createActor(pictureOwner({ revokeObjectURL: (url) => revoked.push(url) }));
    owner.start();
    owner.send({ type: 'picture.kept', url: 'blob:1' });
    owner.send({ type: 'picture.kept', url: 'blob:2' });
    expect(revoked).toEqual(['blob:1']);
    owner.send({ type: 'picture.kept', url: null });
    owner.send({ type: 'picture.kept', url: 'blob:3' });
    expect(revoked).toEqual(['blob:1', 'blob:2']);
    owner.stop();
    expect(revoked).toEqual(['blob:1', 'blob:2', 'blob:3']);
  });
});

/** The page's document as the thumbnails read it: its visibility, and its change event. */
function fakeDocument(visibilityState: DocumentVisibilityState = 'visible') {
  const listeners = new Set<() => void>();
  return {
    visibilityState,
    addEventListener: (_: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
    change(state: DocumentVisibilityState) {
      this.visibilityState = state;
      for (const listener of listeners) listener();
    },
  };
}

describe('thumbnailLogic', () => {
  const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);

  function setUp(visibility: DocumentVisibilityState = 'visible', hang = false) {
    const requests: Array<{ url: string; headers: Record<string, string> }> = [];
    const created: Blob[] = [];
    const document = fakeDocument(visibility);
    const http = createHttpClient({
      baseUrl: '/api',
      authorization: () => 'Bearer abc',
      fetch: ((url: string, init: RequestInit) => {
        requests.push({ url, headers: init.headers as Record<string, string> });
        // A request that never answers, until it is aborted (as fetch rejects then).
        if (hang) {
          return new Promise((_, reject) =>
            init.signal?.addEventListener('abort', () =>
              reject(new DOMException('Aborted', 'AbortError')),
            ),
          );
        }
        return Promise.resolve(
          new Response(PNG, { headers: { 'Content-Type': 'image/png', ETag: '"v1"' } }),
        );
      }) as unknown as typeof fetch,
    });
    const logic = thumbnailLogic({
      http,
      document: document as unknown as Document,
      objectUrls: {
        createObjectURL: (blob) => {
          created.push(blob as Blob);
          return `blob:${created.length}`;
        },
        revokeObjectURL: () => undefined,
      },
    });
    return { logic, requests, created, document };
  }

  it('fetches a tile’s picture in view through the authenticated client', async () => {
    const { logic, requests } = setUp();
    const tile = createActor(logic, { input: { vmId: 'vm1' } }).start();
    tile.send({ type: 'thumbnail.inView' });
    await flush();
    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toBe('/api/vm/vm1/thumbnail');
    expect(requests[0]?.headers.Authorization).toBe('Bearer abc');
    expect(selectThumbnailUrl(tile.getSnapshot())).toBe('blob:1');
    tile.stop();
  });

  it('asks for nothing while the page is hidden', async () => {
    const { logic, requests, document } = setUp('hidden');
    const tile = createActor(logic, { input: { vmId: 'vm1' } }).start();
    tile.send({ type: 'thumbnail.inView' });
    await flush();
    expect(requests).toHaveLength(0);
    document.change('visible');
    await flush();
    expect(requests).toHaveLength(1);
    tile.stop();
  });

  it('asks for at most THUMBNAIL_CONCURRENCY pictures at once, whatever the tiles in view', async () => {
    const { logic, requests } = setUp('visible', true);
    const tiles = Array.from({ length: THUMBNAIL_CONCURRENCY + 5 }, (_, i) =>
      createActor(logic, { input: { vmId: `vm${i}` } }).start(),
    );
    for (const tile of tiles) tile.send({ type: 'thumbnail.inView' });
    await flush();
    expect(requests).toHaveLength(THUMBNAIL_CONCURRENCY);
    // Tiles scrolled away give their turn up: the waiting ones go next.
    for (const tile of tiles.slice(0, THUMBNAIL_CONCURRENCY)) {
      tile.send({ type: 'thumbnail.outOfView' });
    }
    await flush();
    expect(requests).toHaveLength(THUMBNAIL_CONCURRENCY * 2);
    for (const tile of tiles) tile.stop();
  });
});

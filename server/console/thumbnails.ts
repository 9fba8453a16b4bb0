import type { Clock, Timer } from '../clock';
import type { HypervisorDriver } from '../hypervisor';
import { startCapture, type Capture, type Picture } from './thumbnail/capture';

// The console thumbnails of the instructor's wall (GET /api/vm/{id}/thumbnail): one capture per
// machine on this server process, however many watch it, each a console session of the server's
// own (./thumbnail/capture.ts), never one per viewer. A capture lives while someone asks for its
// machine: each request marks the machine watched, and a capture nobody asked for in
// THUMBNAIL_IDLE_MS closes its console session. A machine nobody watches is not captured.
// Captures are capped per process; over the cap a request is refused rather than queued.

export type { Picture } from './thumbnail/capture';

/** The least time between two screen update requests of a capture. */
export const THUMBNAIL_INTERVAL_MS = 2_000;
/** A capture nobody asked for in this long closes its console session. */
export const THUMBNAIL_IDLE_MS = 15_000;
/** The most captures one server process keeps at once. */
export const MAX_THUMBNAIL_CAPTURES = 512;
/** How long a request that started a capture waits for its first picture. */
export const FIRST_PICTURE_WAIT_MS = 1_500;

export const thumbnailCapReason = (max: number): string =>
  `The server captures ${max} consoles for thumbnails, the most it allows. Try again in a moment.`;

/** A thumbnail request's answer: the picture, none yet, or refused over the cap. */
export type ThumbnailAnswer = { picture: Picture } | { none: true } | { refused: string };

export interface ThumbnailOptions {
  driver: Pick<HypervisorDriver, 'openConsole'>;
  clock: Clock;
  log?: { info(obj: object, msg: string): void };
  intervalMs?: number;
  idleMs?: number;
  maxCaptures?: number;
  firstPictureWaitMs?: number;
}

interface Entry {
  capture: Capture;
  lastWatched: number;
  idle: Timer;
}

export function createThumbnails(options: ThumbnailOptions) {
  const { clock } = options;
  const intervalMs = options.intervalMs ?? THUMBNAIL_INTERVAL_MS;
  const idleMs = options.idleMs ?? THUMBNAIL_IDLE_MS;
  const maxCaptures = options.maxCaptures ?? MAX_THUMBNAIL_CAPTURES;
  const firstPictureWaitMs = options.firstPictureWaitMs ?? FIRST_PICTURE_WAIT_MS;
  const entries = new Map<string, Entry>();

  /** Ends the capture once nobody asked for it in `idleMs`; looks again when someone did. */
  const watchIdle = (machineId: string, entry: Entry, wait: number): Timer =>
    clock.setTimeout(() => {
      if (entry.capture.ended) return;
      const since = clock.now() - entry.lastWatched;
      if (since >= idleMs) entry.capture.end();
      else entry.idle = watchIdle(machineId, entry, idleMs - since);
    }, wait);

  const start = (machineId: string): Entry => {
    const entry = {} as Entry;
    entry.lastWatched = clock.now();
    entry.capture = startCapture({
      driver: options.driver,
      machineId,
      clock,
      intervalMs,
      onEnd(why) {
        clock.clearTimeout(entry.idle);
        if (entries.get(machineId) === entry) entries.delete(machineId);
        options.log?.info({ machineId, why }, 'thumbnail capture ended');
      },
    });
    entry.idle = watchIdle(machineId, entry, idleMs);
    // A capture whose console failed at once has ended already and is not kept.
    if (!entry.capture.ended) entries.set(machineId, entry);
    return entry;
  };

  /** Resolves after `ms`, or with the first picture if it comes sooner. */
  const firstPicture = async (capture: Capture): Promise<Picture | null> => {
    let timer: Timer | null = null;
    const late = new Promise<null>((resolve) => {
      timer = clock.setTimeout(() => resolve(null), firstPictureWaitMs);
    });
    try {
      return await Promise.race([capture.firstPicture, late]);
    } finally {
      if (timer) clock.clearTimeout(timer);
    }
  };

  return {
    /**
     * The thumbnail of a running machine (the caller has checked that it runs and who asks):
     * marks it watched, starts its capture when there is none, and waits a moment for a new
     * capture's first picture.
     */
    async thumbnail(machineId: string): Promise<ThumbnailAnswer> {
      let entry = entries.get(machineId);
      if (!entry) {
        if (entries.size >= maxCaptures) return { refused: thumbnailCapReason(maxCaptures) };
        entry = start(machineId);
      }
      entry.lastWatched = clock.now();
      const picture = entry.capture.picture() ?? (await firstPicture(entry.capture));
      return picture ? { picture } : { none: true };
    },

    /** Captures open now. */
    count: (): number => entries.size,

    /** Whether the machine has a capture now. */
    captures: (machineId: string): boolean => entries.has(machineId),

    /** Ends every capture (the server closes). */
    close(): void {
      for (const entry of [...entries.values()]) entry.capture.end();
      entries.clear();
    },
  };
}

export type Thumbnails = ReturnType<typeof createThumbnails>;

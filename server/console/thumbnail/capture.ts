import { createHash } from 'node:crypto';
import type { Clock, Timer } from '../../clock';
import type { ConsoleSession, HypervisorDriver } from '../../hypervisor';
import { encodePng } from './png';
import { createRfbClient, RfbClientError } from './rfbClient';

// One machine's thumbnail capture: a console session of the server's own with the driver (shared,
// so it never ends a player's), asking for the screen's changes at a low rate and keeping the
// latest picture as a PNG. An idle screen costs nothing between requests: the console's server
// holds an incremental request until something changes. A console that closes or breaks the
// protocol ends the capture; whoever keeps the captures starts another when asked again.

export interface Picture {
  png: Buffer;
  /** A strong entity tag of the PNG's bytes, quoted, as HTTP writes it. */
  etag: string;
  width: number;
  height: number;
}

export interface Capture {
  /** The latest picture, or null before the first screen arrived. */
  picture(): Picture | null;
  /** Resolves with the first picture, or null when the capture ended before one. */
  readonly firstPicture: Promise<Picture | null>;
  readonly ended: boolean;
  /** Closes the console session. */
  end(): void;
}

export interface CaptureOptions {
  driver: Pick<HypervisorDriver, 'openConsole'>;
  machineId: string;
  clock: Clock;
  /** The least time between two update requests. */
  intervalMs: number;
  /** Told once when the capture ends, by `end` or because its console did; `why` for the log. */
  onEnd(why: string): void;
}

const etagOf = (png: Buffer): string =>
  `"${createHash('sha256').update(png).digest('base64url').slice(0, 27)}"`;

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export function startCapture(options: CaptureOptions): Capture {
  const { clock, intervalMs } = options;
  let session: ConsoleSession | null = null;
  let ended = false;
  let picture: Picture | null = null;
  let timer: Timer | null = null;
  let lastRequest = clock.now();
  let resolveFirst: (picture: Picture | null) => void = () => {};
  const firstPicture = new Promise<Picture | null>((resolve) => (resolveFirst = resolve));

  // What the client sends goes out after the byte that made it: a console session may answer
  // while it is still handling a message of ours (the sim's does), and must not be re-entered.
  const outbox: Buffer[] = [];
  let flushing = false;
  const flush = () => {
    flushing = false;
    if (!session || ended) return;
    for (const bytes of outbox.splice(0)) session.receive(bytes);
  };
  const send = (bytes: Buffer) => {
    outbox.push(bytes);
    if (flushing) return;
    flushing = true;
    queueMicrotask(flush);
  };

  const finish = (why: string) => {
    if (ended) return;
    ended = true;
    if (timer) clock.clearTimeout(timer);
    timer = null;
    outbox.length = 0;
    session?.end();
    resolveFirst(null);
    options.onEnd(why);
  };

  const encode = () => {
    const thumbnail = client.thumbnail();
    if (!thumbnail) return;
    const png = encodePng(thumbnail.width, thumbnail.height, thumbnail.rgb);
    picture = { png, etag: etagOf(png), width: thumbnail.width, height: thumbnail.height };
    resolveFirst(picture);
  };

  const requestUpdate = (incremental: boolean) => {
    timer = null;
    lastRequest = clock.now();
    client.request(incremental);
  };

  const client = createRfbClient({
    send,
    updated(changed, resized) {
      if (changed || !picture) encode();
      if (resized) {
        // A new size comes with no pixels: the whole new screen is asked for at once.
        requestUpdate(false);
        return;
      }
      const wait = Math.max(0, lastRequest + intervalMs - clock.now());
      timer = clock.setTimeout(() => requestUpdate(true), wait);
    },
  });

  const { driver } = options;
  if (!driver.openConsole) {
    queueMicrotask(() => finish('the driver serves no consoles'));
  } else {
    driver
      .openConsole(options.machineId, {
        send(bytes) {
          if (ended) return;
          try {
            client.receive(asBuffer(bytes));
          } catch (error) {
            if (!(error instanceof RfbClientError)) throw error;
            finish(`the console broke the protocol: ${error.message}`);
          }
        },
        close: (code, reason) => finish(`the console closed (${code} ${reason})`),
      })
      .then(
        (opened) => {
          if (ended) {
            opened.end();
            return;
          }
          session = opened;
          client.start();
        },
        (error: unknown) =>
          finish(`the console did not open: ${error instanceof Error ? error.message : error}`),
      );
  }

  return {
    picture: () => picture,
    firstPicture,
    get ended() {
      return ended;
    },
    end: () => finish('no one watches it'),
  };
}

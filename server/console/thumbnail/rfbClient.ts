import { createByteQueue } from '../../hypervisor/sim/console/byteQueue';
import { createScaler, type Scaler, type Thumbnail } from './scaler';

// The client side of a console session (RFC 6143 §7.3-7.6) for thumbnails. A driver's console
// session starts at the ClientInit (HypervisorDriver.openConsole: the version and security
// handshake is the console route's with its viewers, and a relaying driver's own upstream), so
// this client starts there too. It asks for one pixel format it reads without conversion and
// for Raw rectangles only (and the DesktopSize pseudo-encoding), and shrinks each rectangle into
// the thumbnail as its bytes arrive: it never holds the screen, nor a whole rectangle. Messages
// may be split or merged across chunks however the transport frames them: the pending bytes are
// kept as the chunks they came in (the byte queue the sim's RFB server reads with), and a piece
// is copied out only when it straddles two chunks.

export const ENCODING_RAW = 0;
export const ENCODING_DESKTOP_SIZE = -223;

/** 32 bpp, depth 24, little endian, true colour, 0x00RRGGBB: what the scaler reads. */
export const THUMBNAIL_PIXEL_FORMAT = Buffer.of(
  32, // bits per pixel
  24, // depth
  0, // big-endian flag
  1, // true colour
  0,
  255, // red max
  0,
  255, // green max
  0,
  255, // blue max
  16, // red shift
  8, // green shift
  0, // blue shift
  0,
  0,
  0, // padding
);

/** The longest desktop name read; a longer one means the stream is not RFB. */
const MAX_NAME_BYTES = 4_096;
/** The largest screen taken: RFB's 16-bit sizes allow more than any console shows. */
const MAX_SCREEN_SIDE = 16_384;

/** The server broke the protocol, or sent what was not asked for: the capture ends. */
export class RfbClientError extends Error {}

export interface RfbClientOptions {
  /** Bytes to the console's server. */
  send(bytes: Buffer): void;
  /**
   * A FramebufferUpdate was read in full. `changed`: a thumbnail pixel is not what it was;
   * `resized`: the screen has a new size (DesktopSize) and none of its pixels yet.
   */
  updated(changed: boolean, resized: boolean): void;
  maxWidth?: number;
  maxHeight?: number;
}

export interface RfbClient {
  /** Sends the ClientInit: shared, so that it never ends another viewer's session. */
  start(): void;
  /** Bytes from the server, in any framing; throws RfbClientError when they are not RFB. */
  receive(bytes: Buffer): void;
  /** A FramebufferUpdateRequest for the whole screen (once the ServerInit is read). */
  request(incremental: boolean): void;
  /** The thumbnail as it stands, or null before the ServerInit. */
  thumbnail(): Thumbnail | null;
  /** The screen's size, or null before the ServerInit. */
  screen(): { width: number; height: number } | null;
}

type State =
  | { kind: 'serverInit' }
  | { kind: 'name'; bytes: number }
  | { kind: 'message' }
  | { kind: 'skip'; bytes: number }
  | { kind: 'rect'; left: number }
  | {
      kind: 'raw';
      x: number;
      y: number;
      width: number;
      rects: number;
      column: number;
      row: number;
      left: number;
    };

export function createRfbClient(options: RfbClientOptions): RfbClient {
  const pending = createByteQueue();
  let state: State = { kind: 'serverInit' };
  let width = 0;
  let height = 0;
  let scaler: Scaler | null = null;
  // Within a FramebufferUpdate: whether a pixel changed, whether the screen was resized.
  let changed = false;
  let resized = false;

  const resize = (w: number, h: number) => {
    if (w < 1 || h < 1 || w > MAX_SCREEN_SIDE || h > MAX_SCREEN_SIDE) {
      throw new RfbClientError(`a screen of ${w}×${h}`);
    }
    width = w;
    height = h;
    scaler = createScaler(w, h, options.maxWidth, options.maxHeight);
  };

  const request = (incremental: boolean) => {
    const message = Buffer.alloc(10);
    message.writeUInt8(3, 0);
    message.writeUInt8(incremental ? 1 : 0, 1);
    message.writeUInt16BE(width, 6);
    message.writeUInt16BE(height, 8);
    options.send(message);
  };

  const endOfUpdate = () => {
    state = { kind: 'message' };
    const update = { changed: changed || resized, resized };
    changed = false;
    resized = false;
    options.updated(update.changed, update.resized);
  };

  const nextRect = (left: number) => {
    if (left === 0) endOfUpdate();
    else state = { kind: 'rect', left };
  };

  /** Raw pixel bytes of the current rectangle, whole pixels only. */
  const rawBytes = (raw: Extract<State, { kind: 'raw' }>): void => {
    while (raw.left > 0) {
      const inRow = (raw.width - raw.column) * 4;
      const available = pending.length - (pending.length % 4);
      const n = Math.min(inRow, available);
      if (n === 0) return;
      const bytes = pending.take(n);
      if (scaler?.row(raw.x + raw.column, raw.y + raw.row, bytes)) changed = true;
      raw.left -= n;
      raw.column += n / 4;
      if (raw.column === raw.width) {
        raw.column = 0;
        raw.row += 1;
      }
    }
  };

  /** Consumes what it can of the pending bytes; false when it needs more. */
  const step = (): boolean => {
    switch (state.kind) {
      case 'serverInit': {
        if (pending.length < 24) return false;
        const init = pending.take(24);
        resize(init.readUInt16BE(0), init.readUInt16BE(2));
        const bytes = init.readUInt32BE(20);
        if (bytes > MAX_NAME_BYTES) throw new RfbClientError('an oversized desktop name');
        state = { kind: 'name', bytes };
        return true;
      }
      case 'name': {
        if (pending.length < state.bytes) return false;
        pending.take(state.bytes);
        state = { kind: 'message' };
        const encodings = [ENCODING_RAW, ENCODING_DESKTOP_SIZE];
        const setEncodings = Buffer.alloc(4 + 4 * encodings.length);
        setEncodings.writeUInt8(2, 0);
        setEncodings.writeUInt16BE(encodings.length, 2);
        encodings.forEach((e, i) => setEncodings.writeInt32BE(e, 4 + 4 * i));
        options.send(Buffer.concat([Buffer.of(0, 0, 0, 0), THUMBNAIL_PIXEL_FORMAT, setEncodings]));
        request(false);
        return true;
      }
      case 'message': {
        if (pending.length < 1) return false;
        const type = pending.peek(1)[0]!;
        switch (type) {
          case 0: {
            // FramebufferUpdate: type, padding, number of rectangles.
            if (pending.length < 4) return false;
            nextRect(pending.take(4).readUInt16BE(2));
            return true;
          }
          case 1: {
            // SetColourMapEntries: never asked for (true colour), read past.
            if (pending.length < 6) return false;
            state = { kind: 'skip', bytes: pending.take(6).readUInt16BE(4) * 6 };
            return true;
          }
          case 2:
            // Bell.
            pending.take(1);
            return true;
          case 3: {
            // ServerCutText: read past, however long, without holding it.
            if (pending.length < 8) return false;
            state = { kind: 'skip', bytes: pending.take(8).readUInt32BE(4) };
            return true;
          }
          default:
            throw new RfbClientError(`an unknown server message ${type}`);
        }
      }
      case 'skip': {
        const n = Math.min(state.bytes, pending.length);
        pending.take(n);
        state.bytes -= n;
        if (state.bytes > 0) return false;
        state = { kind: 'message' };
        return true;
      }
      case 'rect': {
        if (pending.length < 12) return false;
        const head = pending.take(12);
        const x = head.readUInt16BE(0);
        const y = head.readUInt16BE(2);
        const w = head.readUInt16BE(4);
        const h = head.readUInt16BE(6);
        const encoding = head.readInt32BE(8);
        const left = state.left - 1;
        if (encoding === ENCODING_DESKTOP_SIZE) {
          resize(w, h);
          resized = true;
          nextRect(left);
          return true;
        }
        if (encoding !== ENCODING_RAW) throw new RfbClientError(`an unasked encoding ${encoding}`);
        if (w === 0 || h === 0) {
          nextRect(left);
          return true;
        }
        state = { kind: 'raw', x, y, width: w, rects: left, column: 0, row: 0, left: w * h * 4 };
        return true;
      }
      case 'raw': {
        rawBytes(state);
        if (state.left > 0) return false;
        nextRect(state.rects);
        return true;
      }
    }
  };

  return {
    start() {
      options.send(Buffer.of(1));
    },
    receive(bytes) {
      pending.push(bytes);
      while (step());
    },
    request(incremental) {
      if (scaler) request(incremental);
    },
    thumbnail: () => scaler?.thumbnail ?? null,
    screen: () => (scaler ? { width, height } : null),
  };
}

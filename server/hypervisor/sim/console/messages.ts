import type { Framebuffer, Rect } from './framebuffer';

// RFB 3.8 (RFC 6143) messages after the handshake (../../rfb.ts has that) as pure functions over bytes: what the server sends is built into
// Buffers, what the client sends is parsed from the front of a byte buffer that may hold a partial
// message (WebSocket frames need not align with RFB messages).

/** Encodings the server can use; everything else a client lists is ignored. */
export const ENCODING_RAW = 0;

export interface PixelFormat {
  bitsPerPixel: number;
  depth: number;
  bigEndian: boolean;
  trueColour: boolean;
  redMax: number;
  greenMax: number;
  blueMax: number;
  redShift: number;
  greenShift: number;
  blueShift: number;
}

/** 32 bpp little-endian 0x00RRGGBB, what most viewers expect from ServerInit. */
export const DEFAULT_PIXEL_FORMAT: PixelFormat = {
  bitsPerPixel: 32,
  depth: 24,
  bigEndian: false,
  trueColour: true,
  redMax: 255,
  greenMax: 255,
  blueMax: 255,
  redShift: 16,
  greenShift: 8,
  blueShift: 0,
};

/** The pixel formats this server can write: true colour in 8, 16 or 32 bits. */
export const isSupportedFormat = (pf: PixelFormat): boolean =>
  pf.trueColour &&
  [8, 16, 32].includes(pf.bitsPerPixel) &&
  pf.redMax > 0 &&
  pf.greenMax > 0 &&
  pf.blueMax > 0;

export function encodePixelFormat(pf: PixelFormat): Buffer {
  const b = Buffer.alloc(16);
  b.writeUInt8(pf.bitsPerPixel, 0);
  b.writeUInt8(pf.depth, 1);
  b.writeUInt8(pf.bigEndian ? 1 : 0, 2);
  b.writeUInt8(pf.trueColour ? 1 : 0, 3);
  b.writeUInt16BE(pf.redMax, 4);
  b.writeUInt16BE(pf.greenMax, 6);
  b.writeUInt16BE(pf.blueMax, 8);
  b.writeUInt8(pf.redShift, 10);
  b.writeUInt8(pf.greenShift, 11);
  b.writeUInt8(pf.blueShift, 12);
  return b;
}

export function decodePixelFormat(b: Buffer, offset = 0): PixelFormat {
  return {
    bitsPerPixel: b.readUInt8(offset),
    depth: b.readUInt8(offset + 1),
    bigEndian: b.readUInt8(offset + 2) !== 0,
    trueColour: b.readUInt8(offset + 3) !== 0,
    redMax: b.readUInt16BE(offset + 4),
    greenMax: b.readUInt16BE(offset + 6),
    blueMax: b.readUInt16BE(offset + 8),
    redShift: b.readUInt8(offset + 10),
    greenShift: b.readUInt8(offset + 11),
    blueShift: b.readUInt8(offset + 12),
  };
}

export function serverInit(width: number, height: number, pf: PixelFormat, name: string): Buffer {
  const text = Buffer.from(name, 'utf8');
  const head = Buffer.alloc(24);
  head.writeUInt16BE(width, 0);
  head.writeUInt16BE(height, 2);
  encodePixelFormat(pf).copy(head, 4);
  head.writeUInt32BE(text.length, 20);
  return Buffer.concat([head, text]);
}

/** One 0xRRGGBB colour as the client's pixel value. */
export function pixelValue(rgb: number, pf: PixelFormat): number {
  const scale = (c: number, max: number) => Math.round((c * max) / 255);
  return (
    ((scale((rgb >>> 16) & 0xff, pf.redMax) << pf.redShift) |
      (scale((rgb >>> 8) & 0xff, pf.greenMax) << pf.greenShift) |
      (scale(rgb & 0xff, pf.blueMax) << pf.blueShift)) >>>
    0
  );
}

/** A rectangle's pixels in Raw encoding: row by row, each pixel in the client's format. */
export function rawPixels(fb: Framebuffer, rect: Rect, pf: PixelFormat): Buffer {
  const bytes = pf.bitsPerPixel / 8;
  const out = Buffer.alloc(rect.width * rect.height * bytes);
  // Screens hold few colours, so each is converted once.
  const values = new Map<number, number>();
  let at = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const row = y * fb.width;
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const rgb = fb.pixels[row + x] ?? 0;
      let v = values.get(rgb);
      if (v === undefined) {
        v = pixelValue(rgb, pf);
        values.set(rgb, v);
      }
      if (bytes === 4) {
        if (pf.bigEndian) out.writeUInt32BE(v, at);
        else out.writeUInt32LE(v, at);
      } else if (bytes === 2) {
        if (pf.bigEndian) out.writeUInt16BE(v & 0xffff, at);
        else out.writeUInt16LE(v & 0xffff, at);
      } else {
        out.writeUInt8(v & 0xff, at);
      }
      at += bytes;
    }
  }
  return out;
}

/** A FramebufferUpdate of Raw rectangles. */
export function framebufferUpdate(fb: Framebuffer, rects: Rect[], pf: PixelFormat): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt8(0, 0);
  head.writeUInt16BE(rects.length, 2);
  const parts: Buffer[] = [head];
  for (const rect of rects) {
    const r = Buffer.alloc(12);
    r.writeUInt16BE(rect.x, 0);
    r.writeUInt16BE(rect.y, 2);
    r.writeUInt16BE(rect.width, 4);
    r.writeUInt16BE(rect.height, 6);
    r.writeInt32BE(ENCODING_RAW, 8);
    parts.push(r, rawPixels(fb, rect, pf));
  }
  return Buffer.concat(parts);
}

export const bell = (): Buffer => Buffer.from([2]);

export type ClientMessage =
  | { type: 'setPixelFormat'; format: PixelFormat }
  | { type: 'setEncodings'; encodings: number[] }
  | { type: 'updateRequest'; incremental: boolean; rect: Rect }
  | { type: 'key'; down: boolean; keysym: number }
  | { type: 'pointer'; buttons: number; x: number; y: number }
  | { type: 'cutText'; text: string };

export class ProtocolError extends Error {}

/**
 * The longest clipboard text (ClientCutText) a viewer may send, in bytes. Its length field allows
 * 2 GiB, and the whole text is held until it is complete; no one pastes more than this into a
 * console, and a longer announcement closes the connection before its bytes are waited for.
 */
export const MAX_CUT_TEXT_BYTES = 1024 * 1024;

/** The most bytes from the front of a message that `clientMessageSize` needs to size it. */
export const CLIENT_MESSAGE_HEAD_BYTES = 8;

/**
 * The byte length of the client message that `head` (its first bytes, up to
 * CLIENT_MESSAGE_HEAD_BYTES) begins, or null when more of them are needed to tell. A message type
 * the server never announced is a ProtocolError: its length is unknown, so the stream cannot be
 * read past it. So is clipboard text over MAX_CUT_TEXT_BYTES, refused as soon as it is announced.
 */
export function clientMessageSize(head: Buffer): number | null {
  if (head.length < 1) return null;
  const type = head.readUInt8(0);
  switch (type) {
    case 0:
      return 20;
    case 2:
      return head.length < 4 ? null : 4 + head.readUInt16BE(2) * 4;
    case 3:
      return 10;
    case 4:
      return 8;
    case 5:
      return 6;
    case 6: {
      if (head.length < 8) return null;
      // A negative length is the Extended Clipboard form, which this server never announces;
      // its bytes are skipped rather than misread, and are held to the same limit.
      const length = Math.abs(head.readInt32BE(4));
      if (length > MAX_CUT_TEXT_BYTES) {
        throw new ProtocolError(`clipboard text over ${MAX_CUT_TEXT_BYTES} bytes`);
      }
      return 8 + length;
    }
    default:
      throw new ProtocolError(`unknown client message type ${type}`);
  }
}

/**
 * The first client message in `b` and its length in bytes, or null when `b` holds only part of
 * it (WebSocket frames need not align with RFB messages). Throws as `clientMessageSize` does.
 */
export function parseClientMessage(b: Buffer): { message: ClientMessage; size: number } | null {
  const size = clientMessageSize(b.subarray(0, CLIENT_MESSAGE_HEAD_BYTES));
  if (size === null || b.length < size) return null;
  return { message: decodeClientMessage(b, size), size };
}

/** The message of `size` bytes at the front of `b`, all of which are there. */
function decodeClientMessage(b: Buffer, size: number): ClientMessage {
  switch (b.readUInt8(0)) {
    case 0:
      return { type: 'setPixelFormat', format: decodePixelFormat(b, 4) };
    case 2: {
      const count = (size - 4) / 4;
      return {
        type: 'setEncodings',
        encodings: Array.from({ length: count }, (_, i) => b.readInt32BE(4 + i * 4)),
      };
    }
    case 3:
      return {
        type: 'updateRequest',
        incremental: b.readUInt8(1) !== 0,
        rect: {
          x: b.readUInt16BE(2),
          y: b.readUInt16BE(4),
          width: b.readUInt16BE(6),
          height: b.readUInt16BE(8),
        },
      };
    case 4:
      return { type: 'key', down: b.readUInt8(1) !== 0, keysym: b.readUInt32BE(4) };
    case 5:
      return {
        type: 'pointer',
        buttons: b.readUInt8(1),
        x: b.readUInt16BE(2),
        y: b.readUInt16BE(4),
      };
    default:
      // 6, ClientCutText: the only other type clientMessageSize accepts.
      return { type: 'cutText', text: b.readInt32BE(4) >= 0 ? b.toString('latin1', 8, size) : '' };
  }
}

import { describe, expect, it } from 'vitest';
import { createFramebuffer, fillRect } from './framebuffer';
import {
  decodePixelFormat,
  DEFAULT_PIXEL_FORMAT,
  encodePixelFormat,
  framebufferUpdate,
  isSupportedFormat,
  MAX_CUT_TEXT_BYTES,
  parseClientMessage,
  pixelValue,
  ProtocolError,
  serverInit,
  type PixelFormat,
} from './messages';

/** The format noVNC asks for: 32 bpp little-endian with red in the lowest byte. */
const NOVNC_FORMAT: PixelFormat = {
  ...DEFAULT_PIXEL_FORMAT,
  redShift: 0,
  greenShift: 8,
  blueShift: 16,
};

const RGB565: PixelFormat = {
  bitsPerPixel: 16,
  depth: 16,
  bigEndian: true,
  trueColour: true,
  redMax: 31,
  greenMax: 63,
  blueMax: 31,
  redShift: 11,
  greenShift: 5,
  blueShift: 0,
};

describe('RFB server messages', () => {
  it('writes ServerInit with size, pixel format and name', () => {
    const b = serverInit(800, 480, DEFAULT_PIXEL_FORMAT, 'kali');
    expect(b.readUInt16BE(0)).toBe(800);
    expect(b.readUInt16BE(2)).toBe(480);
    expect(decodePixelFormat(b, 4)).toEqual(DEFAULT_PIXEL_FORMAT);
    expect(b.readUInt32BE(20)).toBe(4);
    expect(b.toString('utf8', 24)).toBe('kali');
  });

  it('round-trips a pixel format through its 16 bytes', () => {
    expect(decodePixelFormat(encodePixelFormat(RGB565))).toEqual(RGB565);
  });

  it('converts colours into the viewer’s format', () => {
    expect(pixelValue(0x123456, DEFAULT_PIXEL_FORMAT)).toBe(0x123456);
    expect(pixelValue(0x123456, NOVNC_FORMAT)).toBe(0x563412);
    expect(pixelValue(0xffffff, RGB565)).toBe(0xffff);
    expect(pixelValue(0xff0000, RGB565)).toBe(0xf800);
  });

  it('supports true colour in 8, 16 and 32 bits only', () => {
    expect(isSupportedFormat(NOVNC_FORMAT)).toBe(true);
    expect(isSupportedFormat(RGB565)).toBe(true);
    expect(isSupportedFormat({ ...NOVNC_FORMAT, trueColour: false })).toBe(false);
    expect(isSupportedFormat({ ...NOVNC_FORMAT, bitsPerPixel: 24 })).toBe(false);
  });

  it('encodes a FramebufferUpdate of Raw rectangles in the viewer’s byte order', () => {
    const fb = createFramebuffer(4, 4, 0x000000);
    fillRect(fb, { x: 1, y: 2, width: 2, height: 1 }, 0xff0000);
    const b = framebufferUpdate(fb, [{ x: 1, y: 2, width: 2, height: 1 }], RGB565);
    expect(b.readUInt8(0)).toBe(0);
    expect(b.readUInt16BE(2)).toBe(1);
    expect([b.readUInt16BE(4), b.readUInt16BE(6), b.readUInt16BE(8), b.readUInt16BE(10)]).toEqual([
      1, 2, 2, 1,
    ]);
    expect(b.readInt32BE(12)).toBe(0);
    expect(b.length).toBe(16 + 2 * 2);
    expect(b.readUInt16BE(16)).toBe(0xf800);
    const le = framebufferUpdate(fb, [{ x: 1, y: 2, width: 1, height: 1 }], NOVNC_FORMAT);
    expect(le.readUInt32LE(16)).toBe(0x0000ff);
  });
});

describe('RFB client messages', () => {
  const key = Buffer.from([4, 1, 0, 0, 0, 0, 0xff, 0x0d]);

  it('reads each message type', () => {
    const setPixelFormat = Buffer.concat([Buffer.from([0, 0, 0, 0]), encodePixelFormat(RGB565)]);
    expect(parseClientMessage(setPixelFormat)).toEqual({
      message: { type: 'setPixelFormat', format: RGB565 },
      size: 20,
    });
    const encodings = Buffer.from([2, 0, 0, 2, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x21]);
    expect(parseClientMessage(encodings)?.message).toEqual({
      type: 'setEncodings',
      encodings: [0, -223],
    });
    const request = Buffer.from([3, 1, 0, 1, 0, 2, 0, 3, 0, 4]);
    expect(parseClientMessage(request)?.message).toEqual({
      type: 'updateRequest',
      incremental: true,
      rect: { x: 1, y: 2, width: 3, height: 4 },
    });
    expect(parseClientMessage(key)?.message).toEqual({ type: 'key', down: true, keysym: 0xff0d });
    expect(parseClientMessage(Buffer.from([5, 1, 0, 10, 0, 20]))?.message).toEqual({
      type: 'pointer',
      buttons: 1,
      x: 10,
      y: 20,
    });
    const cut = Buffer.concat([Buffer.from([6, 0, 0, 0, 0, 0, 0, 2]), Buffer.from('hi')]);
    expect(parseClientMessage(cut)).toEqual({ message: { type: 'cutText', text: 'hi' }, size: 10 });
  });

  it('waits for the rest of a message split across frames', () => {
    expect(parseClientMessage(key.subarray(0, 5))).toBeNull();
    expect(parseClientMessage(Buffer.from([2, 0, 0, 2, 0, 0, 0, 0]))).toBeNull();
    expect(parseClientMessage(Buffer.alloc(0))).toBeNull();
  });

  it('reads only the first message and says how long it was', () => {
    const two = Buffer.concat([key, key]);
    expect(parseClientMessage(two)?.size).toBe(8);
  });

  it('skips extended clipboard data it never asked for', () => {
    const b = Buffer.from([6, 0, 0, 0, 0xff, 0xff, 0xff, 0xfc, 1, 2, 3, 4]);
    expect(parseClientMessage(b)).toEqual({ message: { type: 'cutText', text: '' }, size: 12 });
  });

  it('refuses clipboard text over the limit as soon as its length is announced', () => {
    const head = (length: number) => {
      const b = Buffer.from([6, 0, 0, 0, 0, 0, 0, 0]);
      b.writeInt32BE(length, 4);
      return b;
    };
    // Nothing of the text has arrived: the announced length alone refuses it.
    expect(() => parseClientMessage(head(MAX_CUT_TEXT_BYTES + 1))).toThrow(ProtocolError);
    expect(() => parseClientMessage(head(0x7fffffff))).toThrow(ProtocolError);
    expect(() => parseClientMessage(head(-0x80000000))).toThrow(ProtocolError);
    // At the limit, it waits for the text.
    expect(parseClientMessage(head(MAX_CUT_TEXT_BYTES))).toBeNull();
    const full = Buffer.concat([head(MAX_CUT_TEXT_BYTES), Buffer.alloc(MAX_CUT_TEXT_BYTES, 0x61)]);
    expect(parseClientMessage(full)?.size).toBe(8 + MAX_CUT_TEXT_BYTES);
  });

  it('refuses a message type it cannot size', () => {
    expect(() => parseClientMessage(Buffer.from([150, 0, 0, 0]))).toThrow(ProtocolError);
  });
});

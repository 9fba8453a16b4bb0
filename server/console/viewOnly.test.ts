import { describe, expect, it } from 'vitest';
import { ViewerProtocolError } from '../hypervisor/rfb';
import { clientMessageLength, createViewOnlyFilter } from './viewOnly';

// The view-only filter over client messages as noVNC writes them (RFB 6.4 and its extensions),
// fed whole, byte by byte and in uneven chunks: only the screen's messages come out, unchanged.

const bytes = (...parts: number[][]) => Buffer.from(parts.flat());
const u16 = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const u32 = (n: number) => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];

const setPixelFormat = [
  0,
  0,
  0,
  0,
  32,
  24,
  0,
  1,
  ...u16(255),
  ...u16(255),
  ...u16(255),
  16,
  8,
  0,
  0,
  0,
  0,
];
const setEncodings = [2, 0, ...u16(3), ...u32(0), ...u32(-223 >>> 0), ...u32(-258 >>> 0)];
const updateRequest = [3, 1, ...u16(0), ...u16(0), ...u16(800), ...u16(600)];
const keyEvent = [4, 1, 0, 0, ...u32(0x61)];
const pointer = [5, 1, ...u16(10), ...u16(20)];
const extendedPointer = [5, 0x81, ...u16(10), ...u16(20), 1];
const cutText = (text: string) => [6, 0, 0, 0, ...u32(text.length), ...Buffer.from(text, 'latin1')];
const extendedCutText = [6, 0, 0, 0, ...u32(-4 >>> 0), 0x10, 0, 0, 1];
const continuous = [150, 1, ...u16(0), ...u16(0), ...u16(800), ...u16(600)];
const fence = [248, 0, 0, 0, ...u32(0x80000003), 3, 1, 2, 3];
const xvp = [250, 0, 1, 3];
const setDesktopSize = [251, 0, ...u16(1024), ...u16(768), 1, 0, ...Array<number>(16).fill(0)];
const qemuKey = [255, 0, ...u16(1), ...u32(0x61), ...u32(0x1e)];
const qemuAudio = [255, 1, ...u16(0)];
const qemuAudioFormat = [255, 1, ...u16(2), 3, 2, ...u32(44_100)];

const screen = bytes(setPixelFormat, setEncodings, updateRequest, continuous, fence);
const mixed = bytes(
  setPixelFormat,
  keyEvent,
  setEncodings,
  pointer,
  cutText('paste me'),
  updateRequest,
  extendedPointer,
  extendedCutText,
  continuous,
  xvp,
  setDesktopSize,
  fence,
  qemuKey,
  qemuAudio,
  qemuAudioFormat,
  updateRequest,
);
const screenOfMixed = bytes(
  setPixelFormat,
  setEncodings,
  updateRequest,
  continuous,
  fence,
  updateRequest,
);

/** Feeds `stream` in chunks of the given sizes (cycled) and joins what came out. */
function filtered(stream: Buffer, sizes: number[]): Buffer {
  const filter = createViewOnlyFilter();
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < stream.length; i++) {
    const n = sizes[i % sizes.length]!;
    out.push(filter.push(stream.subarray(at, at + n)));
    at += n;
  }
  return Buffer.concat(out);
}

describe('view-only input filter', () => {
  it('passes the messages that ask for the screen, unchanged', () => {
    expect(filtered(screen, [screen.length])).toEqual(screen);
  });

  it('drops keys, pointer, clipboard, power and resize messages, whole or chunked', () => {
    for (const sizes of [[mixed.length], [1], [3, 7, 2], [5, 11], [13]]) {
      expect(filtered(mixed, sizes)).toEqual(screenOfMixed);
    }
  });

  it('skips long clipboard text without holding it, however it is split', () => {
    const long = bytes(cutText('x'.repeat(100_000)), updateRequest);
    expect(filtered(long, [4096])).toEqual(Buffer.from(updateRequest));
    expect(filtered(long, [7, 60_000])).toEqual(Buffer.from(updateRequest));
  });

  it('sizes the variable messages by their counts', () => {
    expect(clientMessageLength(Buffer.from(setEncodings))).toBe(setEncodings.length);
    expect(clientMessageLength(Buffer.from(setEncodings.slice(0, 3)))).toBeNull();
    expect(clientMessageLength(Buffer.from(cutText('abc')))).toBe(11);
    expect(clientMessageLength(Buffer.from(extendedCutText))).toBe(extendedCutText.length);
    expect(clientMessageLength(Buffer.from(fence))).toBe(fence.length);
    expect(clientMessageLength(Buffer.from(setDesktopSize))).toBe(setDesktopSize.length);
    expect(clientMessageLength(Buffer.from(qemuAudioFormat))).toBe(qemuAudioFormat.length);
  });

  it('refuses a message type of unknown length, even after good ones in the same chunk', () => {
    const filter = createViewOnlyFilter();
    expect(filter.push(Buffer.from(updateRequest.slice(0, 4)))).toEqual(
      Buffer.from(updateRequest.slice(0, 4)),
    );
    expect(() => filter.push(bytes(updateRequest.slice(4), [7, 0, 0, 0]))).toThrow(
      ViewerProtocolError,
    );
    expect(() => createViewOnlyFilter().push(Buffer.from([255, 9, 0, 0]))).toThrow(
      ViewerProtocolError,
    );
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMachineDisplay } from './display';
import { encodePixelFormat, MAX_CUT_TEXT_BYTES, type PixelFormat } from './messages';
import { CLOSE_PROTOCOL_ERROR, startRfbSession } from './rfb';
import { SCREEN_HEIGHT, SCREEN_WIDTH } from './screen';

// The session on its own, fed bytes directly from the viewer's ClientInit on (server/console did
// the handshake): pixel formats, limits and framing that the WebSocket tests (routes.test.ts) do
// not reach.

function session() {
  const sent: Buffer[] = [];
  const closes: { code: number; reason: string }[] = [];
  const display = createMachineDisplay('web');
  const s = startRfbSession(
    { send: (d) => sent.push(d), close: (code, reason) => closes.push({ code, reason }) },
    display,
  );
  return { s, sent, closes, display };
}

const RGB565: PixelFormat = {
  bitsPerPixel: 16,
  depth: 16,
  bigEndian: false,
  trueColour: true,
  redMax: 31,
  greenMax: 63,
  blueMax: 31,
  redShift: 11,
  greenShift: 5,
  blueShift: 0,
};

/** The viewer's ClientInit (not shared). */
const CLIENT_INIT = Buffer.from([0]);

/** The head of a ClientCutText announcing `length` bytes of text. */
function cutTextHead(length: number): Buffer {
  const b = Buffer.from([6, 0, 0, 0, 0, 0, 0, 0]);
  b.writeInt32BE(length, 4);
  return b;
}

function fullRequest(): Buffer {
  const b = Buffer.alloc(10);
  b.writeUInt8(3, 0);
  b.writeUInt16BE(SCREEN_WIDTH, 6);
  b.writeUInt16BE(SCREEN_HEIGHT, 8);
  return b;
}

describe('RFB session', () => {
  it('is silent until the ClientInit, allocates its screen copy there, then sends ServerInit', () => {
    const { s, sent } = session();
    expect(sent).toEqual([]);
    s.receive(Buffer.from([1]));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.readUInt16BE(0)).toBe(SCREEN_WIDTH);
    expect(sent[0]!.readUInt16BE(2)).toBe(SCREEN_HEIGHT);
    s.receive(fullRequest());
    expect(sent[1]!.readUInt8(0)).toBe(0);
  });

  it('reads messages split across frames and several messages in one frame', () => {
    const { s, sent } = session();
    const all = Buffer.concat([CLIENT_INIT, fullRequest()]);
    for (const byte of all) s.receive(Buffer.from([byte]));
    // ServerInit, update
    expect(sent).toHaveLength(2);
    expect(sent[1]!.readUInt16BE(2)).toBeGreaterThan(0);
  });

  it('sends updates in the pixel format the viewer sets', () => {
    const { s, sent } = session();
    s.receive(CLIENT_INIT);
    const setFormat = Buffer.concat([Buffer.from([0, 0, 0, 0]), encodePixelFormat(RGB565)]);
    s.receive(Buffer.concat([setFormat, fullRequest()]));
    const update = sent.at(-1)!;
    expect(update.length).toBe(4 + 12 + SCREEN_WIDTH * SCREEN_HEIGHT * 2);
    // The first pixel is the title bar's dark blue 0x1d3557 in 5-6-5 bits.
    expect(update.readUInt16LE(16)).toBe((4 << 11) | (13 << 5) | 11);
  });

  it('closes on a message type it does not know', () => {
    const { s, closes } = session();
    s.receive(Buffer.concat([CLIENT_INIT, Buffer.from([250, 0])]));
    expect(closes[0]!.code).toBe(CLOSE_PROTOCOL_ERROR);
  });

  it('types pasted text into the console', () => {
    const { s, display } = session();
    s.receive(CLIENT_INIT);
    const before = display.screen();
    const text = Buffer.from('echo hi\n', 'latin1');
    const head = Buffer.from([6, 0, 0, 0, 0, 0, 0, text.length]);
    s.receive(Buffer.concat([head, text]));
    expect(display.screen()).not.toBe(before);
  });

  it('closes at once when a viewer announces clipboard text over the limit', () => {
    const { s, closes } = session();
    s.receive(CLIENT_INIT);
    // Only the 8-byte head: the session must not wait for 2 GiB that will never come.
    s.receive(cutTextHead(0x7fffffff));
    expect(closes).toEqual([
      { code: CLOSE_PROTOCOL_ERROR, reason: expect.stringMatching(/clipboard/) },
    ]);
  });

  describe('a long paste in many small frames', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('copies its bytes a bounded number of times, not once per frame', () => {
      const { s, closes, display } = session();
      s.receive(CLIENT_INIT);
      const text = Buffer.alloc(MAX_CUT_TEXT_BYTES / 4, 0x61);
      const message = Buffer.concat([cutTextHead(text.length), text]);
      const concat = vi.spyOn(Buffer, 'concat');
      const before = display.screen();
      const FRAME = 1024;
      for (let at = 0; at < message.length; at += FRAME) {
        s.receive(message.subarray(at, at + FRAME));
      }
      // Every byte copied by concatenation, counted: once per frame would be quadratic, about
      // frames²/2 × frame size (32 MiB here); reading each message once is about its size.
      const copied = concat.mock.results.reduce(
        (sum, r) => sum + (r.type === 'return' ? (r.value as Buffer).length : 0),
        0,
      );
      expect(copied).toBeLessThanOrEqual(2 * message.length);
      expect(closes).toEqual([]);
      expect(display.screen()).not.toBe(before);
    });
  });

  it('stops following the display once ended', () => {
    const { s, sent, display } = session();
    s.receive(Buffer.concat([CLIENT_INIT, fullRequest()]));
    const count = sent.length;
    s.end();
    display.powerOff('stopped', '[machine stopped]');
    expect(sent).toHaveLength(count);
  });
});

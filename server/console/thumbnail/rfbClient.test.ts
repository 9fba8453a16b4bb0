import { describe, expect, it } from 'vitest';
import { expectedThumbnail } from '../../../tests/server/thumbnails/pngDecode';
import { createMachineDisplay } from '../../hypervisor/sim/console/display';
import { startRfbSession } from '../../hypervisor/sim/console/rfb';
import { pasteInputs } from '../../hypervisor/sim/console/keys';
import {
  createRfbClient,
  ENCODING_DESKTOP_SIZE,
  RfbClientError,
  THUMBNAIL_PIXEL_FORMAT,
} from './rfbClient';

// The thumbnail capture's RFB client, given server bytes in every framing: handmade messages for
// what the simulated console never sends (DesktopSize, Bell, cut text, colour maps), and the
// simulated console's own RFB server for a real screen.

function serverInit(width: number, height: number, name = 'kali'): Buffer {
  const head = Buffer.alloc(24);
  head.writeUInt16BE(width, 0);
  head.writeUInt16BE(height, 2);
  // The server's own format (16 bpp here): the client sets its own before any update.
  Buffer.of(16, 16, 1, 1, 0, 31, 0, 63, 0, 31, 11, 5, 0).copy(head, 4);
  head.writeUInt32BE(name.length, 20);
  return Buffer.concat([head, Buffer.from(name, 'latin1')]);
}

function rectHead(x: number, y: number, w: number, h: number, encoding: number): Buffer {
  const b = Buffer.alloc(12);
  b.writeUInt16BE(x, 0);
  b.writeUInt16BE(y, 2);
  b.writeUInt16BE(w, 4);
  b.writeUInt16BE(h, 6);
  b.writeInt32BE(encoding, 8);
  return b;
}

/** A Raw rectangle of 0xRRGGBB pixels in the client's format: 32 bpp little endian. */
function rawRect(
  x: number,
  y: number,
  w: number,
  h: number,
  pixel: (x: number, y: number) => number,
) {
  const data = Buffer.alloc(w * h * 4);
  for (let j = 0; j < h; j++)
    for (let i = 0; i < w; i++) data.writeUInt32LE(pixel(x + i, y + j), (j * w + i) * 4);
  return Buffer.concat([rectHead(x, y, w, h, 0), data]);
}

const update = (...rects: Buffer[]) => {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(rects.length, 2);
  return Buffer.concat([head, ...rects]);
};

/** Splits bytes into chunks of the given sizes, cycling through them. */
function chunked(bytes: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = sizes[i % sizes.length]!;
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

function client(maxWidth?: number, maxHeight?: number) {
  const sent: Buffer[] = [];
  const updates: { changed: boolean; resized: boolean }[] = [];
  const c = createRfbClient({
    send: (b) => sent.push(b),
    updated: (changed, resized) => updates.push({ changed, resized }),
    maxWidth,
    maxHeight,
  });
  return { c, sent, updates };
}

const colour = (x: number, y: number) => ((x * 37) << 16) | ((y * 53) << 8) | ((x + y) * 11);

describe('the thumbnail RFB client', () => {
  it('sends a shared ClientInit, then its pixel format, encodings and a full request', () => {
    const { c, sent } = client();
    c.start();
    expect(sent.map((b) => [...b])).toEqual([[1]]);
    c.receive(serverInit(800, 480));
    const setup = Buffer.concat(sent.slice(1));
    // SetPixelFormat: type 0, 3 padding, the format.
    expect([...setup.subarray(0, 4)]).toEqual([0, 0, 0, 0]);
    expect(setup.subarray(4, 20).equals(THUMBNAIL_PIXEL_FORMAT)).toBe(true);
    expect([...THUMBNAIL_PIXEL_FORMAT.subarray(0, 4)]).toEqual([32, 24, 0, 1]);
    // SetEncodings: Raw and DesktopSize.
    expect(setup.readUInt8(20)).toBe(2);
    expect(setup.readUInt16BE(22)).toBe(2);
    expect([setup.readInt32BE(24), setup.readInt32BE(28)]).toEqual([0, ENCODING_DESKTOP_SIZE]);
    // FramebufferUpdateRequest: not incremental, the whole screen.
    expect([...setup.subarray(32)]).toEqual([
      3,
      0,
      0,
      0,
      0,
      0,
      800 >> 8,
      800 & 0xff,
      480 >> 8,
      480 & 0xff,
    ]);
    expect(c.screen()).toEqual({ width: 800, height: 480 });
    expect(c.thumbnail()).toMatchObject({ width: 320, height: 192 });
  });

  it('shrinks Raw rectangles into the thumbnail whatever the chunking', () => {
    const width = 40;
    const height = 20;
    const stream = Buffer.concat([
      serverInit(width, height),
      // Two rectangles that cover the screen, split across a row.
      update(rawRect(0, 0, width, 7, colour), rawRect(0, 7, width, 13, colour)),
    ]);
    const expected = expectedThumbnail(
      Uint32Array.from({ length: width * height }, (_, i) =>
        colour(i % width, Math.floor(i / width)),
      ),
      width,
      height,
      16,
      8,
    );
    for (const sizes of [[1], [3, 5, 2], [7], [stream.length], [4096, 1]]) {
      const { c, updates } = client(16, 8);
      c.start();
      for (const chunk of chunked(stream, sizes)) c.receive(chunk);
      expect(updates, `chunks of ${sizes}`).toEqual([{ changed: true, resized: false }]);
      const thumbnail = c.thumbnail()!;
      expect([thumbnail.width, thumbnail.height]).toEqual([16, 8]);
      expect(Buffer.from(thumbnail.rgb).equals(Buffer.from(expected)), `chunks of ${sizes}`).toBe(
        true,
      );
    }
  });

  it('reads colours as red, green and blue from the little-endian pixels', () => {
    const { c } = client();
    c.start();
    c.receive(serverInit(2, 1));
    c.receive(update(rawRect(0, 0, 2, 1, (x) => (x === 0 ? 0xff8001 : 0x0a0b0c))));
    expect([...c.thumbnail()!.rgb]).toEqual([0xff, 0x80, 0x01, 0x0a, 0x0b, 0x0c]);
  });

  it('says when an update changed nothing the thumbnail shows', () => {
    const { c, updates } = client(4, 4);
    c.start();
    c.receive(serverInit(8, 8));
    c.receive(update(rawRect(0, 0, 8, 8, () => 0x123456)));
    // A pixel between the sampled ones, then a sampled one.
    c.receive(update(rawRect(0, 0, 1, 1, () => 0xffffff)));
    c.receive(update(rawRect(1, 1, 1, 1, () => 0xffffff)));
    expect(updates.map((u) => u.changed)).toEqual([true, false, true]);
  });

  it('reads past Bell, ServerCutText and SetColourMapEntries between updates', () => {
    const cut = Buffer.alloc(8 + 5000, 0x41);
    cut.writeUInt8(3, 0);
    cut.writeUInt32BE(5000, 4);
    const colourMap = Buffer.alloc(6 + 2 * 6);
    colourMap.writeUInt8(1, 0);
    colourMap.writeUInt16BE(2, 4);
    const stream = Buffer.concat([
      serverInit(4, 2),
      Buffer.of(2),
      cut,
      colourMap,
      update(rawRect(0, 0, 4, 2, () => 0x00ff00)),
      Buffer.of(2),
    ]);
    for (const sizes of [[1], [9, 2], [stream.length]]) {
      const { c, updates } = client();
      c.start();
      for (const chunk of chunked(stream, sizes)) c.receive(chunk);
      expect(updates).toHaveLength(1);
      expect([...c.thumbnail()!.rgb.subarray(0, 3)]).toEqual([0, 0xff, 0]);
    }
  });

  it('takes a new screen size from DesktopSize, then its pixels', () => {
    const { c, updates } = client(320, 240);
    c.start();
    c.receive(serverInit(640, 480));
    c.receive(update(rawRect(0, 0, 640, 480, () => 0x111111)));
    c.receive(update(rectHead(0, 0, 1024, 768, ENCODING_DESKTOP_SIZE)));
    expect(updates.at(-1)).toEqual({ changed: true, resized: true });
    expect(c.screen()).toEqual({ width: 1024, height: 768 });
    expect(c.thumbnail()).toMatchObject({ width: 320, height: 240 });
    c.request(false);
    c.receive(update(rawRect(0, 0, 1024, 768, () => 0xabcdef)));
    expect([...c.thumbnail()!.rgb.subarray(-3)]).toEqual([0xab, 0xcd, 0xef]);
  });

  it('refuses what it did not ask for', () => {
    const { c } = client();
    c.start();
    c.receive(serverInit(4, 4));
    expect(() => c.receive(update(rectHead(0, 0, 4, 4, 16)))).toThrow(RfbClientError);
    const other = client();
    other.c.start();
    other.c.receive(serverInit(4, 4));
    expect(() => other.c.receive(Buffer.of(150))).toThrow(RfbClientError);
    expect(() => client().c.receive(serverInit(0, 4))).toThrow(RfbClientError);
  });

  it("shows the simulated console's screen as its RFB server sends it", () => {
    const display = createMachineDisplay('kali');
    display.input(pasteInputs('echo the wall\n'));
    const toClient: Buffer[] = [];
    const session = startRfbSession({ send: (b) => toClient.push(b), close: () => {} }, display);
    const { c, sent, updates } = client();
    // Each side fed the other's bytes in 1000-byte pieces, until neither has more to say.
    const pump = () => {
      while (sent.length > 0 || toClient.length > 0) {
        for (const bytes of sent.splice(0))
          chunked(bytes, [1000]).forEach((b) => session.receive(b));
        for (const bytes of toClient.splice(0)) chunked(bytes, [1000]).forEach((b) => c.receive(b));
      }
    };
    const matches = () => {
      const screen = display.screen();
      const thumbnail = c.thumbnail()!;
      const expected = expectedThumbnail(
        screen.pixels,
        screen.width,
        screen.height,
        thumbnail.width,
        thumbnail.height,
      );
      return Buffer.from(thumbnail.rgb).equals(Buffer.from(expected));
    };
    c.start();
    pump();
    expect(updates).toEqual([{ changed: true, resized: false }]);
    expect(matches()).toBe(true);
    // A change on the screen comes as an incremental update of what changed.
    c.request(true);
    display.input(pasteInputs('ls -l\n'));
    pump();
    expect(updates).toHaveLength(2);
    expect(updates[1]!.changed).toBe(true);
    expect(matches()).toBe(true);
    session.end();
  });
});

import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodePng } from '../../../tests/server/thumbnails/pngDecode';
import { crc32, encodePng } from './png';

// The thumbnails' PNG encoder, read back with zlib's inflate and CRC by a small test decoder.

describe('encodePng', () => {
  it('computes the CRC-32 PNG chunks carry', () => {
    const bytes = Buffer.from('IEND, and then some text of any length', 'latin1');
    expect(crc32(bytes)).toBe(zlibCrc32(bytes));
    expect(crc32(new Uint8Array(0))).toBe(0);
  });

  it('writes RGB pixels that decode back to the same bytes', () => {
    const width = 37;
    const height = 11;
    const rgb = new Uint8Array(width * height * 3);
    // A gradient and some noise: every byte value, and neighbours that differ by any amount.
    for (let i = 0; i < rgb.length; i++) rgb[i] = (i * 7 + ((i * i) >> 3)) & 0xff;
    const png = encodePng(width, height, rgb);
    const decoded = decodePng(png);
    expect([decoded.width, decoded.height]).toEqual([width, height]);
    expect(Buffer.from(decoded.rgb).equals(Buffer.from(rgb))).toBe(true);
  });

  it('writes a one-pixel picture', () => {
    const decoded = decodePng(encodePng(1, 1, Uint8Array.of(0xff, 0x80, 0x01)));
    expect([...decoded.rgb]).toEqual([0xff, 0x80, 0x01]);
  });

  it('compresses a console-like screen well', () => {
    const width = 320;
    const height = 192;
    const rgb = new Uint8Array(width * height * 3).fill(0x20);
    const png = encodePng(width, height, rgb);
    expect(png.length).toBeLessThan(1_000);
    expect([...decodePng(png).rgb.subarray(0, 3)]).toEqual([0x20, 0x20, 0x20]);
  });

  it('refuses bytes that are not the picture size', () => {
    expect(() => encodePng(2, 2, new Uint8Array(11))).toThrow(RangeError);
    expect(() => encodePng(0, 2, new Uint8Array(0))).toThrow(RangeError);
  });
});

import { crc32, inflateSync } from 'node:zlib';

// A PNG reader for tests of the thumbnails: just enough of the format (8-bit RGB, no interlace,
// any of the five row filters) to check pixels, with every chunk's CRC checked by node:zlib's.

export interface DecodedPng {
  width: number;
  height: number;
  /** RGB bytes, row by row. */
  rgb: Uint8Array;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

export function decodePng(png: Buffer): DecodedPng {
  if (!SIGNATURE.every((b, i) => png[i] === b)) throw new Error('not a PNG signature');
  let at = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  const types: string[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    const crc = png.readUInt32BE(at + 8 + length);
    if (crc32(png.subarray(at + 4, at + 8 + length)) !== crc) throw new Error(`bad CRC in ${type}`);
    types.push(type);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, colour, compression, filter, interlace] = data.subarray(8);
      if (depth !== 8 || colour !== 2 || compression || filter || interlace) {
        throw new Error('not 8-bit RGB without interlace');
      }
    } else if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  if (types[0] !== 'IHDR' || types.at(-1) !== 'IEND') throw new Error(`chunks ${types}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 3;
  if (raw.length !== (stride + 1) * height) throw new Error('wrong amount of image data');
  const rgb = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i]!;
      const a = i >= 3 ? rgb[y * stride + i - 3]! : 0;
      const b = y > 0 ? rgb[(y - 1) * stride + i]! : 0;
      const c = i >= 3 && y > 0 ? rgb[(y - 1) * stride + i - 3]! : 0;
      const predicted = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
      if (predicted === undefined) throw new Error(`filter ${filter}`);
      rgb[y * stride + i] = (x + predicted) & 0xff;
    }
  }
  return { width, height, rgb };
}

/**
 * The thumbnail of a screen of 0xRRGGBB pixels as the wall's captures make it: each thumbnail
 * pixel is the screen pixel at the centre of the span it stands for.
 */
export function expectedThumbnail(
  pixels: Uint32Array,
  screenWidth: number,
  screenHeight: number,
  width: number,
  height: number,
): Uint8Array {
  const rgb = new Uint8Array(width * height * 3);
  for (let ty = 0; ty < height; ty++) {
    const sy = Math.floor(((ty + 0.5) * screenHeight) / height);
    for (let tx = 0; tx < width; tx++) {
      const sx = Math.floor(((tx + 0.5) * screenWidth) / width);
      const p = pixels[sy * screenWidth + sx]!;
      rgb.set([(p >>> 16) & 0xff, (p >>> 8) & 0xff, p & 0xff], (ty * width + tx) * 3);
    }
  }
  return rgb;
}

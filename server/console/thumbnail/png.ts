import { deflateSync } from 'node:zlib';

// A PNG encoder for console thumbnails (PNG specification, ISO/IEC 15948): 8-bit RGB, no
// interlace, each row with the Sub filter, which turns the long runs of one colour a console
// screen is made of into runs of zeros that deflate to almost nothing. Small enough to own rather
// than take a dependency for.

const SIGNATURE = Buffer.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
const COLOUR_TYPE_RGB = 2;
const FILTER_SUB = 1;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309) of the bytes, as PNG chunks carry it. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  // The CRC covers the type and the data, not the length.
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** A PNG of `width`×`height` pixels given as RGB bytes, row by row, top to bottom. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  if (width < 1 || height < 1 || rgb.length !== width * height * 3) {
    throw new RangeError(`no ${width}×${height} RGB picture in ${rgb.length} bytes`);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(COLOUR_TYPE_RGB, 9);
  // Compression, filter method and interlace: 0, the only ones PNG defines (but Adam7).
  const stride = width * 3;
  const filtered = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    const at = y * (stride + 1);
    filtered[at] = FILTER_SUB;
    for (let i = 0; i < stride; i++) {
      const left = i >= 3 ? rgb[row + i - 3]! : 0;
      filtered[at + 1 + i] = (rgb[row + i]! - left) & 0xff;
    }
  }
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(filtered)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

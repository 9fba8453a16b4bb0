// DES (FIPS 46-3) encryption of single 8-byte blocks, and the VNC authentication response built on
// it (RFC 6143 §7.2.2). The Proxmox console bridge answers PVE's VNC challenge with the vncproxy
// ticket as the password. Node's crypto cannot do this on its own: OpenSSL 3 moved DES into the
// legacy provider, which Node does not load, and an npm DES package would be a dependency for
// forty lines of tables. Only encryption is needed, so there is no decryption here.
//
// The implementation works on arrays of bits, one byte per bit, because it follows the standard's
// tables one to one and is easy to check against them; it encrypts two blocks per console, so
// speed does not matter.

/** Bit positions, 1-based and most significant first, as the standard writes them. */
type Table = readonly number[];

// Initial permutation (IP).
const IP: Table = [
  58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4, 62, 54, 46, 38, 30, 22, 14, 6, 64,
  56, 48, 40, 32, 24, 16, 8, 57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3, 61, 53,
  45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7,
];

// The final permutation is IP's inverse; deriving it leaves one table fewer to mistype.
const FP: Table = IP.map((_, i) => IP.indexOf(i + 1) + 1);

// Expansion (E) of the 32-bit half block to 48 bits.
const E: Table = [
  32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13, 12, 13, 14, 15, 16, 17, 16, 17, 18, 19,
  20, 21, 20, 21, 22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1,
];

// Permutation (P) of the S-box outputs.
const P: Table = [
  16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10, 2, 8, 24, 14, 32, 27, 3, 9, 19, 13,
  30, 6, 22, 11, 4, 25,
];

// Permuted choice 1: the 56 key bits that count (every eighth bit is parity), as C then D.
const PC1: Table = [
  57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18, 10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60,
  52, 44, 36, 63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22, 14, 6, 61, 53, 45, 37, 29, 21,
  13, 5, 28, 20, 12, 4,
];

// Permuted choice 2: the 48 bits of a round key, from C and D after their rotations.
const PC2: Table = [
  14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, 23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2, 41, 52,
  31, 37, 47, 55, 30, 40, 51, 45, 33, 48, 44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32,
];

// Left rotations of C and D before each of the 16 rounds.
const ROTATIONS = [1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1] as const;

// The eight S-boxes, each 4 rows of 16, row-major.
const S_BOXES: readonly (readonly number[])[] = [
  [
    14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7, 0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11,
    9, 5, 3, 8, 4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0, 15, 12, 8, 2, 4, 9, 1, 7, 5,
    11, 3, 14, 10, 0, 6, 13,
  ],
  [
    15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10, 3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10,
    6, 9, 11, 5, 0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15, 13, 8, 10, 1, 3, 15, 4, 2,
    11, 6, 7, 12, 0, 5, 14, 9,
  ],
  [
    10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8, 13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12,
    11, 15, 1, 13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7, 1, 10, 13, 0, 6, 9, 8, 7, 4,
    15, 14, 3, 11, 5, 2, 12,
  ],
  [
    7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15, 13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1,
    10, 14, 9, 10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4, 3, 15, 0, 6, 10, 1, 13, 8, 9,
    4, 5, 11, 12, 7, 2, 14,
  ],
  [
    2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9, 14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10,
    3, 9, 8, 6, 4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14, 11, 8, 12, 7, 1, 14, 2, 13, 6,
    15, 0, 9, 10, 4, 5, 3,
  ],
  [
    12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11, 10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14,
    0, 11, 3, 8, 9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6, 4, 3, 2, 12, 9, 5, 15, 10,
    11, 14, 1, 7, 6, 0, 8, 13,
  ],
  [
    4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1, 13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12,
    2, 15, 8, 6, 1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2, 6, 11, 13, 8, 1, 4, 10, 7, 9,
    5, 0, 15, 14, 2, 3, 12,
  ],
  [
    13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7, 1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11,
    0, 14, 9, 2, 7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8, 2, 1, 14, 7, 4, 10, 8, 13,
    15, 12, 9, 0, 3, 5, 6, 11,
  ],
];

/** Bits of a byte array, most significant bit of the first byte first. */
function toBits(bytes: Uint8Array): number[] {
  const bits: number[] = [];
  for (const byte of bytes) {
    for (let shift = 7; shift >= 0; shift--) bits.push((byte >> shift) & 1);
  }
  return bits;
}

function fromBits(bits: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(bits.length / 8);
  bits.forEach((bit, i) => {
    bytes[i >> 3]! |= bit << (7 - (i & 7));
  });
  return bytes;
}

const permute = (bits: readonly number[], table: Table): number[] =>
  table.map((position) => bits[position - 1]!);

const xor = (a: readonly number[], b: readonly number[]): number[] =>
  a.map((bit, i) => bit ^ b[i]!);

const rotateLeft = (bits: readonly number[], n: number): number[] => [
  ...bits.slice(n),
  ...bits.slice(0, n),
];

/** The 16 round keys of a 64-bit key (parity bits ignored). */
function roundKeys(key: Uint8Array): number[][] {
  const chosen = permute(toBits(key), PC1);
  let c = chosen.slice(0, 28);
  let d = chosen.slice(28);
  return ROTATIONS.map((n) => {
    c = rotateLeft(c, n);
    d = rotateLeft(d, n);
    return permute([...c, ...d], PC2);
  });
}

/** The S-box stage: eight 6-bit groups in, eight 4-bit values out. */
function substitute(bits: readonly number[]): number[] {
  const out: number[] = [];
  S_BOXES.forEach((box, i) => {
    const [b0, b1, b2, b3, b4, b5] = bits.slice(i * 6, i * 6 + 6) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    // The outer bits pick the row, the inner four the column.
    const value = box[((b0 << 1) | b5) * 16 + ((b1 << 3) | (b2 << 2) | (b3 << 1) | b4)]!;
    for (let shift = 3; shift >= 0; shift--) out.push((value >> shift) & 1);
  });
  return out;
}

/** The cipher function f(R, K). */
const feistel = (right: readonly number[], roundKey: readonly number[]): number[] =>
  permute(substitute(xor(permute(right, E), roundKey)), P);

/** Encrypts one 8-byte block with an 8-byte key. */
export function desEncryptBlock(key: Uint8Array, block: Uint8Array): Uint8Array {
  if (key.length !== 8 || block.length !== 8) {
    throw new RangeError('DES takes an 8-byte key and an 8-byte block');
  }
  const start = permute(toBits(block), IP);
  let left = start.slice(0, 32);
  let right = start.slice(32);
  for (const roundKey of roundKeys(key)) {
    [left, right] = [right, xor(left, feistel(right, roundKey))];
  }
  // The halves are swapped once more after the last round (R16 L16) before the final permutation.
  return fromBits(permute([...right, ...left], FP));
}

/** A byte with its bit order reversed (bit 0 becomes bit 7). */
function reverseBits(byte: number): number {
  let out = 0;
  for (let i = 0; i < 8; i++) out = (out << 1) | ((byte >> i) & 1);
  return out;
}

/**
 * The VNC authentication key of a password: its first 8 bytes (latin1), zero-padded, each byte's
 * bits reversed. The reversal is not in RFC 6143 but every VNC server since the original AT&T
 * one does it, PVE's QEMU included, so a client must too.
 */
export function vncAuthKey(password: string): Uint8Array {
  const key = new Uint8Array(8);
  const bytes = Buffer.from(password, 'latin1');
  for (let i = 0; i < 8 && i < bytes.length; i++) key[i] = reverseBits(bytes[i]!);
  return key;
}

/** The 16-byte answer to a VNC authentication challenge: the challenge as two DES-ECB blocks. */
export function vncAuthResponse(challenge: Uint8Array, password: string): Uint8Array {
  if (challenge.length !== 16) throw new RangeError('a VNC challenge has 16 bytes');
  const key = vncAuthKey(password);
  const response = new Uint8Array(16);
  response.set(desEncryptBlock(key, challenge.subarray(0, 8)), 0);
  response.set(desEncryptBlock(key, challenge.subarray(8, 16)), 8);
  return response;
}

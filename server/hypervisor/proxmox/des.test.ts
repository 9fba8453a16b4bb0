import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { desEncryptBlock, vncAuthKey, vncAuthResponse } from './des';

// DES against vectors computed elsewhere: the textbook FIPS 46 example, a VNC authentication
// answer derived once with the openssl CLI (key bits reversed by hand), and, where the local
// openssl still has DES in its legacy provider, random keys and blocks compared with it.

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const fromHex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));

/** DES-ECB of one block by the openssl CLI, or null when this openssl has no DES. */
function opensslDes(key: Uint8Array, block: Uint8Array): string | null {
  try {
    const args = ['enc', '-des-ecb', '-provider', 'legacy', '-provider', 'default'];
    const out = execFileSync('openssl', [...args, '-K', hex(key), '-nopad'], {
      input: block,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    return out.toString('hex');
  } catch {
    return null;
  }
}

const opensslHasDes = opensslDes(new Uint8Array(8), new Uint8Array(8)) !== null;

describe('DES', () => {
  it('encrypts the classic FIPS 46 example block', () => {
    const cipher = desEncryptBlock(fromHex('133457799bbcdff1'), fromHex('0123456789abcdef'));
    expect(hex(cipher)).toBe('85e813540f0ab405');
  });

  it('ignores the parity bit of each key byte', () => {
    const block = fromHex('0123456789abcdef');
    const key = fromHex('133457799bbcdff1');
    const flipped = key.map((byte) => byte ^ 1);
    expect(hex(desEncryptBlock(flipped, block))).toBe(hex(desEncryptBlock(key, block)));
  });

  it('refuses keys and blocks that are not 8 bytes', () => {
    expect(() => desEncryptBlock(new Uint8Array(7), new Uint8Array(8))).toThrow(RangeError);
    expect(() => desEncryptBlock(new Uint8Array(8), new Uint8Array(9))).toThrow(RangeError);
  });

  it.runIf(opensslHasDes)('agrees with openssl on random keys and blocks', () => {
    for (let i = 0; i < 8; i++) {
      const key = new Uint8Array(randomBytes(8));
      const block = new Uint8Array(randomBytes(8));
      expect(hex(desEncryptBlock(key, block))).toBe(opensslDes(key, block));
    }
  });
});

describe('VNC authentication', () => {
  // "PVEVNC:1234": P=0x50 -> 0x0a, V=0x56 -> 0x6a, E=0x45 -> 0xa2, N=0x4e -> 0x72,
  // C=0x43 -> 0xc2, ':'=0x3a -> 0x5c, '1'=0x31 -> 0x8c (first 8 bytes only).
  const password = 'PVEVNC:1234';
  const challenge = fromHex('000102030405060708090a0b0c0d0e0f');

  it('keys DES with the first 8 password bytes, each bit-reversed', () => {
    expect(hex(vncAuthKey(password))).toBe('0a6aa26a72c25c8c');
  });

  it('zero-pads a short password', () => {
    expect(hex(vncAuthKey('P'))).toBe('0a00000000000000');
  });

  it('answers a challenge as openssl des-ecb does with the reversed key', () => {
    // openssl enc -des-ecb -provider legacy -provider default -K 0a6aa26a72c25c8c -nopad
    expect(hex(vncAuthResponse(challenge, password))).toBe('c77c1fb3244d98a0cb195fd37347cc7f');
  });

  it.runIf(opensslHasDes)('answers random challenges as openssl does', () => {
    const random = new Uint8Array(randomBytes(16));
    const key = vncAuthKey('topoplay-ticket');
    const expected =
      (opensslDes(key, random.subarray(0, 8)) ?? '') + (opensslDes(key, random.subarray(8)) ?? '');
    expect(hex(vncAuthResponse(random, 'topoplay-ticket'))).toBe(expected);
  });

  it('refuses a challenge that is not 16 bytes', () => {
    expect(() => vncAuthResponse(new Uint8Array(8), password)).toThrow(RangeError);
  });
});

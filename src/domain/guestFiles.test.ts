import { describe, expect, it } from 'vitest';
import { byteSize, guestFileName, guestFileRefusal, MAX_GUEST_FILE_BYTES } from './guestFiles';

describe('guest file names', () => {
  it('keeps plain names as they are', () => {
    expect(guestFileName('tool-1.2_x+y.tar.gz')).toBe('tool-1.2_x+y.tar.gz');
  });

  it('turns other characters into _ so that the name is safe in a shell', () => {
    expect(guestFileName('my notes (1).txt')).toBe('my_notes_1_.txt');
    expect(guestFileName('résumé.pdf')).toBe('r_sum_.pdf');
    expect(guestFileName("a'b;rm -rf.sh")).toBe('a_b_rm_-rf.sh');
  });

  it('refuses names that leave the folder, hide, or hold control characters', () => {
    for (const name of [
      '../x',
      'a/b',
      'a\\b',
      '.',
      '..',
      '.bashrc',
      '',
      '   ',
      'a\nb',
      'a\0b',
      '()',
    ]) {
      expect(guestFileName(name), JSON.stringify(name)).toBeNull();
    }
  });

  it('cuts long names', () => {
    expect(guestFileName(`${'a'.repeat(300)}.txt`)?.length).toBe(128);
  });
});

describe('the size limit', () => {
  it('takes a file at the limit and refuses one byte more, saying the limit', () => {
    expect(guestFileRefusal(MAX_GUEST_FILE_BYTES)).toBeNull();
    expect(guestFileRefusal(MAX_GUEST_FILE_BYTES + 1)).toMatch(/larger than 1 MiB/);
  });

  it('reads sizes as people do', () => {
    expect([byteSize(512), byteSize(3 * 1024), byteSize(5 * 1024 * 1024)]).toEqual([
      '512 B',
      '3.0 KiB',
      '5.0 MiB',
    ]);
  });
});

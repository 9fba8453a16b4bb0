import { describe, expect, it } from 'vitest';
import { FONT_CHARS, GLYPH_HEIGHT, GLYPH_WIDTH, glyphOf } from './font';

const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));

describe('console font', () => {
  it('draws every printable ASCII character', () => {
    expect([...FONT_CHARS].sort()).toEqual([...printable].sort());
  });

  it('gives each glyph seven rows that fit in five columns', () => {
    for (const char of printable) {
      const glyph = glyphOf(char);
      expect(glyph, char).toHaveLength(GLYPH_HEIGHT);
      for (const row of glyph) expect(row, char).toBeLessThan(1 << GLYPH_WIDTH);
    }
  });

  it('draws no two characters alike, so a mistyped picture shows up as a duplicate', () => {
    const pictures = new Map<string, string>();
    for (const char of printable) {
      const key = glyphOf(char).join(',');
      expect(pictures.get(key), `${char} looks like ${pictures.get(key)}`).toBeUndefined();
      pictures.set(key, char);
    }
  });

  it('leaves the space blank and draws a box for characters it lacks', () => {
    expect(glyphOf(' ').every((row) => row === 0)).toBe(true);
    const box = glyphOf('\u00e9');
    expect(box[0]).toBe(0b11111);
    expect(box[3]).toBe(0b10001);
    expect(box[6]).toBe(0b11111);
  });
});

import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from './csv';

describe('csv', () => {
  it('writes plain text and numbers as they are', () => {
    expect(csvCell('Alice')).toBe('Alice');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell(0.5)).toBe('0.5');
    expect(csvCell(true)).toBe('true');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(Number.NaN)).toBe('');
  });

  it('quotes a cell with a comma, a quote or a line break and doubles its quotes', () => {
    expect(csvCell('Smith, Jo')).toBe('"Smith, Jo"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rhere')).toBe('"cr\rhere"');
  });

  it('keeps a text cell that starts like a formula as text', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvCell('+1+1')).toBe("'+1+1");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    // Only at the start: a formula character inside a name is harmless.
    expect(csvCell('a=b')).toBe('a=b');
  });

  it('joins records with CRLF, one per line, ending with one', () => {
    expect(
      toCsv([
        ['name', 'score'],
        ['a,b', 1],
        ['=x', 2],
      ]),
    ).toBe('name,score\r\n"a,b",1\r\n\'=x,2\r\n');
  });
});

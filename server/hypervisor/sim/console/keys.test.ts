import { describe, expect, it } from 'vitest';
import { charOf, KEY, pasteInputs, readKey, type ConsoleInput } from './keys';

/** Plays (keysym, down) pairs and collects what the console receives. */
function play(events: [number, boolean][]): ConsoleInput[] {
  let pressed: ReadonlySet<number> = new Set();
  const inputs: ConsoleInput[] = [];
  for (const [keysym, down] of events) {
    const read = readKey(pressed, keysym, down);
    pressed = read.pressed;
    if (read.input) inputs.push(read.input);
  }
  return inputs;
}

const tap = (keysym: number): [number, boolean][] => [
  [keysym, true],
  [keysym, false],
];

describe('console keys', () => {
  it('types printable characters on press only', () => {
    expect(play([...tap(0x61), ...tap(0x42), ...tap(0x20)])).toEqual([
      { kind: 'char', char: 'a' },
      { kind: 'char', char: 'B' },
      { kind: 'char', char: ' ' },
    ]);
  });

  it('maps Backspace, Enter and keypad keys', () => {
    expect(play([...tap(KEY.backspace), ...tap(KEY.keypadEnter), ...tap(0xffb7)])).toEqual([
      { kind: 'backspace' },
      { kind: 'enter' },
      { kind: 'char', char: '7' },
    ]);
  });

  it('reads Ctrl-Alt-Del as noVNC sends it, and Delete alone as nothing', () => {
    const ctrlAltDel: [number, boolean][] = [
      [KEY.controlLeft, true],
      [KEY.altLeft, true],
      [KEY.delete, true],
      [KEY.delete, false],
      [KEY.altLeft, false],
      [KEY.controlLeft, false],
    ];
    expect(play(ctrlAltDel)).toEqual([{ kind: 'ctrlAltDel' }]);
    expect(play(tap(KEY.delete))).toEqual([]);
  });

  it('treats Ctrl-C and Ctrl-L as interrupt and clear, and ignores other control letters', () => {
    expect(
      play([
        [KEY.controlRight, true],
        ...tap(0x63),
        ...tap(0x6c),
        ...tap(0x78),
        [KEY.controlRight, false],
      ]),
    ).toEqual([{ kind: 'interrupt' }, { kind: 'clear' }]);
  });

  it('forgets a modifier once released', () => {
    expect(play([[KEY.controlLeft, true], [KEY.controlLeft, false], ...tap(0x63)])).toEqual([
      { kind: 'char', char: 'c' },
    ]);
  });

  it('knows Latin-1 and Unicode keysyms', () => {
    expect(charOf(0xe9)).toBe('é');
    expect(charOf(0x010020ac)).toBe('€');
    expect(charOf(0xffbe)).toBeNull();
  });

  it('types pasted text, pressing Enter at line breaks', () => {
    expect(pasteInputs('ls\r\nx\ty\u0007')).toEqual([
      { kind: 'char', char: 'l' },
      { kind: 'char', char: 's' },
      { kind: 'enter' },
      { kind: 'char', char: 'x' },
      { kind: 'char', char: ' ' },
      { kind: 'char', char: 'y' },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { keystrokesOf } from './keystrokes';

const press = (keysym: number) => [
  { keysym, down: true },
  { keysym, down: false },
];
const shifted = (keysym: number) => [
  { keysym: 0xffe1, down: true },
  ...press(keysym),
  { keysym: 0xffe1, down: false },
];

describe('keystrokesOf', () => {
  it('types plain characters as one press each', () => {
    expect(keystrokesOf('a 1-')).toEqual([
      ...press(0x61),
      ...press(0x20),
      ...press(0x31),
      ...press(0x2d),
    ]);
  });

  it('holds Shift for what a US keyboard types with it', () => {
    expect(keystrokesOf('$A')).toEqual([...shifted(0x24), ...shifted(0x41)]);
  });

  it('types line breaks as Return (CRLF once) and tabs as Tab, and drops other control characters', () => {
    expect(keystrokesOf('a\r\nb\tc\u0007')).toEqual([
      ...press(0x61),
      ...press(0xff0d),
      ...press(0x62),
      ...press(0xff09),
      ...press(0x63),
    ]);
  });

  it('types characters beyond Latin-1 as Unicode keysyms', () => {
    expect(keystrokesOf('é€')).toEqual([...press(0xe9), ...press(0x010020ac)]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  charOfKeysym,
  KEY_BATCH_SIZE,
  keyBatches,
  keystrokesOf,
  retypedKeystrokes,
} from './keystrokes';

const tap = (keysym: number, code: string | null) => [
  { keysym, code, down: true },
  { keysym, code, down: false },
];
const SHIFT = { keysym: 0xffe1, code: 'ShiftLeft' };
const ALT_GR = { keysym: 0xfe03, code: 'AltRight' };
const withHeld = (modifier: typeof SHIFT, keysym: number, code: string) => [
  { ...modifier, down: true },
  ...tap(keysym, code),
  { ...modifier, down: false },
];

describe('keystrokesOf', () => {
  it('types plain characters as one press each, by the key that types them', () => {
    expect(keystrokesOf('a 1-', 'us')).toEqual([
      ...tap(0x61, 'KeyA'),
      ...tap(0x20, 'Space'),
      ...tap(0x31, 'Digit1'),
      ...tap(0x2d, 'Minus'),
    ]);
  });

  it('holds Shift and AltGr where the layout needs them', () => {
    expect(keystrokesOf('$A', 'us')).toEqual([
      ...withHeld(SHIFT, 0x24, 'Digit4'),
      ...withHeld(SHIFT, 0x41, 'KeyA'),
    ]);
    expect(keystrokesOf('@', 'de')).toEqual(withHeld(ALT_GR, 0x40, 'KeyQ'));
  });

  it('types a dead key before the letter it accents', () => {
    expect(keystrokesOf('ê', 'fr')).toEqual([...tap(0xfe52, 'BracketLeft'), ...tap(0x65, 'KeyE')]);
    expect(keystrokesOf('^', 'de')).toEqual([...tap(0xfe52, 'Backquote'), ...tap(0x20, 'Space')]);
  });

  it('types line breaks as Return (CRLF once) and tabs as Tab, and drops other control characters', () => {
    expect(keystrokesOf('a\r\nb\tc\u0007', 'us')).toEqual([
      ...tap(0x61, 'KeyA'),
      ...tap(0xff0d, 'Enter'),
      ...tap(0x62, 'KeyB'),
      ...tap(0xff09, 'Tab'),
      ...tap(0x63, 'KeyC'),
    ]);
  });

  it('sends a character the layout has no key for as its keysym alone', () => {
    expect(keystrokesOf('é€', 'us')).toEqual([...tap(0xe9, null), ...tap(0x010020ac, null)]);
  });
});

describe('retypedKeystrokes', () => {
  it('lets a key go as it is when it types the same on the machine', () => {
    expect(retypedKeystrokes('de', 0x7a, 'KeyY', [])).toBeNull();
    expect(retypedKeystrokes('us', 0x40, 'Digit2', [SHIFT])).toBeNull();
  });

  it('retypes what the user meant when the machine’s layout puts it elsewhere', () => {
    // A German keyboard's Z key on a US machine.
    expect(retypedKeystrokes('us', 0x7a, 'KeyY', [])).toEqual(tap(0x7a, 'KeyZ'));
  });

  it('lifts the Shift and AltGr the user holds around the retyped keys', () => {
    // AltGr+Q on a German keyboard, typing @ on a US machine: Shift+2 without AltGr.
    expect(retypedKeystrokes('us', 0x40, 'KeyQ', [ALT_GR])).toEqual([
      { ...ALT_GR, down: false },
      ...withHeld(SHIFT, 0x40, 'Digit2'),
      { ...ALT_GR, down: true },
    ]);
  });

  it('keeps Control held, so shortcuts reach the key that has the letter', () => {
    const control = { keysym: 0xffe3, code: 'ControlLeft' };
    expect(retypedKeystrokes('us', 0x7a, 'KeyY', [control])).toEqual(tap(0x7a, 'KeyZ'));
  });

  it('leaves keypad keys, function keys, Caps Lock’s case and unknown characters alone', () => {
    expect(retypedKeystrokes('fr', 0x31, 'Numpad1', [])).toBeNull();
    expect(retypedKeystrokes('de', 0xff0d, 'Enter', [])).toBeNull();
    expect(retypedKeystrokes('us', 0x41, 'KeyA', [])).toBeNull();
    expect(retypedKeystrokes('us', 0xe4, 'Quote', [])).toBeNull();
  });
});

describe('charOfKeysym', () => {
  it('reads Latin-1 and Unicode keysyms, not function keys', () => {
    expect(charOfKeysym(0x41)).toBe('A');
    expect(charOfKeysym(0xe4)).toBe('ä');
    expect(charOfKeysym(0x010020ac)).toBe('€');
    expect(charOfKeysym(0xff0d)).toBeNull();
  });
});

describe('keyBatches', () => {
  it('splits a long paste into batches of KEY_BATCH_SIZE, in order, losing nothing', () => {
    const strokes = keystrokesOf('x'.repeat(KEY_BATCH_SIZE), 'us');
    const batches = keyBatches(strokes);
    expect(batches).toHaveLength(2);
    expect(batches.every((batch) => batch.length <= KEY_BATCH_SIZE)).toBe(true);
    expect(batches.flat()).toEqual(strokes);
  });
});

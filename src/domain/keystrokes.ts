import { keysOf, symbolAt, type KeyboardLayout, type KeyPress } from './keyboardLayouts';

// Text typed into a machine's console as key presses. A VNC server on a real machine (QEMU's)
// hands each key to the guest as a scancode, and the guest's keymap makes the character; it does
// not put text on the guest's clipboard. So pasted text is typed as a person would type it on the
// machine's keyboard layout (keyboardLayouts.ts): each key by its physical position (`code`,
// which noVNC sends as the QEMU extended key event), Shift and AltGr held where the layout needs
// them, a dead key before an accented letter. The keysym goes along for a server without that
// event, which maps keysyms to keys through its own keymap.

export interface Keystroke {
  keysym: number;
  /** The key's KeyboardEvent.code; null when only the keysym can say what is meant. */
  code: string | null;
  down: boolean;
}

/** A modifier the console holds down, as noVNC reports it. */
export interface HeldKey {
  keysym: number;
  code: string;
}

const SHIFT: HeldKey = { keysym: 0xffe1, code: 'ShiftLeft' };
/** ISO_Level3_Shift on the right Alt key: AltGr. */
const ALT_GR: HeldKey = { keysym: 0xfe03, code: 'AltRight' };

const COMMON_KEYSYMS: Record<string, number> = { Space: 0x20, Enter: 0xff0d, Tab: 0xff09 };

/** X's dead keysyms, by the character the dead key types alone. */
const DEAD_KEYSYMS: Record<string, number> = {
  '`': 0xfe50,
  '´': 0xfe51,
  '^': 0xfe52,
  '~': 0xfe53,
  '¨': 0xfe57,
};

/** The keysym of one character: Latin-1 by its code, other characters as Unicode keysyms. */
export function keysymOf(char: string): number | null {
  if (char === '\n' || char === '\r') return 0xff0d;
  if (char === '\t') return 0xff09;
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f) return null;
  if (code <= 0xff) return code;
  return 0x01000000 + code;
}

/** The printable character a keysym stands for, or null for a function or modifier key. */
export function charOfKeysym(keysym: number): string | null {
  if ((keysym >= 0x20 && keysym <= 0x7e) || (keysym >= 0xa0 && keysym <= 0xff)) {
    return String.fromCharCode(keysym);
  }
  if (keysym >= 0x010000a0 && keysym <= 0x0110ffff)
    return String.fromCodePoint(keysym - 0x01000000);
  return null;
}

const keysymOfPress = (layout: KeyboardLayout, key: KeyPress): number => {
  const symbol = symbolAt(layout, key);
  if (symbol === null) return COMMON_KEYSYMS[key.code] ?? 0;
  if (symbol.startsWith('dead')) return DEAD_KEYSYMS[symbol.slice(4)] ?? 0;
  return keysymOf(symbol) ?? 0;
};

const tap = (keysym: number, code: string | null): Keystroke[] => [
  { keysym, code, down: true },
  { keysym, code, down: false },
];

/** The strokes of the keys that type the character on the layout, each with its modifiers. */
function strokesOfKeys(layout: KeyboardLayout, keys: readonly KeyPress[]): Keystroke[] {
  return keys.flatMap((key) => {
    const modifiers = [...(key.shift ? [SHIFT] : []), ...(key.altGr ? [ALT_GR] : [])];
    return [
      ...modifiers.map((m) => ({ ...m, down: true })),
      ...tap(keysymOfPress(layout, key), key.code),
      ...modifiers.reverse().map((m) => ({ ...m, down: false })),
    ];
  });
}

/**
 * The key presses and releases that type the text on the layout. A character the layout has no
 * key for goes as its keysym alone; control characters other than line breaks and tabs are left
 * out.
 */
export function keystrokesOf(text: string, layout: KeyboardLayout): Keystroke[] {
  // A CRLF line break is one Return.
  return [...text.replace(/\r\n?/g, '\n')].flatMap((char) => {
    const keys = keysOf(layout, char);
    if (keys) return strokesOfKeys(layout, keys);
    const keysym = keysymOf(char);
    return keysym === null ? [] : tap(keysym, null);
  });
}

const isCharacterModifier = (code: string): boolean =>
  code === 'ShiftLeft' || code === 'ShiftRight' || code === 'AltRight';

/**
 * A key the user pressed, typed on the machine's layout. noVNC sends the key by its position,
 * which types what the user meant only when the user's keyboard has the machine's layout. When it
 * would type something else (a German keyboard on a US machine: the key labelled Z is the US Y),
 * this returns the strokes that type the character the user meant instead, with the Shift and
 * AltGr the user holds released around them; null when the key can go as it is (it types the
 * same on the machine, it is not a character, or the layout has no key for it).
 */
export function retypedKeystrokes(
  layout: KeyboardLayout,
  keysym: number,
  code: string,
  held: readonly HeldKey[],
): Keystroke[] | null {
  const char = charOfKeysym(keysym);
  if (char === null || code.startsWith('Numpad')) return null;
  const codes = held.map((k) => k.code);
  const shift = codes.includes('ShiftLeft') || codes.includes('ShiftRight');
  const altGr = codes.includes('AltRight');
  // Caps Lock changes the case on the machine as it does here (noVNC keeps the two in step).
  const typed = symbolAt(layout, { code, shift, altGr });
  if (typed !== null && typed.toLowerCase() === char.toLowerCase()) return null;
  const keys = keysOf(layout, char);
  if (!keys) return null;
  const lifted = held.filter((k) => isCharacterModifier(k.code));
  return [
    ...lifted.map((k) => ({ ...k, down: false })),
    ...strokesOfKeys(layout, keys),
    ...lifted.map((k) => ({ ...k, down: true })),
  ];
}

/**
 * How many key events a console sends at once, and how long it waits before the next batch. QEMU
 * hands keys from a VNC client to the guest one every 10 ms (its `key-delay-ms`) from a queue of
 * at most 1024 entries and drops what comes beyond: a long paste sent at once loses its end.
 */
export const KEY_BATCH_SIZE = 50;
export const KEY_BATCH_INTERVAL_MS = 750;

/** The strokes in batches of KEY_BATCH_SIZE, to be sent KEY_BATCH_INTERVAL_MS apart. */
export function keyBatches(strokes: readonly Keystroke[]): Keystroke[][] {
  const batches: Keystroke[][] = [];
  for (let at = 0; at < strokes.length; at += KEY_BATCH_SIZE) {
    batches.push(strokes.slice(at, at + KEY_BATCH_SIZE));
  }
  return batches;
}

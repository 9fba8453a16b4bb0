// X11 keysyms (RFC 6143 §7.5.4) turned into what the simulated console understands. Modifier keys
// are tracked as the set of keysyms held down, since a viewer may press either Control key and
// release them in any order.

export const KEY = {
  backspace: 0xff08,
  tab: 0xff09,
  enter: 0xff0d,
  keypadEnter: 0xff8d,
  escape: 0xff1b,
  delete: 0xffff,
  keypadDelete: 0xff9f,
  controlLeft: 0xffe3,
  controlRight: 0xffe4,
  altLeft: 0xffe9,
  altRight: 0xffea,
} as const;

export type ConsoleInput =
  | { kind: 'char'; char: string }
  | { kind: 'backspace' }
  | { kind: 'enter' }
  /** Ctrl-C: abandon the line being typed. */
  | { kind: 'interrupt' }
  /** Ctrl-L. */
  | { kind: 'clear' }
  | { kind: 'ctrlAltDel' };

const CONTROLS = new Set<number>([KEY.controlLeft, KEY.controlRight]);
const ALTS = new Set<number>([KEY.altLeft, KEY.altRight]);
const MODIFIERS = new Set<number>([
  ...CONTROLS,
  ...ALTS,
  0xffe1, // Shift_L
  0xffe2, // Shift_R
  0xffe5, // Caps_Lock
  0xffe7, // Meta_L
  0xffe8, // Meta_R
  0xffeb, // Super_L
  0xffec, // Super_R
  0xfe03, // ISO_Level3_Shift (AltGr)
]);

/** Keypad keysyms that type a character. */
const KEYPAD: Record<number, string> = {
  0xffaa: '*',
  0xffab: '+',
  0xffad: '-',
  0xffae: '.',
  0xffaf: '/',
  0xffbd: '=',
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [0xffb0 + i, String(i)])),
};

const holds = (pressed: ReadonlySet<number>, keys: ReadonlySet<number>) =>
  [...keys].some((k) => pressed.has(k));

/** The character a keysym types, or null for function and modifier keys. */
export function charOf(keysym: number): string | null {
  // Latin-1 keysyms equal their code points.
  if ((keysym >= 0x20 && keysym <= 0x7e) || (keysym >= 0xa0 && keysym <= 0xff)) {
    return String.fromCharCode(keysym);
  }
  // Unicode keysyms (0x01000000 + code point), which noVNC sends for characters beyond Latin-1.
  if (keysym >= 0x01000100 && keysym <= 0x0110ffff)
    return String.fromCodePoint(keysym - 0x01000000);
  return KEYPAD[keysym] ?? null;
}

/**
 * One KeyEvent: the modifiers held afterwards and what it means for the console, if anything.
 * Only presses act; releases only update the modifiers.
 */
export function readKey(
  pressed: ReadonlySet<number>,
  keysym: number,
  down: boolean,
): { pressed: ReadonlySet<number>; input: ConsoleInput | null } {
  if (MODIFIERS.has(keysym)) {
    const next = new Set(pressed);
    if (down) next.add(keysym);
    else next.delete(keysym);
    return { pressed: next, input: null };
  }
  if (!down) return { pressed, input: null };
  const ctrl = holds(pressed, CONTROLS);
  const alt = holds(pressed, ALTS);
  const input = ((): ConsoleInput | null => {
    if (keysym === KEY.delete || keysym === KEY.keypadDelete) {
      return ctrl && alt ? { kind: 'ctrlAltDel' } : null;
    }
    if (keysym === KEY.backspace) return { kind: 'backspace' };
    if (keysym === KEY.enter || keysym === KEY.keypadEnter) return { kind: 'enter' };
    if (keysym === KEY.tab) return { kind: 'char', char: ' ' };
    const char = charOf(keysym);
    if (char === null) return null;
    if (ctrl) {
      const letter = char.toLowerCase();
      if (letter === 'c') return { kind: 'interrupt' };
      if (letter === 'l') return { kind: 'clear' };
      return null;
    }
    return { kind: 'char', char };
  })();
  return { pressed, input };
}

const ENTER: ConsoleInput = { kind: 'enter' };

/** Pasted text as console input: line breaks press Enter, other control characters are dropped. */
export function pasteInputs(text: string): ConsoleInput[] {
  const inputs: ConsoleInput[] = [];
  // Inputs are never modified, so each character's is made once: a paste may be a megabyte.
  const chars = new Map<string, ConsoleInput>();
  const typed = (char: string): ConsoleInput => {
    let input = chars.get(char);
    if (!input) chars.set(char, (input = { kind: 'char', char }));
    return input;
  };
  for (const char of text.replace(/\r\n?/g, '\n')) {
    if (char === '\n') inputs.push(ENTER);
    else if (char === '\t') inputs.push(typed(' '));
    else if (char >= ' ' && char !== '\x7f') inputs.push(typed(char));
  }
  return inputs;
}

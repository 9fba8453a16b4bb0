// Which keys type a character on a machine whose keyboard has a given layout.
//
// A console sends keys, not characters: QEMU's VNC server takes each key as a scancode (the QEMU
// extended key event, which noVNC uses whenever the server offers it) and the guest's own keymap
// decides which character that key makes. So to type "@" into a machine set to a German keyboard
// the console must press AltGr+Q, and into one set to a US keyboard Shift+2. These tables say,
// for each layout a user may choose, which key (by its KeyboardEvent.code, the physical position)
// and which of Shift and AltGr type each character, as the XKB layouts of the same name
// (xkeyboard-config: us, gb, de, fr, es, it, se) that Debian's console-setup loads on the guest.

export const KEYBOARD_LAYOUTS = ['us', 'uk', 'de', 'fr', 'es', 'it', 'nordic'] as const;
export type KeyboardLayout = (typeof KEYBOARD_LAYOUTS)[number];

export const DEFAULT_KEYBOARD_LAYOUT: KeyboardLayout = 'us';

export const KEYBOARD_LAYOUT_LABELS: Record<KeyboardLayout, string> = {
  us: 'English (US)',
  uk: 'English (UK)',
  de: 'German',
  fr: 'French',
  es: 'Spanish',
  it: 'Italian',
  nordic: 'Nordic (Swedish, Finnish)',
};

export const isKeyboardLayout = (value: unknown): value is KeyboardLayout =>
  typeof value === 'string' && (KEYBOARD_LAYOUTS as readonly string[]).includes(value);

/** One key pressed with the modifiers it needs. */
export interface KeyPress {
  code: string;
  shift: boolean;
  altGr: boolean;
}

// The keys whose character depends on the layout, by row, in the order the level strings list
// them. Backslash is the US key above Enter and the ISO key left of it; IntlBackslash is the ISO
// key right of the left Shift.
const ROWS = {
  e: 'Backquote Digit1 Digit2 Digit3 Digit4 Digit5 Digit6 Digit7 Digit8 Digit9 Digit0 Minus Equal',
  d: 'KeyQ KeyW KeyE KeyR KeyT KeyY KeyU KeyI KeyO KeyP BracketLeft BracketRight',
  c: 'KeyA KeyS KeyD KeyF KeyG KeyH KeyJ KeyK KeyL Semicolon Quote Backslash',
  b: 'IntlBackslash KeyZ KeyX KeyC KeyV KeyB KeyN KeyM Comma Period Slash',
} as const;
type Row = keyof typeof ROWS;

/**
 * A layout's keys: for each row the characters without and with Shift, space-separated in the
 * order of ROWS (`none` where the key types nothing, `dead^` for a dead key whose character,
 * typed alone, is `^`), and the characters of AltGr and Shift+AltGr by key.
 */
interface LayoutSpec {
  base: Record<Row, string>;
  shift: Record<Row, string>;
  altGr?: Record<string, string>;
  shiftAltGr?: Record<string, string>;
}

const SPECS: Record<KeyboardLayout, LayoutSpec> = {
  us: {
    base: {
      e: '` 1 2 3 4 5 6 7 8 9 0 - =',
      d: 'q w e r t y u i o p [ ]',
      c: "a s d f g h j k l ; ' \\",
      b: 'none z x c v b n m , . /',
    },
    shift: {
      e: '~ ! @ # $ % ^ & * ( ) _ +',
      d: 'Q W E R T Y U I O P { }',
      c: 'A S D F G H J K L : " |',
      b: 'none Z X C V B N M < > ?',
    },
  },
  uk: {
    base: {
      e: '` 1 2 3 4 5 6 7 8 9 0 - =',
      d: 'q w e r t y u i o p [ ]',
      c: "a s d f g h j k l ; ' #",
      b: '\\ z x c v b n m , . /',
    },
    shift: {
      e: '¬ ! " £ $ % ^ & * ( ) _ +',
      d: 'Q W E R T Y U I O P { }',
      c: 'A S D F G H J K L : @ ~',
      b: '| Z X C V B N M < > ?',
    },
    altGr: { Digit4: '€' },
  },
  de: {
    base: {
      e: 'dead^ 1 2 3 4 5 6 7 8 9 0 ß dead´',
      d: 'q w e r t z u i o p ü +',
      c: 'a s d f g h j k l ö ä #',
      b: '< y x c v b n m , . -',
    },
    shift: {
      e: '° ! " § $ % & / ( ) = ? dead`',
      d: 'Q W E R T Z U I O P Ü *',
      c: "A S D F G H J K L Ö Ä '",
      b: '> Y X C V B N M ; : _',
    },
    altGr: {
      Digit2: '²',
      Digit3: '³',
      Digit7: '{',
      Digit8: '[',
      Digit9: ']',
      Digit0: '}',
      Minus: '\\',
      KeyQ: '@',
      KeyE: '€',
      BracketRight: '~',
      IntlBackslash: '|',
      KeyM: 'µ',
    },
  },
  fr: {
    base: {
      e: '² & é " \' ( - è _ ç à ) =',
      d: 'a z e r t y u i o p dead^ $',
      c: 'q s d f g h j k l m ù *',
      b: '< w x c v b n , ; : !',
    },
    shift: {
      e: '~ 1 2 3 4 5 6 7 8 9 0 ° +',
      d: 'A Z E R T Y U I O P dead¨ £',
      c: 'Q S D F G H J K L M % µ',
      b: '> W X C V B N ? . / §',
    },
    altGr: {
      Digit3: '#',
      Digit4: '{',
      Digit5: '[',
      Digit6: '|',
      Digit7: '`',
      Digit8: '\\',
      Digit9: '^',
      Digit0: '@',
      Minus: ']',
      Equal: '}',
      KeyE: '€',
      BracketRight: '¤',
    },
  },
  es: {
    base: {
      e: "º 1 2 3 4 5 6 7 8 9 0 ' ¡",
      d: 'q w e r t y u i o p dead` +',
      c: 'a s d f g h j k l ñ dead´ ç',
      b: '< z x c v b n m , . -',
    },
    shift: {
      e: 'ª ! " · $ % & / ( ) = ? ¿',
      d: 'Q W E R T Y U I O P dead^ *',
      c: 'A S D F G H J K L Ñ dead¨ Ç',
      b: '> Z X C V B N M ; : _',
    },
    altGr: {
      Backquote: '\\',
      Digit1: '|',
      Digit2: '@',
      Digit3: '#',
      Digit4: '~',
      Digit6: '¬',
      KeyE: '€',
      BracketLeft: '[',
      BracketRight: ']',
      Quote: '{',
      Backslash: '}',
    },
  },
  it: {
    base: {
      e: "\\ 1 2 3 4 5 6 7 8 9 0 ' ì",
      d: 'q w e r t y u i o p è +',
      c: 'a s d f g h j k l ò à ù',
      b: '< z x c v b n m , . -',
    },
    shift: {
      e: '| ! " £ $ % & / ( ) = ? ^',
      d: 'Q W E R T Y U I O P é *',
      c: 'A S D F G H J K L ç ° §',
      b: '> Z X C V B N M ; : _',
    },
    altGr: {
      Digit7: '{',
      Digit8: '[',
      Digit9: ']',
      Digit0: '}',
      Minus: '`',
      Equal: '~',
      KeyE: '€',
      Semicolon: '@',
      Quote: '#',
    },
  },
  nordic: {
    base: {
      e: '§ 1 2 3 4 5 6 7 8 9 0 + dead´',
      d: 'q w e r t y u i o p å dead¨',
      c: "a s d f g h j k l ö ä '",
      b: '< z x c v b n m , . -',
    },
    shift: {
      e: '½ ! " # ¤ % & / ( ) = ? dead`',
      d: 'Q W E R T Y U I O P Å dead^',
      c: 'A S D F G H J K L Ö Ä *',
      b: '> Z X C V B N M ; : _',
    },
    altGr: {
      Digit2: '@',
      Digit3: '£',
      Digit4: '$',
      Digit5: '€',
      Digit7: '{',
      Digit8: '[',
      Digit9: ']',
      Digit0: '}',
      Minus: '\\',
      BracketRight: 'dead~',
      IntlBackslash: '|',
    },
  },
};

/** The combining mark of each dead key's accent, by the character the dead key types alone. */
const DEAD_ACCENTS: Record<string, string> = {
  '`': '\u0300',
  '´': '\u0301',
  '^': '\u0302',
  '~': '\u0303',
  '¨': '\u0308',
};

/** The letters a dead key accents, where the accented letter is one Latin-1 character. */
const ACCENTED_BASES = 'aeiouynAEIOUYN';

/** Keys that type the same character on every layout. */
const COMMON: ReadonlyArray<readonly [string, string]> = [
  [' ', 'Space'],
  ['\n', 'Enter'],
  ['\t', 'Tab'],
];

interface LayoutKeys {
  /** The keys that type each character, fewest modifiers first. */
  byChar: Map<string, KeyPress[]>;
  /** The character (or `dead…`) each key types, by `code/level`. */
  byKey: Map<string, string>;
}

const LEVELS = [
  { shift: false, altGr: false },
  { shift: true, altGr: false },
  { shift: false, altGr: true },
  { shift: true, altGr: true },
] as const;

const levelIndex = (shift: boolean, altGr: boolean): number => (shift ? 1 : 0) + (altGr ? 2 : 0);

function buildLayout(spec: LayoutSpec): LayoutKeys {
  const byKey = new Map<string, string>();
  const put = (code: string, level: number, symbol: string) => {
    if (symbol !== 'none') byKey.set(`${code}/${level}`, symbol);
  };
  for (const row of Object.keys(ROWS) as Row[]) {
    const codes = ROWS[row].split(' ');
    const base = spec.base[row].split(' ');
    const shifted = spec.shift[row].split(' ');
    codes.forEach((code, i) => {
      put(code, 0, base[i] ?? 'none');
      put(code, 1, shifted[i] ?? 'none');
    });
  }
  for (const [code, symbol] of Object.entries(spec.altGr ?? {})) put(code, 2, symbol);
  for (const [code, symbol] of Object.entries(spec.shiftAltGr ?? {})) put(code, 3, symbol);

  const byChar = new Map<string, KeyPress[]>();
  const offer = (char: string, keys: KeyPress[]) => {
    if (!byChar.has(char)) byChar.set(char, keys);
  };
  for (const [char, code] of COMMON) offer(char, [{ code, shift: false, altGr: false }]);
  // Keys without modifiers first, then with Shift, AltGr, both: a character on two keys is typed
  // with the one needing fewer modifiers.
  const entries = [...byKey].sort(([a], [b]) => Number(a.split('/')[1]) - Number(b.split('/')[1]));
  const deadKeys: Array<[accent: string, key: KeyPress]> = [];
  for (const [where, symbol] of entries) {
    const [code, level] = where.split('/') as [string, string];
    const key: KeyPress = { code, ...LEVELS[Number(level)]! };
    if (symbol.startsWith('dead')) deadKeys.push([symbol.slice(4), key]);
    else offer(symbol, [key]);
  }
  // A dead key types its own character when followed by Space, and accents the next letter.
  const space: KeyPress = { code: 'Space', shift: false, altGr: false };
  for (const [accent, key] of deadKeys) offer(accent, [key, space]);
  for (const [accent, key] of deadKeys) {
    for (const letter of ACCENTED_BASES) {
      const accented = (letter + (DEAD_ACCENTS[accent] ?? '')).normalize('NFC');
      const letterKeys = byChar.get(letter);
      if (accented.length === 1 && accented.charCodeAt(0) <= 0xff && letterKeys?.length === 1) {
        offer(accented, [key, ...letterKeys]);
      }
    }
  }
  return { byChar, byKey };
}

const LAYOUTS = Object.fromEntries(
  KEYBOARD_LAYOUTS.map((layout) => [layout, buildLayout(SPECS[layout])]),
) as Record<KeyboardLayout, LayoutKeys>;

/** The keys, in order, that type the character on the layout; null when it has none. */
export function keysOf(layout: KeyboardLayout, char: string): readonly KeyPress[] | null {
  return LAYOUTS[layout].byChar.get(char) ?? null;
}

/**
 * What the key types on the layout with those modifiers: a character, `dead` and the dead key's
 * own character, or null for a key whose character does not depend on the layout.
 */
export function symbolAt(layout: KeyboardLayout, key: KeyPress): string | null {
  return LAYOUTS[layout].byKey.get(`${key.code}/${levelIndex(key.shift, key.altGr)}`) ?? null;
}

/** Every character the layout types: its keys' characters, dead keys' and accented letters. */
export function printableCharacters(layout: KeyboardLayout): string[] {
  return [...LAYOUTS[layout].byChar.keys()].filter((char) => char >= ' ');
}

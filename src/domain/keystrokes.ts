// Text typed into a machine's console as key presses (RFB key events by X keysym). A VNC server
// on a real machine (QEMU's) turns a keysym into the scancode of its key and nothing more, and
// does not put text on the guest's clipboard: so pasted text is typed, and the characters a US
// keyboard makes with Shift are typed with Shift held, as a person would.

export interface Keystroke {
  keysym: number;
  down: boolean;
}

const SHIFT_L = 0xffe1;
const RETURN = 0xff0d;
const TAB = 0xff09;

/** Characters a US keyboard types with Shift held. */
const SHIFTED = new Set('~!@#$%^&*()_+{}|:"<>?ABCDEFGHIJKLMNOPQRSTUVWXYZ');

/** The keysym of one character: Latin-1 by its code, other characters as Unicode keysyms. */
function keysymOf(char: string): number | null {
  if (char === '\n' || char === '\r') return RETURN;
  if (char === '\t') return TAB;
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f) return null;
  if (code <= 0xff) return code;
  return 0x01000000 + code;
}

/** The key presses and releases that type the text; control characters other than line breaks and tabs are left out. */
export function keystrokesOf(text: string): Keystroke[] {
  const strokes: Keystroke[] = [];
  // A CRLF line break is one Return.
  for (const char of text.replace(/\r\n/g, '\n')) {
    const keysym = keysymOf(char);
    if (keysym === null) continue;
    const shifted = SHIFTED.has(char);
    if (shifted) strokes.push({ keysym: SHIFT_L, down: true });
    strokes.push({ keysym, down: true }, { keysym, down: false });
    if (shifted) strokes.push({ keysym: SHIFT_L, down: false });
  }
  return strokes;
}

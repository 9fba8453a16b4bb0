import { describe, expect, it } from 'vitest';
import {
  KEYBOARD_LAYOUTS,
  keysOf,
  printableCharacters,
  symbolAt,
  type KeyboardLayout,
  type KeyPress,
} from './keyboardLayouts';

const ASCII = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join('');

/** The characters engraved on each layout's keys beyond ASCII, and its accented letters. */
const OWN: Record<KeyboardLayout, string> = {
  us: '',
  uk: '£¬€',
  de: 'äöüÄÖÜß§°²³€µ´âêîôûÂÊÎÔÛáéíóúýÁÉÍÓÚÝàèìòùÀÈÌÒÙ',
  fr: 'éèçàù²°£¤§µ€¨âêîôûÂÊÎÔÛäëïöüÿÄËÏÖÜ',
  es: 'ñÑçÇºª¡¿·¬€´¨áéíóúýÁÉÍÓÚÝàèìòùÀÈÌÒÙâêîôûÂÊÎÔÛäëïöüÿÄËÏÖÜ',
  it: 'èéìòàùç°§£€',
  nordic: 'åäöÅÄÖ§½¤£€´¨áéíóúýÁÉÍÓÚÝàèìòùÀÈÌÒÙâêîôûÂÊÎÔÛäëïöüÿÄËÏÖÜãõñÃÕÑ',
};

const key = (code: string, shift = false, altGr = false): KeyPress => ({ code, shift, altGr });
const SPACE = key('Space');

/**
 * What a guest with the layout's keymap makes of the keys: each key's character at its level,
 * a dead key waiting for the next key (Space types the dead key's own character; a letter, the
 * letter with its accent).
 */
function typedOn(layout: KeyboardLayout, keys: readonly KeyPress[]): string {
  let out = '';
  let dead: string | null = null;
  for (const k of keys) {
    const symbol = k.code === 'Space' ? ' ' : symbolAt(layout, k);
    if (symbol === null) throw new Error(`no character on ${k.code}`);
    if (symbol.startsWith('dead')) {
      dead = symbol.slice(4);
      continue;
    }
    if (dead !== null) {
      const mark = { '`': '\u0300', '´': '\u0301', '^': '\u0302', '~': '\u0303', '¨': '\u0308' }[
        dead
      ];
      out += symbol === ' ' ? dead : (symbol + (mark ?? '')).normalize('NFC');
      dead = null;
    } else out += symbol;
  }
  return out;
}

describe('keyboard layouts', () => {
  it.each(KEYBOARD_LAYOUTS)('%s types every printable ASCII character and its own', (layout) => {
    for (const char of ASCII + OWN[layout]) {
      const keys = keysOf(layout, char);
      expect(keys, `${layout} ${char}`).not.toBeNull();
      expect(typedOn(layout, keys ?? []), `${layout} ${char}`).toBe(char);
    }
  });

  it.each(KEYBOARD_LAYOUTS)('%s lists exactly the characters it can type', (layout) => {
    const listed = printableCharacters(layout);
    expect(listed).toEqual(expect.arrayContaining([...ASCII, ...OWN[layout]]));
    for (const char of listed) expect(typedOn(layout, keysOf(layout, char) ?? [])).toBe(char);
  });

  it('places the keys where each layout has them', () => {
    expect(keysOf('us', '@')).toEqual([key('Digit2', true)]);
    expect(keysOf('uk', '@')).toEqual([key('Quote', true)]);
    expect(keysOf('uk', '"')).toEqual([key('Digit2', true)]);
    expect(keysOf('uk', '\\')).toEqual([key('IntlBackslash')]);
    expect(keysOf('de', 'z')).toEqual([key('KeyY')]);
    expect(keysOf('de', '@')).toEqual([key('KeyQ', false, true)]);
    expect(keysOf('de', '~')).toEqual([key('BracketRight', false, true)]);
    expect(keysOf('fr', 'a')).toEqual([key('KeyQ')]);
    expect(keysOf('fr', 'm')).toEqual([key('Semicolon')]);
    expect(keysOf('fr', '1')).toEqual([key('Digit1', true)]);
    expect(keysOf('es', 'ñ')).toEqual([key('Semicolon')]);
    expect(keysOf('es', '@')).toEqual([key('Digit2', false, true)]);
    expect(keysOf('it', '@')).toEqual([key('Semicolon', false, true)]);
    expect(keysOf('nordic', '@')).toEqual([key('Digit2', false, true)]);
    expect(keysOf('nordic', '$')).toEqual([key('Digit4', false, true)]);
  });

  it('types a dead key and Space for the dead key’s own character', () => {
    expect(keysOf('de', '^')).toEqual([key('Backquote'), SPACE]);
    expect(keysOf('de', '`')).toEqual([key('Equal', true), SPACE]);
    expect(keysOf('es', '^')).toEqual([key('BracketLeft', true), SPACE]);
    expect(keysOf('nordic', '~')).toEqual([key('BracketRight', false, true), SPACE]);
  });

  it('types an accented letter as its dead key and the letter, unless a key has it', () => {
    expect(keysOf('fr', 'ê')).toEqual([key('BracketLeft'), key('KeyE')]);
    expect(keysOf('es', 'É')).toEqual([key('Quote'), key('KeyE', true)]);
    expect(keysOf('fr', 'é')).toEqual([key('Digit2')]);
  });

  it('prefers the key that needs fewer modifiers', () => {
    // French types a tilde with Shift on the ² key rather than AltGr on é.
    expect(keysOf('fr', '~')).toEqual([key('Backquote', true)]);
    // Italian types { with AltGr on 7 rather than Shift+AltGr on è.
    expect(keysOf('it', '{')).toEqual([key('Digit7', false, true)]);
  });

  it('has no key for a character the layout lacks', () => {
    expect(keysOf('us', 'ä')).toBeNull();
    expect(keysOf('de', '€')).not.toBeNull();
    expect(keysOf('it', '€')).not.toBeNull();
    expect(keysOf('us', '€')).toBeNull();
  });
});

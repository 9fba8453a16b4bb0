import { describe, expect, it } from 'vitest';
import {
  COLORS,
  CONSOLE_COLUMNS,
  CONSOLE_ROWS,
  renderScreen,
  SCREEN_HEIGHT,
  SCREEN_WIDTH,
  visibleRows,
  wrapLine,
  type ScreenModel,
} from './screen';
import { newTerminal, printLines } from './terminal';

const model = (over: Partial<ScreenModel> = {}): ScreenModel => ({
  name: 'kali',
  state: 'running',
  running: true,
  terminal: newTerminal('kali'),
  ...over,
});

const count = (pixels: Uint32Array, color: number, from = 0, to = pixels.length) =>
  pixels.subarray(from, to).filter((p) => p === color).length;

describe('simulated screen', () => {
  it('wraps long lines, marking how much of each row is prompt', () => {
    expect(wrapLine('$ ', 'abcdef', 4)).toEqual([
      { text: '$ ab', promptChars: 2 },
      { text: 'cdef', promptChars: 0 },
    ]);
    expect(wrapLine('', '', 4)).toEqual([{ text: '', promptChars: 0 }]);
  });

  it('keeps the prompt line at the bottom and scrolls older lines off when full', () => {
    const lines = Array.from({ length: CONSOLE_ROWS + 5 }, (_, i) => `line ${i}`);
    const rows = visibleRows(model({ terminal: printLines(newTerminal('kali'), lines) }));
    expect(rows).toHaveLength(CONSOLE_ROWS);
    expect(rows.at(-1)?.text).toBe('kali:~$ ');
    expect(rows.at(-2)?.text).toBe(`line ${CONSOLE_ROWS + 4}`);
  });

  it('shows no prompt once the machine is off', () => {
    const rows = visibleRows(model({ running: false, state: 'stopped' }));
    expect(rows.some((r) => r.text.includes(':~$'))).toBe(false);
  });

  it('draws an 800×480 screen with a title bar, its name and state in colour', () => {
    const fb = renderScreen(model());
    expect([fb.width, fb.height]).toEqual([SCREEN_WIDTH, SCREEN_HEIGHT]);
    const titleBar = 30 * SCREEN_WIDTH;
    expect(count(fb.pixels, COLORS.titleText, 0, titleBar)).toBeGreaterThan(20);
    expect(count(fb.pixels, COLORS.running, 0, titleBar)).toBeGreaterThan(20);
    const stopped = renderScreen(model({ running: false, state: 'stopped' }));
    expect(count(stopped.pixels, COLORS.stopped, 0, titleBar)).toBeGreaterThan(20);
    expect(count(stopped.pixels, COLORS.running, 0, titleBar)).toBe(0);
  });

  it('draws typed text and a cursor that moves with it', () => {
    const before = renderScreen(model());
    const typed = renderScreen(model({ terminal: { ...newTerminal('kali'), input: 'ls' } }));
    expect(count(typed.pixels, COLORS.text)).toBeGreaterThan(count(before.pixels, COLORS.text));
    expect(CONSOLE_COLUMNS).toBeGreaterThan(40);
  });
});

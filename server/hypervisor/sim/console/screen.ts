import { GLYPH_HEIGHT } from './font';
import { createFramebuffer, drawText, fillRect, type Framebuffer } from './framebuffer';
import type { Terminal } from './terminal';

// The simulated machine's screen: a title bar with the machine name and its power state above a
// text console. Rendering is a pure function of the terminal and the state, so every client of a
// machine sees the same pixels and updates are found by comparing screens.

export const SCREEN_WIDTH = 800;
export const SCREEN_HEIGHT = 480;

/** Font pixels are drawn 2×2; cells leave a column and two rows of space between glyphs. */
const SCALE = 2;
const CELL_WIDTH = 12;
const CELL_HEIGHT = 18;
const TITLE_HEIGHT = 30;
const MARGIN = 8;

export const CONSOLE_COLUMNS = Math.floor((SCREEN_WIDTH - 2 * MARGIN) / CELL_WIDTH);
export const CONSOLE_ROWS = Math.floor((SCREEN_HEIGHT - TITLE_HEIGHT - 2 * MARGIN) / CELL_HEIGHT);

export const COLORS = {
  title: 0x1d3557,
  titleText: 0xffffff,
  running: 0x7ee081,
  stopped: 0xff8a80,
  background: 0x0d1117,
  text: 0xd0d7de,
  prompt: 0x7ee081,
  cursor: 0xd0d7de,
} as const;

export interface ScreenModel {
  /** The machine name without its tag. */
  name: string;
  /** What the title bar says about the machine: 'running', 'stopped', ... */
  state: string;
  running: boolean;
  terminal: Terminal;
}

/** A console row: its characters and how many of the first ones belong to the prompt. */
interface Row {
  text: string;
  promptChars: number;
}

/** Splits a prompt and text into rows of the console's width (an empty line is one row). */
export function wrapLine(prompt: string, text: string, columns = CONSOLE_COLUMNS): Row[] {
  const chars = [...prompt, ...text];
  const promptLength = [...prompt].length;
  const rows: Row[] = [];
  for (let start = 0; start === 0 || start < chars.length; start += columns) {
    rows.push({
      text: chars.slice(start, start + columns).join(''),
      promptChars: Math.max(0, Math.min(columns, promptLength - start)),
    });
  }
  return rows;
}

/** The rows on screen: the last ones that fit, the typed line (and its cursor) at the bottom. */
export function visibleRows(model: ScreenModel): Row[] {
  const t = model.terminal;
  const rows = t.lines.flatMap((line) => wrapLine(line.prompt, line.text));
  if (model.running) rows.push(...wrapLine(t.prompt, t.input));
  return rows.slice(-CONSOLE_ROWS);
}

const glyphTop = (row: number) =>
  TITLE_HEIGHT + MARGIN + row * CELL_HEIGHT + (CELL_HEIGHT - GLYPH_HEIGHT * SCALE) / 2;

export function renderScreen(model: ScreenModel): Framebuffer {
  const fb = createFramebuffer(SCREEN_WIDTH, SCREEN_HEIGHT, COLORS.background);
  const text = { scale: SCALE, advance: CELL_WIDTH };

  fillRect(fb, { x: 0, y: 0, width: SCREEN_WIDTH, height: TITLE_HEIGHT }, COLORS.title);
  const titleTop = (TITLE_HEIGHT - GLYPH_HEIGHT * SCALE) / 2;
  drawText(fb, MARGIN, titleTop, model.name, COLORS.titleText, text);
  const stateLeft = SCREEN_WIDTH - MARGIN - [...model.state].length * CELL_WIDTH;
  const stateColor = model.running ? COLORS.running : COLORS.stopped;
  drawText(fb, stateLeft, titleTop, model.state, stateColor, text);

  const rows = visibleRows(model);
  rows.forEach((row, i) => {
    const chars = [...row.text];
    const prompt = chars.slice(0, row.promptChars).join('');
    const rest = chars.slice(row.promptChars).join('');
    drawText(fb, MARGIN, glyphTop(i), prompt, COLORS.prompt, text);
    drawText(fb, MARGIN + row.promptChars * CELL_WIDTH, glyphTop(i), rest, COLORS.text, text);
  });

  if (model.running) {
    // A block cursor after the typed text, wrapping to the next row at the right edge.
    const last = rows[rows.length - 1];
    const used = last ? [...last.text].length : 0;
    const atEdge = used >= CONSOLE_COLUMNS;
    const row = Math.min(rows.length - (atEdge ? 0 : 1), CONSOLE_ROWS - 1);
    const column = atEdge ? 0 : used;
    fillRect(
      fb,
      {
        x: MARGIN + column * CELL_WIDTH,
        y: glyphTop(row),
        width: CELL_WIDTH - 2,
        height: GLYPH_HEIGHT * SCALE,
      },
      COLORS.cursor,
    );
  }
  return fb;
}

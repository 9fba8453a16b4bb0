import { GLYPH_HEIGHT, GLYPH_WIDTH, glyphOf } from './font';

// The simulated screen as plain data: one 0xRRGGBB number per pixel. Drawing functions write into
// a buffer the caller owns; `changedRects` compares what a client last received with the current
// screen so updates carry only what changed.

export interface Framebuffer {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint32Array;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function createFramebuffer(width: number, height: number, color = 0): Framebuffer {
  return { width, height, pixels: new Uint32Array(width * height).fill(color) };
}

/** The part of a rectangle that lies on the screen (width or height 0 when none does). */
export function clip(fb: Framebuffer, rect: Rect): Rect {
  const x = Math.max(0, Math.min(rect.x, fb.width));
  const y = Math.max(0, Math.min(rect.y, fb.height));
  const right = Math.max(x, Math.min(rect.x + rect.width, fb.width));
  const bottom = Math.max(y, Math.min(rect.y + rect.height, fb.height));
  return { x, y, width: right - x, height: bottom - y };
}

export function fillRect(fb: Framebuffer, rect: Rect, color: number): void {
  const r = clip(fb, rect);
  for (let y = r.y; y < r.y + r.height; y++) {
    const row = y * fb.width;
    fb.pixels.fill(color, row + r.x, row + r.x + r.width);
  }
}

/** Draws text from its top-left corner, each font pixel as a scale×scale square. */
export function drawText(
  fb: Framebuffer,
  x: number,
  y: number,
  text: string,
  color: number,
  options: { scale: number; advance: number },
): void {
  let left = x;
  for (const char of text) {
    const glyph = glyphOf(char);
    for (let row = 0; row < GLYPH_HEIGHT; row++) {
      const bits = glyph[row] ?? 0;
      for (let col = 0; col < GLYPH_WIDTH; col++) {
        if (bits & (1 << (GLYPH_WIDTH - 1 - col))) {
          fillRect(
            fb,
            {
              x: left + col * options.scale,
              y: y + row * options.scale,
              width: options.scale,
              height: options.scale,
            },
            color,
          );
        }
      }
    }
    left += options.advance;
  }
}

/**
 * The rectangles, within `area`, where `seen` differs from the screen: consecutive changed rows
 * form one band spanning the leftmost to rightmost changed column. Rows that did not change split
 * bands, so typing one character yields one glyph-sized rectangle.
 */
export function changedRects(seen: Uint32Array, fb: Framebuffer, area: Rect): Rect[] {
  const a = clip(fb, area);
  const rects: Rect[] = [];
  let band: { top: number; left: number; right: number } | null = null;
  const closeBand = (bottom: number) => {
    if (band)
      rects.push({
        x: band.left,
        y: band.top,
        width: band.right - band.left + 1,
        height: bottom - band.top,
      });
    band = null;
  };
  for (let y = a.y; y < a.y + a.height; y++) {
    const row = y * fb.width;
    let left = -1;
    let right = -1;
    for (let x = a.x; x < a.x + a.width; x++) {
      if (seen[row + x] !== fb.pixels[row + x]) {
        if (left < 0) left = x;
        right = x;
      }
    }
    if (left < 0) {
      closeBand(y);
    } else if (band) {
      const open: { top: number; left: number; right: number } = band;
      open.left = Math.min(open.left, left);
      open.right = Math.max(open.right, right);
    } else {
      band = { top: y, left, right };
    }
  }
  closeBand(a.y + a.height);
  return rects;
}

/** Copies a rectangle of the screen into `seen` (a client's view of it). */
export function copyRect(fb: Framebuffer, seen: Uint32Array, rect: Rect): void {
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const start = y * fb.width + rect.x;
    seen.set(fb.pixels.subarray(start, start + rect.width), start);
  }
}

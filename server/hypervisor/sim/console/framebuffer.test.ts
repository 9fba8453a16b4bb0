import { describe, expect, it } from 'vitest';
import { changedRects, clip, copyRect, createFramebuffer, drawText, fillRect } from './framebuffer';

const whole = (w: number, h: number) => ({ x: 0, y: 0, width: w, height: h });

describe('framebuffer', () => {
  it('clips rectangles to the screen', () => {
    const fb = createFramebuffer(10, 8);
    expect(clip(fb, { x: -2, y: 6, width: 5, height: 5 })).toEqual({
      x: 0,
      y: 6,
      width: 3,
      height: 2,
    });
    expect(clip(fb, { x: 12, y: 0, width: 4, height: 4 }).width).toBe(0);
  });

  it('fills only inside the rectangle', () => {
    const fb = createFramebuffer(4, 3, 0x111111);
    fillRect(fb, { x: 1, y: 1, width: 2, height: 5 }, 0xff0000);
    expect([...fb.pixels]).toEqual([
      0x111111, 0x111111, 0x111111, 0x111111, 0x111111, 0xff0000, 0xff0000, 0x111111, 0x111111,
      0xff0000, 0xff0000, 0x111111,
    ]);
  });

  it('draws glyph pixels scaled, advancing per character', () => {
    const fb = createFramebuffer(24, 14);
    drawText(fb, 0, 0, '|', 0xffffff, { scale: 2, advance: 12 });
    // '|' is the middle column of every row: x 4..5 at scale 2.
    for (let y = 0; y < 14; y++) {
      expect(fb.pixels[y * 24 + 4]).toBe(0xffffff);
      expect(fb.pixels[y * 24 + 5]).toBe(0xffffff);
      expect(fb.pixels[y * 24 + 3]).toBe(0);
    }
    drawText(fb, 0, 0, ' |', 0x00ff00, { scale: 2, advance: 12 });
    expect(fb.pixels[12 + 4]).toBe(0x00ff00);
  });

  it('reports nothing when the viewer has seen the whole screen', () => {
    const fb = createFramebuffer(16, 16, 7);
    expect(changedRects(fb.pixels.slice(), fb, whole(16, 16))).toEqual([]);
  });

  it('reports one tight rectangle per band of changed rows', () => {
    const fb = createFramebuffer(20, 20);
    const seen = fb.pixels.slice();
    fillRect(fb, { x: 3, y: 2, width: 2, height: 3 }, 1);
    fillRect(fb, { x: 8, y: 4, width: 1, height: 1 }, 1);
    fillRect(fb, { x: 10, y: 12, width: 5, height: 2 }, 1);
    expect(changedRects(seen, fb, whole(20, 20))).toEqual([
      { x: 3, y: 2, width: 6, height: 3 },
      { x: 10, y: 12, width: 5, height: 2 },
    ]);
  });

  it('looks only inside the requested area', () => {
    const fb = createFramebuffer(10, 10);
    const seen = fb.pixels.slice();
    fillRect(fb, whole(10, 10), 5);
    expect(changedRects(seen, fb, { x: 2, y: 3, width: 4, height: 2 })).toEqual([
      { x: 2, y: 3, width: 4, height: 2 },
    ]);
  });

  it('records what was sent so the same change is not reported twice', () => {
    const fb = createFramebuffer(10, 10);
    const seen = fb.pixels.slice();
    fillRect(fb, { x: 1, y: 1, width: 3, height: 3 }, 9);
    for (const rect of changedRects(seen, fb, whole(10, 10))) copyRect(fb, seen, rect);
    expect(changedRects(seen, fb, whole(10, 10))).toEqual([]);
  });
});

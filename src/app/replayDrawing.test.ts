import type RFB from '@novnc/novnc';
import { describe, expect, it } from 'vitest';
import { drawAsOne } from './replayDrawing';

/** A client whose display logs its copies to the visible canvas, as noVNC 1.7's does them. */
function clientWithDisplay() {
  const copies: string[] = [];
  class Display {
    flip(fromQueue?: boolean) {
      copies.push(fromQueue ? 'queued' : 'now');
    }
  }
  const display = new Display();
  return { client: { _display: display } as unknown as RFB, display, copies };
}

describe('drawAsOne', () => {
  it('copies to the visible canvas once after a run of updates, and as before afterwards', () => {
    const { client, display, copies } = clientWithDisplay();
    drawAsOne(client, () => {
      display.flip();
      display.flip();
      display.flip();
    });
    expect(copies).toEqual(['now']);
    display.flip();
    expect(copies).toEqual(['now', 'now']);
    expect(Object.hasOwn(display, 'flip')).toBe(false);
  });

  it("lets the render queue's own copies through while it holds the others", () => {
    const { client, display, copies } = clientWithDisplay();
    drawAsOne(client, () => {
      display.flip();
      display.flip(true);
    });
    expect(copies).toEqual(['queued', 'now']);
  });

  it('copies and restores the display when the run throws', () => {
    const { client, display, copies } = clientWithDisplay();
    expect(() =>
      drawAsOne(client, () => {
        display.flip();
        throw new Error('garbled');
      }),
    ).toThrow('garbled');
    expect(copies).toEqual(['now']);
    display.flip();
    expect(copies).toEqual(['now', 'now']);
  });

  it('draws as usual with a client whose display it does not know', () => {
    let drawn = 0;
    drawAsOne({} as RFB, () => drawn++);
    expect(drawn).toBe(1);
  });
});

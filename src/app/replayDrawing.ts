import type RFB from '@novnc/novnc';

// noVNC draws each framebuffer update into a back buffer, then copies the changed part onto the
// visible canvas (core/display.js `flip`). Fed a run of records at once, the copy after each
// update costs more than the update itself: the copy takes a snapshot of the back buffer, and the
// next update's putImageData must then copy the whole back buffer before writing into it (about
// 1 ms an update for an 800x480 screen, most of a seek's time). Within a run, the copies can wait
// until its end: the back buffer receives every update as before, noVNC keeps the union of the
// changed areas, and one copy of that union leaves the visible canvas exactly as the copies one
// by one would have.

/** The part of noVNC 1.7's display that the deferral touches (not its public API). */
interface FlippingDisplay {
  flip(fromQueue?: boolean): void;
}

const displayOf = (client: RFB): FlippingDisplay | null => {
  const display = (client as unknown as { _display?: Partial<FlippingDisplay> })._display;
  return typeof display?.flip === 'function' ? (display as FlippingDisplay) : null;
};

/**
 * Runs `draw` (which feeds `client` synchronously) with noVNC's copies to the visible canvas held
 * back, then copies once. Copies that noVNC's render queue makes later (an image still decoding)
 * go on as usual. A noVNC without the expected display draws as it always did.
 */
export function drawAsOne(client: RFB, draw: () => void): void {
  const display = displayOf(client);
  if (!display) {
    draw();
    return;
  }
  const own = Object.prototype.hasOwnProperty.call(display, 'flip');
  const { flip } = display;
  // The render queue's own copies (fromQueue) come after the images they wait for: they go on.
  display.flip = (fromQueue?: boolean) => {
    if (fromQueue) flip.call(display, true);
  };
  try {
    draw();
  } finally {
    if (own) display.flip = flip;
    else delete (display as Partial<FlippingDisplay>).flip;
    display.flip();
  }
}

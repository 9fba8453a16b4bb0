// A console screen shrunk as it arrives: each thumbnail pixel is the screen pixel at the centre
// of the area it stands for (nearest sample), so a thumbnail is exact whichever rectangles the
// screen arrives in, and a capture keeps only the thumbnail, never the screen.

/** The largest thumbnail: the wall's tiles are at most this size. */
export const THUMBNAIL_MAX_WIDTH = 320;
export const THUMBNAIL_MAX_HEIGHT = 240;

export interface Thumbnail {
  readonly width: number;
  readonly height: number;
  /** RGB bytes, row by row. */
  readonly rgb: Uint8Array;
}

/** The thumbnail size of a screen: the aspect kept, never larger than the screen. */
export function thumbnailSize(
  width: number,
  height: number,
  maxWidth = THUMBNAIL_MAX_WIDTH,
  maxHeight = THUMBNAIL_MAX_HEIGHT,
): { width: number; height: number } {
  const scale = Math.min(1, maxWidth / width, maxHeight / height);
  return {
    width: Math.max(1, Math.min(width, Math.round(width * scale))),
    height: Math.max(1, Math.min(height, Math.round(height * scale))),
  };
}

/** The screen coordinate a thumbnail coordinate samples: the centre of its span. */
export const sampleOf = (t: number, screen: number, thumbnail: number): number =>
  Math.floor(((t + 0.5) * screen) / thumbnail);

/** For each screen coordinate, the thumbnail coordinate that samples it, or -1. */
function samples(screen: number, thumbnail: number): Int32Array {
  const of = new Int32Array(screen).fill(-1);
  for (let t = 0; t < thumbnail; t++) of[sampleOf(t, screen, thumbnail)] = t;
  return of;
}

export interface Scaler {
  readonly thumbnail: Thumbnail;
  /**
   * Screen pixels of one row from (x, y) on, as 32-bit little-endian 0x00RRGGBB values in
   * `bytes` (whole pixels). Returns whether a thumbnail pixel changed.
   */
  row(x: number, y: number, bytes: Uint8Array): boolean;
}

export function createScaler(
  screenWidth: number,
  screenHeight: number,
  maxWidth = THUMBNAIL_MAX_WIDTH,
  maxHeight = THUMBNAIL_MAX_HEIGHT,
): Scaler {
  const { width, height } = thumbnailSize(screenWidth, screenHeight, maxWidth, maxHeight);
  const columns = samples(screenWidth, width);
  const rows = samples(screenHeight, height);
  const rgb = new Uint8Array(width * height * 3);
  return {
    thumbnail: { width, height, rgb },
    row(x, y, bytes) {
      const ty = y < screenHeight ? rows[y]! : -1;
      if (ty < 0) return false;
      let changed = false;
      const count = Math.min(bytes.length >> 2, screenWidth - x);
      for (let i = 0; i < count; i++) {
        const tx = columns[x + i]!;
        if (tx < 0) continue;
        const at = i << 2;
        const out = (ty * width + tx) * 3;
        // Little endian 0x00RRGGBB: blue first.
        const r = bytes[at + 2]!;
        const g = bytes[at + 1]!;
        const b = bytes[at]!;
        if (rgb[out] !== r || rgb[out + 1] !== g || rgb[out + 2] !== b) {
          rgb[out] = r;
          rgb[out + 1] = g;
          rgb[out + 2] = b;
          changed = true;
        }
      }
      return changed;
    },
  };
}

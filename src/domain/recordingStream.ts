// A console recording's stream (src/api/recordings.ts): records of `u32 BE offset in ms since the
// session began | u8 channel | u32 BE length | bytes`. Read incrementally, as the stream's chunks
// arrive, so that a long recording is never held twice; both the SPA's player and tests read it.

/** Bytes before a record's content: offset (4), channel (1), length (4). */
export const RECORD_HEADER_BYTES = 9;

/** The screen: the RFB bytes as the viewer received them (src/api/recordings.ts). */
export const SCREEN_CHANNEL = 0;

/**
 * No record of a console session is this large (a full 4K frame, uncompressed, is 33 MB): a longer
 * one means the bytes are not a recording, and reading on would only wait for bytes never coming.
 */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** A record of the screen channel: what the viewer received `offsetMs` after the session began. */
export interface ScreenRecord {
  offsetMs: number;
  bytes: Uint8Array;
}

/** Where the reading stands between chunks: bytes of a record not yet complete, and counts. */
export interface RecordReader {
  /** The start of a record whose bytes have not all arrived. */
  pending: Uint8Array;
  /** The offset of the last record read: offsets never go back. */
  lastOffsetMs: number;
  /** Records read so far, of any channel. */
  records: number;
  /** Records of channels this reader does not know, skipped. */
  skipped: number;
}

export type ReadResult =
  { ok: true; reader: RecordReader; screen: ScreenRecord[] } | { ok: false; error: string };

export const emptyReader = (): RecordReader => ({
  pending: new Uint8Array(0),
  lastOffsetMs: 0,
  records: 0,
  skipped: 0,
});

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
};

/**
 * Reads the records that `chunk` completes; the screen's are returned (their bytes are views of
 * the chunk, not copies), other channels' are skipped. A record longer than any recording holds
 * or an offset that goes back in time means the bytes are garbled: the stream is rejected.
 */
export function readRecords(reader: RecordReader, chunk: Uint8Array): ReadResult {
  const bytes = concat(reader.pending, chunk);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const screen: ScreenRecord[] = [];
  let { lastOffsetMs, records, skipped } = reader;
  let at = 0;
  while (bytes.length - at >= RECORD_HEADER_BYTES) {
    const offsetMs = view.getUint32(at);
    const channel = view.getUint8(at + 4);
    const length = view.getUint32(at + 5);
    if (length > MAX_RECORD_BYTES) {
      return {
        ok: false,
        error: `The recording is garbled: record ${records + 1} claims ${length} bytes.`,
      };
    }
    if (offsetMs < lastOffsetMs) {
      return {
        ok: false,
        error: `The recording is garbled: record ${records + 1} goes back in time (${offsetMs} ms after ${lastOffsetMs} ms).`,
      };
    }
    const end = at + RECORD_HEADER_BYTES + length;
    if (end > bytes.length) break;
    if (channel === SCREEN_CHANNEL) {
      screen.push({ offsetMs, bytes: bytes.subarray(at + RECORD_HEADER_BYTES, end) });
    } else {
      skipped++;
    }
    lastOffsetMs = offsetMs;
    records++;
    at = end;
  }
  return {
    ok: true,
    // The rest is copied, so that a held-back tail does not keep the whole chunk alive.
    reader: { pending: bytes.slice(at), lastOffsetMs, records, skipped },
    screen,
  };
}

/** The stream has ended: an incomplete record left over means it was cut short. */
export function finishRecords(reader: RecordReader): { ok: true } | { ok: false; error: string } {
  if (reader.pending.length === 0) return { ok: true };
  const expected =
    reader.pending.length >= RECORD_HEADER_BYTES
      ? RECORD_HEADER_BYTES +
        new DataView(reader.pending.buffer, reader.pending.byteOffset).getUint32(5)
      : RECORD_HEADER_BYTES;
  return {
    ok: false,
    error: `The recording is cut short: its last record has ${reader.pending.length} of ${expected} bytes.`,
  };
}

/** One record as the stream holds it (tests and fixtures write recordings with it). */
export function encodeRecord(offsetMs: number, channel: number, bytes: Uint8Array): Uint8Array {
  const record = new Uint8Array(RECORD_HEADER_BYTES + bytes.length);
  const view = new DataView(record.buffer);
  view.setUint32(0, offsetMs);
  view.setUint8(4, channel);
  view.setUint32(5, bytes.length);
  record.set(bytes, RECORD_HEADER_BYTES);
  return record;
}

/** How many of `records` (in time order) were received at or before `offsetMs`. */
export function recordsUpTo(records: readonly ScreenRecord[], offsetMs: number): number {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((records[middle]?.offsetMs ?? Infinity) <= offsetMs) low = middle + 1;
    else high = middle;
  }
  return low;
}

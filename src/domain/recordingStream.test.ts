import { describe, expect, it } from 'vitest';
import {
  emptyReader,
  encodeRecord,
  finishRecords,
  MAX_RECORD_BYTES,
  readRecords,
  recordsUpTo,
  SCREEN_CHANNEL,
  type ReadResult,
  type ScreenRecord,
} from './recordingStream';

const bytesOf = (...values: number[]) => Uint8Array.from(values);

const join = (...parts: Uint8Array[]) => {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
};

/** Reads `stream` cut into `chunks` pieces at the given positions; the screen records or the error. */
function readAll(stream: Uint8Array, cuts: number[] = []) {
  let reader = emptyReader();
  const screen: ScreenRecord[] = [];
  const bounds = [0, ...cuts, stream.length];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const result: ReadResult = readRecords(reader, stream.slice(bounds[i], bounds[i + 1]));
    if (!result.ok) return { error: result.error };
    reader = result.reader;
    screen.push(...result.screen);
  }
  const end = finishRecords(reader);
  if (!end.ok) return { error: end.error };
  return {
    reader,
    screen: screen.map((r) => ({ offsetMs: r.offsetMs, bytes: [...r.bytes] })),
  };
}

const stream = join(
  encodeRecord(0, SCREEN_CHANNEL, bytesOf(...new TextEncoder().encode('RFB 003.008\n'))),
  encodeRecord(5, 7, bytesOf(1, 2, 3)),
  encodeRecord(5, SCREEN_CHANNEL, bytesOf()),
  encodeRecord(1_000, SCREEN_CHANNEL, bytesOf(9, 8, 7, 6)),
  encodeRecord(0xffff_fff0, SCREEN_CHANNEL, bytesOf(42)),
);

const expected = [
  { offsetMs: 0, bytes: [...new TextEncoder().encode('RFB 003.008\n')] },
  { offsetMs: 5, bytes: [] },
  { offsetMs: 1_000, bytes: [9, 8, 7, 6] },
  { offsetMs: 0xffff_fff0, bytes: [42] },
];

describe('recording stream', () => {
  it('reads the screen records in order with their offsets, skipping unknown channels', () => {
    const result = readAll(stream);
    expect(result.screen).toEqual(expected);
    expect(result.reader).toMatchObject({ records: 5, skipped: 1, lastOffsetMs: 0xffff_fff0 });
  });

  it('reads the same records whichever way the stream is cut into chunks', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      expect(readAll(stream, [cut]).screen, `cut at ${cut}`).toEqual(expected);
    }
    const everyByte = Array.from({ length: stream.length - 1 }, (_, i) => i + 1);
    expect(readAll(stream, everyByte).screen).toEqual(expected);
  });

  it('an empty stream is an empty recording', () => {
    expect(readAll(new Uint8Array(0)).screen).toEqual([]);
  });

  it('rejects a stream cut inside a record, saying how much of it arrived', () => {
    expect(readAll(stream.slice(0, stream.length - 1)).error).toBe(
      'The recording is cut short: its last record has 9 of 10 bytes.',
    );
    expect(readAll(stream.slice(0, 4)).error).toBe(
      'The recording is cut short: its last record has 4 of 9 bytes.',
    );
  });

  it('rejects a record longer than any recording holds', () => {
    const garbled = join(
      encodeRecord(0, 0, bytesOf(1)),
      bytesOf(0, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff),
    );
    expect(MAX_RECORD_BYTES).toBeLessThan(0xffff_ffff);
    expect(readAll(garbled).error).toBe(
      `The recording is garbled: record 2 claims ${0xffff_ffff} bytes.`,
    );
  });

  it('rejects offsets that go back in time', () => {
    const garbled = join(encodeRecord(50, 0, bytesOf(1)), encodeRecord(40, 0, bytesOf(2)));
    expect(readAll(garbled).error).toBe(
      'The recording is garbled: record 2 goes back in time (40 ms after 50 ms).',
    );
  });

  it('counts the records received at or before a time', () => {
    const records = expected.map((r) => ({
      offsetMs: r.offsetMs,
      bytes: Uint8Array.from(r.bytes),
    }));
    expect(recordsUpTo(records, -1)).toBe(0);
    expect(recordsUpTo(records, 0)).toBe(1);
    expect(recordsUpTo(records, 4)).toBe(1);
    expect(recordsUpTo(records, 5)).toBe(2);
    expect(recordsUpTo(records, 999)).toBe(2);
    expect(recordsUpTo(records, 1_000)).toBe(3);
    expect(recordsUpTo(records, 0xffff_ffff)).toBe(4);
    expect(recordsUpTo([], 10)).toBe(0);
  });
});

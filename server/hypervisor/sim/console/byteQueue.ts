// Bytes received from a viewer, kept as the chunks they arrived in. Appending never copies; a
// message is copied out once, when it is complete. Concatenating everything pending on every
// WebSocket frame instead makes a message that arrives in many small frames cost time quadratic
// in its size (a 1 MiB paste in 1-byte frames would copy half a terabyte).

export interface ByteQueue {
  /** Bytes held. */
  readonly length: number;
  push(chunk: Buffer): void;
  /** The first `n` bytes (at most `length`) without removing them. */
  peek(n: number): Buffer;
  /** Removes the first `n` bytes (at most `length`) and returns them. */
  take(n: number): Buffer;
}

export function createByteQueue(): ByteQueue {
  const chunks: Buffer[] = [];
  // Chunks before `first` are used up; they are dropped from the array in batches, since
  // shifting an array one element at a time is itself linear in its length.
  let first = 0;
  // Bytes of chunks[first] already taken.
  let offset = 0;
  let length = 0;

  /** Copies out the first `n` bytes; removes them when `consume` is set. */
  const read = (n: number, consume: boolean): Buffer => {
    if (n < 0 || n > length) throw new RangeError(`cannot read ${n} of ${length} bytes`);
    const head = chunks[first];
    // Within one chunk, a view is enough: no copy.
    if (head && head.length - offset >= n) {
      const view = head.subarray(offset, offset + n);
      if (consume) advance(n);
      return view;
    }
    const parts: Buffer[] = [];
    let need = n;
    for (let i = first, at = offset; need > 0; i++, at = 0) {
      const chunk = chunks[i]!;
      const part = chunk.subarray(at, Math.min(chunk.length, at + need));
      parts.push(part);
      need -= part.length;
    }
    const out = Buffer.concat(parts, n);
    if (consume) advance(n);
    return out;
  };

  const advance = (n: number): void => {
    length -= n;
    let left = n;
    while (left > 0) {
      const chunk = chunks[first]!;
      const rest = chunk.length - offset;
      if (rest > left) {
        offset += left;
        return;
      }
      left -= rest;
      first += 1;
      offset = 0;
    }
    if (first === chunks.length) {
      chunks.length = 0;
      first = 0;
    } else if (first > 1024 && first * 2 > chunks.length) {
      chunks.splice(0, first);
      first = 0;
    }
  };

  return {
    get length() {
      return length;
    },
    push(chunk) {
      if (chunk.length === 0) return;
      chunks.push(chunk);
      length += chunk.length;
    },
    peek: (n) => read(n, false),
    take: (n) => read(n, true),
  };
}

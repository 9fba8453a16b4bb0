import { describe, expect, it } from 'vitest';
import { createByteQueue } from './byteQueue';

const bytes = (...values: number[]) => Buffer.from(values);

describe('byte queue', () => {
  it('takes bytes in order across the chunks they arrived in', () => {
    const q = createByteQueue();
    q.push(bytes(1, 2));
    q.push(bytes());
    q.push(bytes(3));
    q.push(bytes(4, 5, 6));
    expect(q.length).toBe(6);
    expect([...q.take(1)]).toEqual([1]);
    expect([...q.take(4)]).toEqual([2, 3, 4, 5]);
    expect(q.length).toBe(1);
    expect([...q.take(1)]).toEqual([6]);
    expect(q.length).toBe(0);
  });

  it('peeks without removing', () => {
    const q = createByteQueue();
    q.push(bytes(1));
    q.push(bytes(2, 3));
    expect([...q.peek(2)]).toEqual([1, 2]);
    expect([...q.peek(3)]).toEqual([1, 2, 3]);
    expect(q.length).toBe(3);
    expect([...q.take(3)]).toEqual([1, 2, 3]);
  });

  it('refuses to read more than it holds', () => {
    const q = createByteQueue();
    q.push(bytes(1, 2));
    expect(() => q.take(3)).toThrow(RangeError);
    expect(q.length).toBe(2);
  });

  it('keeps its order over many chunks taken a little at a time', () => {
    const q = createByteQueue();
    const all: number[] = [];
    for (let i = 0; i < 5000; i++) {
      q.push(bytes(i & 0xff));
      all.push(i & 0xff);
    }
    const out: number[] = [];
    while (q.length > 0) out.push(...q.take(Math.min(q.length, 3)));
    expect(out).toEqual(all);
  });
});

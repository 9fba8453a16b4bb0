import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import fc from 'fast-check';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { DomainError } from '../core/errors';
import { readForm, type FormPart } from './form';

// The form reader on its own, fed a body in chunks of every size: what it reads back is what was
// sent, whatever bytes a file holds (boundaries' look-alikes included) and wherever the chunks
// split it. The upload routes' malformed bodies are in tests/server/robustness/uploads.test.ts.

const LIMITS = { parts: 20, fieldBytes: 8 * 1024 };

/** A request whose body arrives in these chunks, one per read. */
function requestOf(contentType: string, chunks: Buffer[]): FastifyRequest {
  const raw = new Readable({ read() {} });
  let next = 0;
  const feed = () => {
    if (next < chunks.length) raw.push(chunks[next++]);
    else raw.push(null);
    if (next <= chunks.length) setImmediate(feed);
  };
  setImmediate(feed);
  return { headers: { 'content-type': contentType }, raw } as unknown as FastifyRequest;
}

interface Sent {
  name: string;
  filename?: string;
  content: Buffer;
}

function encode(boundary: string, parts: Sent[]): Buffer {
  return Buffer.concat([
    ...parts.flatMap((p) => [
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"` +
          (p.filename === undefined ? '' : `; filename="${p.filename}"`) +
          '\r\n\r\n',
      ),
      p.content,
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
}

/** Everything the reader yields, files read to the end. */
async function readAll(request: FastifyRequest) {
  const out: Array<{ part: FormPart['type']; name: string; filename?: string; content: Buffer }> =
    [];
  for await (const part of readForm(request, LIMITS)) {
    if (part.type === 'field') {
      out.push({ part: 'field', name: part.name, content: Buffer.from(part.value) });
    } else {
      const content = await buffer(part.file);
      out.push({ part: 'file', name: part.name, filename: part.filename, content });
    }
  }
  return out;
}

const splitAt = (bytes: Buffer, cuts: number[]) => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const at of [...points, bytes.length]) {
    if (at > from) chunks.push(bytes.subarray(from, at));
    from = at;
  }
  return chunks;
};

describe('form reader', () => {
  it('reads back every part sent, however the body is split', async () => {
    const boundary = 'b0undary';
    // File bytes drawn from what makes a delimiter hard to find: dashes, line breaks, the
    // boundary's letters and a delimiter short of its last letter. The whole delimiter cannot be
    // in a part (RFC 2046 §5.1.1: senders pick a boundary that is not).
    const almost = `\r\n--${boundary.slice(0, -1)}`;
    const tricky = fc
      .array(fc.constantFrom('-', '\r', '\n', 'b', '0', 'u', 'x', almost, boundary), {
        maxLength: 200,
      })
      .map((s) => Buffer.from(s.join('')))
      .filter((b) => !b.includes(`\r\n--${boundary}`));
    const part = fc.oneof(
      fc.record({
        name: fc.constantFrom('meta', 'file', 'x'),
        content: fc.string({ maxLength: 50 }).map((s) => Buffer.from(s.replace(/\r\n/g, ''))),
      }),
      fc.record({
        name: fc.constant('file'),
        filename: fc.constantFrom('a.png', 'disk.iso', ''),
        content: fc.oneof(
          tricky,
          fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a)),
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(part, { maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (parts, cuts) => {
          const body = encode(boundary, parts);
          const read = await readAll(
            requestOf(`multipart/form-data; boundary=${boundary}`, splitAt(body, cuts)),
          );
          expect(read).toEqual(
            parts.map((p) =>
              'filename' in p
                ? { part: 'file', name: p.name, filename: p.filename, content: p.content }
                : { part: 'field', name: p.name, content: p.content },
            ),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('fails a file’s stream with a 400 when the body ends inside it', async () => {
    const body = Buffer.from(
      '--b\r\nContent-Disposition: form-data; name="file"; filename="a.iso"\r\n\r\nabc',
    );
    const parts = readForm(requestOf('multipart/form-data; boundary=b', [body]), LIMITS);
    const first = await parts.next();
    expect(first.value).toMatchObject({ type: 'file', filename: 'a.iso' });
    const file = (first.value as Extract<FormPart, { type: 'file' }>).file;
    await expect(buffer(file)).rejects.toBeInstanceOf(DomainError);
  });

  it('reads quoted names with escapes and RFC 5987 file names', async () => {
    const body = Buffer.from(
      '--b\r\nContent-Disposition: form-data; name="a \\"q\\"; b"; ' +
        "filename*=UTF-8''na%C3%AFve.png\r\n\r\nx\r\n--b--",
    );
    const read = await readAll(requestOf('multipart/form-data; boundary="b"', [body]));
    expect(read).toEqual([
      { part: 'file', name: 'a "q"; b', filename: 'naïve.png', content: Buffer.from('x') },
    ]);
  });
});

describe('a file stream its route stopped reading', () => {
  it('fails quietly when the body ends inside it, without an uncaught error', async () => {
    const raw = new Readable({ read() {} });
    const request = { headers: { 'content-type': 'multipart/form-data; boundary=b' }, raw };
    raw.push(Buffer.from('--b\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\n'));
    raw.push(Buffer.alloc(100, 1));
    const form = readForm(request as unknown as FastifyRequest, LIMITS);
    const first = await form.next();
    if (first.done || first.value.type !== 'file') throw new Error('expected a file part');
    const file = first.value.file;
    // A read starts, then the route walks away: nothing listens to the stream any more.
    file.read(1);
    raw.push(null);
    await vi.waitFor(() => expect(file.destroyed).toBe(true));
    expect(file.errored).toBeInstanceOf(DomainError);
  });
});

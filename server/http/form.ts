import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../core/errors';

// multipart/form-data (RFC 7578) for the upload routes, read part by part as the body arrives,
// with a file's bytes passed on only as fast as its consumer takes them. Ours rather than busboy's
// (through @fastify/multipart): busboy stalls for good on a part it skips (one whose disposition
// is not form-data) once that part outgrows its buffer, and fails a missing boundary or a body cut
// short with plain errors that cannot be told from the server's own. Here a malformed body is a
// 400 as soon as it is seen, and a file's stream fails with that 400 when the body ends inside it.

export interface FormField {
  type: 'field';
  name: string;
  value: string;
}

export interface FormFile {
  type: 'file';
  name: string;
  filename: string;
  /** The file's bytes: read it to the end, or drop it, before asking for the next part. */
  file: Readable;
}

export type FormPart = FormField | FormFile;

export interface FormLimits {
  /** Parts in the whole form (413 beyond). */
  parts: number;
  /** Bytes of one field's value (413 beyond). */
  fieldBytes: number;
}

/** The most a part's headers, or the preamble before the first part, may take. */
export const FORM_HEAD_BYTES = 16 * 1024;

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');
const CLOSE = Buffer.from('--');
const EMPTY = Buffer.alloc(0);

export const unreadableForm = (why: string) =>
  new DomainError('InvalidOperation', `The form could not be read: ${why}.`);

/** Answered 413 PayloadTooLarge (server/http/errors.ts). */
const tooLarge = (why: string) => Object.assign(new Error(why), { statusCode: 413 });

/** Whether the request says it carries a form; its boundary is checked when it is read. */
export const isForm = (request: FastifyRequest) =>
  /^multipart\/form-data(\s*;|$)/i.test(request.headers['content-type'] ?? '');

function boundaryOf(contentType: string): string {
  const match = /(?:^|;)\s*boundary\s*=\s*(?:"([^"]*)"|([^\s;]*))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2] ?? '';
  // RFC 2046 §5.1.1: 1 to 70 characters.
  if (boundary.length < 1 || boundary.length > 70) throw unreadableForm('no valid boundary');
  return boundary;
}

/** A header's value split into its lower-case type and its parameters (`name="a; b"`). */
function parameters(value: string): { type: string; params: Map<string, string> } {
  const semi = value.indexOf(';');
  const type = (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
  const params = new Map<string, string>();
  const rest = semi < 0 ? '' : value.slice(semi);
  for (const m of rest.matchAll(/;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)) {
    const key = m[1]!.toLowerCase();
    const text = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!.trim();
    if (!params.has(key)) params.set(key, text);
  }
  return { type, params };
}

/** `filename*=UTF-8''na%C3%AFve.png` (RFC 5987), which some clients send for non-ASCII names. */
function extendedValue(value: string | undefined): string | undefined {
  const match = value === undefined ? null : /^[^']*'[^']*'(.*)$/.exec(value);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

/** The request's body as a buffer that is filled on demand, never more than a chunk ahead. */
class BodyReader {
  /** Unread bytes. The first delimiter has no line break before it: one is supplied. */
  buf: Buffer = CRLF;
  /** Content reads, one at a time: a file's stream and the form's own skipping may overlap. */
  private queue: Promise<unknown> = Promise.resolve();
  /** True between a part's headers and the delimiter that ends its content. */
  inContent = false;

  constructor(
    private readonly raw: IncomingMessage,
    private readonly delimiter: Buffer,
  ) {}

  /** Waits for more of the body, and leaves no listener behind once it has. */
  private wait(): Promise<void> {
    const raw = this.raw;
    return new Promise((resolve, reject) => {
      const off = () => {
        raw.off('readable', done);
        raw.off('end', done);
        raw.off('error', cut);
        raw.off('close', closed);
      };
      const done = () => {
        off();
        resolve();
      };
      const cut = () => {
        off();
        reject(unreadableForm('the body was cut off'));
      };
      const closed = () => (raw.readableEnded ? done() : cut());
      raw.on('readable', done);
      raw.on('end', done);
      raw.on('error', cut);
      raw.on('close', closed);
    });
  }

  /** Appends the next chunk of the body; false at its end. */
  async pull(): Promise<boolean> {
    for (;;) {
      const chunk = this.raw.read() as Buffer | null;
      if (chunk !== null) {
        this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
        return true;
      }
      if (this.raw.readableEnded) return false;
      if (this.raw.destroyed) throw unreadableForm('the body was cut off');
      await this.wait();
    }
  }

  /** The offset of `bytes` in the unread bytes, reading on until it is found within `max`. */
  async find(bytes: Buffer, max: number, missing: string): Promise<number> {
    for (;;) {
      const at = this.buf.indexOf(bytes);
      if (at >= 0 && at <= max) return at;
      if (at > max || this.buf.length > max + bytes.length) throw unreadableForm(missing);
      if (!(await this.pull())) throw unreadableForm(missing);
    }
  }

  skip(n: number): void {
    this.buf = this.buf.subarray(n);
  }

  /** The next bytes of the current part's content; `last` once its delimiter has been read. */
  content(): Promise<{ chunk: Buffer; last: boolean }> {
    const next = this.queue.then(() => this.contentNow());
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async contentNow(): Promise<{ chunk: Buffer; last: boolean }> {
    if (!this.inContent) return { chunk: EMPTY, last: true };
    for (;;) {
      const at = this.buf.indexOf(this.delimiter);
      if (at >= 0) {
        const chunk = this.buf.subarray(0, at);
        this.skip(at + this.delimiter.length);
        this.inContent = false;
        return { chunk, last: true };
      }
      // All but what could be the start of a delimiter split across chunks.
      const keep = this.delimiter.length - 1;
      if (this.buf.length > keep) {
        const chunk = this.buf.subarray(0, this.buf.length - keep);
        this.skip(chunk.length);
        return { chunk, last: false };
      }
      if (!(await this.pull())) throw unreadableForm('the body ended inside a part');
    }
  }

  /** Reads past what is left of the current part's content. */
  async skipContent(): Promise<void> {
    while (this.inContent) await this.content();
  }

  /** The current part's content as a stream that reads the body as it is read itself. */
  contentStream(): Readable {
    const content = () => this.content();
    const stream = new Readable({
      read() {
        content().then(
          ({ chunk, last }) => {
            if (chunk.length) this.push(chunk);
            if (last) this.push(null);
          },
          (error: unknown) => this.destroy(error as Error),
        );
      },
    });
    // A route that stopped reading the file (it answered already) no longer listens for its
    // errors: a body cut short afterwards must not become an uncaught 'error' event, which would
    // end the process. Routes that read the file see the error through their own listeners.
    stream.on('error', () => {});
    return stream;
  }
}

/**
 * The parts of a multipart/form-data body, in order. A part must have a form-data disposition
 * with a name (RFC 7578 §4.2); one with a filename is a file, streamed; the others are fields.
 * What follows the closing delimiter is not read: a route that answers before the body's end
 * closes the connection (./body.ts).
 */
export async function* readForm(
  request: FastifyRequest,
  limits: FormLimits,
): AsyncGenerator<FormPart> {
  const boundary = boundaryOf(request.headers['content-type'] ?? '');
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const reader = new BodyReader(request.raw, delimiter);
  reader.skip((await reader.find(delimiter, FORM_HEAD_BYTES, 'no part')) + delimiter.length);

  for (let parts = 0; ; parts++) {
    // After a delimiter: "--" closes the form; otherwise its line ends, after optional padding.
    while (reader.buf.length < CLOSE.length && (await reader.pull()));
    if (reader.buf.subarray(0, CLOSE.length).equals(CLOSE)) return;
    const lineEnd = await reader.find(CRLF, FORM_HEAD_BYTES, 'a boundary line is malformed');
    if (!/^[ \t]*$/.test(reader.buf.toString('latin1', 0, lineEnd))) {
      throw unreadableForm('a boundary line is malformed');
    }
    reader.skip(lineEnd);
    if (parts === limits.parts) throw tooLarge('The form has too many parts.');

    // The headers, from the line break that ends the delimiter's line to an empty line.
    const headersEnd = await reader.find(HEADERS_END, FORM_HEAD_BYTES, 'a part has no headers');
    const headers = new Map<string, string>();
    for (const line of reader.buf.toString('utf8', CRLF.length, headersEnd).split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw unreadableForm('a part header is malformed');
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    reader.skip(headersEnd + HEADERS_END.length);
    reader.inContent = true;

    const disposition = parameters(headers.get('content-disposition') ?? '');
    const name = disposition.params.get('name');
    if (disposition.type !== 'form-data' || name === undefined) {
      throw unreadableForm('every part must be form-data with a name');
    }
    const filename =
      extendedValue(disposition.params.get('filename*')) ?? disposition.params.get('filename');

    if (filename === undefined) {
      const pieces: Buffer[] = [];
      let size = 0;
      for (let last = false; !last;) {
        const next = await reader.content();
        size += next.chunk.length;
        if (size > limits.fieldBytes) throw tooLarge(`The form field ${name} is too long.`);
        pieces.push(next.chunk);
        last = next.last;
      }
      yield { type: 'field', name, value: Buffer.concat(pieces).toString('utf8') };
    } else {
      yield { type: 'file', name, filename, file: reader.contentStream() };
      await reader.skipContent();
    }
  }
}

import type { IncomingMessage } from 'node:http';
import { failure, PveHttpError } from './errors';
import type { RawParam } from './schema';

// Reading the multipart/form-data body of a storage upload for the PVE API SIMULATOR (tests
// only), the way PVE's HTTP server (pve-http-server, AnyEvent.pm) takes it: the form fields come
// first (content, checksum-algorithm, checksum), then one file part whose field is named
// `filename` and whose multipart filename becomes the `filename` parameter; query parameters are
// parameters too. PVE streams the file into /var/tmp; the simulator holds it in memory, up to a
// limit, and parses the body itself so that no multipart library decides what is accepted.

/** The most the simulator holds in memory for one upload. */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

/** The API paths PVE's server treats as uploads (below /api2/json). */
const UPLOAD_PATH = /^\/nodes\/[^/]+\/storage\/[^/]+\/upload$/;

export const isUploadCall = (method: string, path: string): boolean =>
  method === 'POST' && UPLOAD_PATH.test(path);

interface FormPart {
  name: string;
  /** The part's multipart filename: set on a file part only. */
  filename?: string;
  data: Buffer;
}

export interface Upload {
  /** Parameters as sent, for the schema check. */
  raw: Record<string, RawParam>;
  file: Buffer;
}

const CRLF = '\r\n';
const HEADER_END = Buffer.from(`${CRLF}${CRLF}`);

/** The boundary of a multipart/form-data content type; undefined for any other type. */
function formBoundary(contentType: string): string | undefined {
  const [type = '', ...params] = contentType.split(';').map((part) => part.trim());
  if (type.toLowerCase() !== 'multipart/form-data') return undefined;
  for (const param of params) {
    const match = /^boundary\s*=\s*"?([^"]+)"?$/i.exec(param);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * The parts of a multipart body (RFC 7578), or the reason it is malformed. The preamble before
 * the first delimiter and the epilogue after the closing one are ignored, as the RFC says.
 */
function parseForm(body: Buffer, boundary: string): FormPart[] | string {
  const delimiter = Buffer.from(`--${boundary}`);
  const nextDelimiter = Buffer.from(`${CRLF}--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) return 'no multipart boundary in the body';
  for (;;) {
    at += delimiter.length;
    const after = body.toString('latin1', at, at + 2);
    if (after === '--') return parts;
    if (after !== CRLF) return 'a multipart boundary is not followed by a line break';
    const headersEnd = body.indexOf(HEADER_END, at);
    if (headersEnd < 0) return 'a part has no end of headers';
    const dataStart = headersEnd + HEADER_END.length;
    const dataEnd = body.indexOf(nextDelimiter, dataStart);
    if (dataEnd < 0) return 'the body ends before the closing boundary';
    const part = partOf(body.toString('utf8', at + CRLF.length, headersEnd));
    if (typeof part === 'string') return part;
    parts.push({ ...part, data: body.subarray(dataStart, dataEnd) });
    at = dataEnd + CRLF.length;
  }
}

/** A part's name and filename from its Content-Disposition header, or what is wrong with it. */
function partOf(headers: string): Omit<FormPart, 'data'> | string {
  const line = headers.split(CRLF).find((h) => /^content-disposition\s*:/i.test(h));
  if (line === undefined) return 'a part has no Content-Disposition';
  const value = line.slice(line.indexOf(':') + 1).trim();
  const kind = value.split(';')[0]?.trim() ?? '';
  if (kind !== 'form-data') return `a part's Content-Disposition is '${kind}', not 'form-data'`;
  const params: Record<string, string> = {};
  for (const match of value.matchAll(/;\s*([\w*-]+)\s*=\s*(?:"([^"]*)"|([^;\s]*))/g)) {
    const [, key = '', quoted, bare] = match;
    params[key.toLowerCase()] = quoted ?? bare ?? '';
  }
  if (params.name === undefined) return 'a part has no name';
  return {
    name: params.name,
    ...(params.filename !== undefined ? { filename: params.filename } : {}),
  };
}

async function readAll(request: IncomingMessage): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? 0);
  const tooLarge = () =>
    new PveHttpError(
      413,
      `PVE API simulator: an upload may have at most ${MAX_UPLOAD_BYTES} bytes`,
    );
  if (declared > MAX_UPLOAD_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_UPLOAD_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads an upload request: its query parameters, the fields and the file. Throws PVE's refusals;
 * a body PVE could not parse is its bare "upload failed", with the reason in the simulator's log.
 */
export async function readUpload(
  request: IncomingMessage,
  query: Record<string, RawParam>,
  log: (line: string) => void,
): Promise<Upload> {
  const type = request.headers['content-type'] ?? '';
  const boundary = formBoundary(type);
  // PVE dies here without answering at all; the simulator answers, so that a test fails at once.
  if (boundary === undefined) {
    throw new PveHttpError(501, `upload 'Content-Type '${type}' not implemented`);
  }
  const parts = parseForm(await readAll(request), boundary);
  if (typeof parts === 'string') {
    log(`PVE API simulator: upload refused: ${parts}`);
    throw failure('upload failed');
  }
  const upload = fieldsAndFile(parts, query, log);
  // Only PVE's server may name the temporary file (it refuses it in the query; a form field of
  // that name is refused the same way, where PVE would not read it at all).
  if (Object.hasOwn(upload.raw, 'tmpfilename')) {
    throw failure("'tmpfilename' query parameter is not allowed for file uploads");
  }
  return upload;
}

function fieldsAndFile(
  parts: FormPart[],
  query: Record<string, RawParam>,
  log: (line: string) => void,
): Upload {
  const fileAt = parts.findIndex((part) => part.filename !== undefined);
  const file = parts[fileAt];
  if (file?.filename === undefined) {
    log('PVE API simulator: upload refused: no file part');
    throw failure('upload failed');
  }
  if (file.name !== 'filename') {
    throw failure(`wrong field name '${file.name}' for file upload, expected 'filename'`);
  }
  // PVE writes everything after the file part's headers up to the closing boundary into the
  // file, so a field sent after the file would corrupt it: refused here to catch such a client.
  if (fileAt !== parts.length - 1) {
    throw failure('PVE API simulator: the file must be the last part of an upload');
  }
  const fields = Object.fromEntries(
    parts.slice(0, fileAt).map((part) => [part.name, part.data.toString('utf8').trim()]),
  );
  return { raw: { ...query, ...fields, filename: file.filename.trim() }, file: file.data };
}

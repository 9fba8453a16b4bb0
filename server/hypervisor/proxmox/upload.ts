import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type http from 'node:http';
import type { PveParams, UploadFile } from './clientTypes';
import type { Answer, PveConnection } from './connection';
import { parseBody, PveError, transportError } from './pveErrors';

// Uploads to PVE's storage: a local file POSTed as `multipart/form-data`, streamed from disk.

/** The multipart body's parts around the file, and its length. */
function multipart(fields: PveParams, file: { field: string; name: string }, size: number) {
  const boundary = `----topoplay${randomBytes(12).toString('hex')}`;
  const quoted = (text: string) => text.replace(/["\r\n]/g, '_');
  const head = Buffer.from(
    [
      ...Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(
          ([k, v]) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(k)}"\r\n\r\n${
              typeof v === 'boolean' ? (v ? 1 : 0) : v
            }\r\n`,
        ),
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.name)}"\r\n`,
      'Content-Type: application/octet-stream\r\n\r\n',
    ].join(''),
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { boundary, head, tail, length: head.length + size + tail.length };
}

/** POSTs the fields and the file; it times out only when no byte moves. Never repeated. */
export async function upload<T>(
  connection: PveConnection,
  path: string,
  fields: PveParams,
  file: UploadFile,
): Promise<T> {
  await connection.signIn();
  const { root, agent, transport, timeoutMs } = connection;
  const { size } = await stat(file.path);
  const body = multipart(fields, file, size);
  const headers: http.OutgoingHttpHeaders = {
    Accept: 'application/json',
    'Content-Type': `multipart/form-data; boundary=${body.boundary}`,
    'Content-Length': body.length,
    ...connection.credentials('POST'),
  };
  const answer = await new Promise<Answer>((resolve, reject) => {
    const request = transport.request(
      `${root}${path}`,
      { method: 'POST', headers, agent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error) => reject(transportError('POST', path, error)));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            statusMessage: response.statusMessage ?? '',
            body: parseBody(Buffer.concat(chunks).toString('utf8')),
          }),
        );
      },
    );
    // Idle, not total: a large ISO takes as long as it takes.
    request.setTimeout(timeoutMs, () =>
      request.destroy(
        new PveError('timeout', `PVE POST ${path}: no progress in ${timeoutMs} ms`, { path }),
      ),
    );
    request.on('error', (error) => reject(transportError('POST', path, error)));
    request.write(body.head);
    const stream = createReadStream(file.path);
    stream.on('error', (error) => request.destroy(error));
    stream.on('end', () => request.end(body.tail));
    stream.pipe(request, { end: false });
  });
  return connection.dataOf('POST', path, answer) as T;
}

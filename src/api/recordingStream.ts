import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import type { ApiError, HttpClient } from './http';
import { recordingStreamPath } from './recordings';

/** A binary answer as the client hands it on (HttpRequest.blobResponse). */
const BlobBody = new t.Type<Blob, Blob, unknown>(
  'Blob',
  (u): u is Blob => u instanceof Blob,
  (u, c) => (u instanceof Blob ? t.success(u) : t.failure(u, c)),
  t.identity,
);

/**
 * GET recording/{id}/stream: the recording's records (src/domain/recordingStream.ts reads them);
 * `download` asks for it as a file to save.
 */
export const getRecordingStream =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal, download = false): TE.TaskEither<ApiError, Blob> =>
    http.request(BlobBody, {
      method: 'GET',
      path: recordingStreamPath(id, download),
      signal,
      headers: { Accept: 'application/octet-stream' },
      blobResponse: true,
    });

import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import { nullable, NoContent } from './codecs';
import type { ApiError, HttpClient } from './http';

/**
 * A file of a workspace's document folder (wire reference §1.6 ImageFile, spec §3 "Image or
 * attachment"). The reference server sends only `filename`; ours adds url, size and type.
 */
export const ImageFile = t.intersection([
  t.type({ filename: t.string }),
  t.partial({
    url: nullable(t.string),
    size: nullable(t.number),
    type: nullable(t.string),
  }),
]);
export type ImageFile = t.TypeOf<typeof ImageFile>;

const ImageFiles = t.array(ImageFile);

/**
 * Where a workspace's image is served: `{apphost}docs/{workspaceId}/{filename}`, as the reference
 * UI builds it (wire reference §1.6), so that it works whether or not the server sends a url.
 */
export function imageUrl(apphost: string, workspaceId: string, filename: string): string {
  const host = apphost === '' ? '/' : apphost.endsWith('/') ? apphost : `${apphost}/`;
  return `${host}docs/${encodeURIComponent(workspaceId)}/${encodeURIComponent(filename)}`;
}

/** GET images/{workspaceId}: the files of the workspace's document folder. */
export const listImages =
  (http: HttpClient) =>
  (workspaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, ImageFile[]> =>
    http.request(ImageFiles, {
      method: 'GET',
      path: `images/${encodeURIComponent(workspaceId)}`,
      signal,
    });

/** POST image/{workspaceId}, multipart with the field `file`: the stored file (renamed). */
export const uploadImage =
  (http: HttpClient) =>
  (
    workspaceId: string,
    file: Blob,
    filename: string,
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, ImageFile> => {
    const form = new FormData();
    form.append('file', file, filename);
    return http.request(ImageFile, {
      method: 'POST',
      path: `image/${encodeURIComponent(workspaceId)}`,
      body: form,
      signal,
    });
  };

/** DELETE image/{workspaceId}?filename=: 200 with no body, or 400 when the file is not there. */
export const deleteImage =
  (http: HttpClient) =>
  (workspaceId: string, filename: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, {
      method: 'DELETE',
      path: withQuery(`image/${encodeURIComponent(workspaceId)}`, { filename }),
      signal,
    });

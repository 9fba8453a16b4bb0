import * as t from 'io-ts';
import type * as TE from 'fp-ts/TaskEither';
import type { ApiError, HttpClient } from './http';

/**
 * The workspace document (wire reference §1.6) and its co-editing state (our server's addition,
 * the co-editing contract): the markdown file, and the merged Yjs update log it is written from.
 */

/** The header that tells our server the client co-edits: it saves the log's text, not the body. */
export const CRDT_HEADER = 'x-document-crdt';
export const CRDT_KIND = 'yjs';

/** GET document/{id}/crdt: the merge of the document's update log, base64. */
export const DocumentCrdt = t.type({ update: t.string });
export type DocumentCrdt = t.TypeOf<typeof DocumentCrdt>;

const documentPath = (workspaceId: string) => `document/${encodeURIComponent(workspaceId)}`;

/** GET document/{id}: the stored markdown ('' when there is none). */
export const getDocument =
  (http: HttpClient) =>
  (workspaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, string> =>
    http.request(t.string, {
      method: 'GET',
      path: documentPath(workspaceId),
      signal,
      textResponse: true,
    });

/** GET document/{id}/crdt: the whole co-editing state as one Yjs update. */
export const getDocumentCrdt =
  (http: HttpClient) =>
  (workspaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, DocumentCrdt> =>
    http.request(DocumentCrdt, {
      method: 'GET',
      path: `${documentPath(workspaceId)}/crdt`,
      signal,
    });

/**
 * PUT document/{id}: saves the document. With the CRDT header our server writes the text of the
 * update log (which the client has flushed its edits to) and announces it with DOCUMENT.SAVED;
 * the body is the client's text, which a reference server stores as it is.
 */
export const saveDocument =
  (http: HttpClient) =>
  (
    { workspaceId, text }: { workspaceId: string; text: string },
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, unknown> =>
    http.request(t.unknown, {
      method: 'PUT',
      path: documentPath(workspaceId),
      text,
      headers: { [CRDT_HEADER]: CRDT_KIND },
      signal,
      textResponse: true,
    });

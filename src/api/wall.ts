import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import * as t from 'io-ts';
import type { ApiError, HttpClient } from './http';

// The instructor wall (GET wall, ours; server/core/wall.ts): every running gamespace the viewer
// may observe, and the pictures of their machines' consoles (GET vm/{id}/thumbnail, ours).

export const WallMachine = t.type({
  id: t.string,
  name: t.string,
  state: t.keyof({ running: null, off: null }),
});
export type WallMachine = t.TypeOf<typeof WallMachine>;

/** What its machines say of a gamespace; a state this version does not know reads as it is. */
export const WallState = t.string;

/** A gamespace's raised hand: its open help request, with who is on it. */
export const WallHelp = t.type({
  id: t.string,
  message: t.string,
  raisedAt: t.string,
  claimedByName: t.union([t.string, t.null]),
});
export type WallHelp = t.TypeOf<typeof WallHelp>;

const WallEntryFields = t.type({
  gamespaceId: t.string,
  workspaceId: t.string,
  workspaceName: t.string,
  managerName: t.string,
  players: t.array(t.type({ id: t.string, name: t.string })),
  startTime: t.string,
  endTime: t.string,
  expirationTime: t.string,
  score: t.number,
  maxPoints: t.number,
  attempts: t.number,
  maxAttempts: t.number,
  state: WallState,
  lastActivity: t.union([t.string, t.null]),
  machines: t.array(WallMachine),
});

export const WallEntry = t.intersection([
  WallEntryFields,
  // Help requests and alerts came after the first wall: a server without them says nothing.
  t.partial({ help: t.union([WallHelp, t.null]), alerts: t.number }),
]);
export type WallEntry = t.TypeOf<typeof WallEntry>;

/** GET wall: the running gamespaces the viewer may observe. */
export const loadWall =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, WallEntry[]> =>
    http.request(t.array(WallEntry), { method: 'GET', path: 'wall', signal });

/** A binary answer as the client hands it on (HttpRequest.blobResponse). */
const BlobBody = new t.Type<Blob, Blob, unknown>(
  'Blob',
  (u): u is Blob => u instanceof Blob,
  (u, c) => (u instanceof Blob ? t.success(u) : t.failure(u, c)),
  t.identity,
);

const ThumbnailAnswer = t.type({
  status: t.number,
  headers: t.partial({ etag: t.string }),
  body: t.union([BlobBody, t.undefined]),
});

/**
 * A machine's console picture as the wall asks for it: a new picture with its ETag, the same as
 * the one shown (304 to If-None-Match), or none yet (204; also 404, from a server that has no
 * thumbnails, which the wall treats the same).
 */
export type Thumbnail =
  { kind: 'picture'; blob: Blob; etag: string | null } | { kind: 'unchanged' } | { kind: 'none' };

/** GET vm/{id}/thumbnail, conditional on the ETag of the picture shown. 403 stays an error. */
export const loadThumbnail =
  (http: HttpClient) =>
  (vmId: string, etag: string | null, signal: AbortSignal): TE.TaskEither<ApiError, Thumbnail> =>
    pipe(
      http.request(ThumbnailAnswer, {
        method: 'GET',
        path: `vm/${encodeURIComponent(vmId)}/thumbnail`,
        signal,
        headers: { Accept: 'image/png', ...(etag ? { 'If-None-Match': etag } : {}) },
        blobResponse: true,
        responseHeaders: ['etag'],
      }),
      TE.map(({ status, headers, body }): Thumbnail =>
        status === 204 || !body || body.size === 0
          ? { kind: 'none' }
          : { kind: 'picture', blob: body, etag: headers.etag ?? null },
      ),
      TE.orElse((error) =>
        error.status === 304
          ? TE.right<ApiError, Thumbnail>({ kind: 'unchanged' })
          : error.status === 404
            ? TE.right<ApiError, Thumbnail>({ kind: 'none' })
            : TE.left(error),
      ),
    );

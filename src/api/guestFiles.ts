import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';

// Files into a machine from its console page (server/http/vm/files.ts). The page is signed in by
// the console cookie, which these calls carry as the page's other calls do. The upload itself is
// in ./guestFileUpload.ts: it needs XMLHttpRequest, which the machines (whose charts are also
// compiled for Node) must not.

/** GET vm/{id}/files: whether the machine takes files now, and how. */
export const GuestFileAccess = t.type({
  available: t.boolean,
  how: nullable(t.union([t.literal('agent'), t.literal('simulated')])),
  maxBytes: t.number,
  reason: nullable(t.string),
});
export type GuestFileAccess = t.TypeOf<typeof GuestFileAccess>;

/** A file put into the machine: where it is there. */
export const GuestFilePut = t.type({
  name: t.string,
  path: t.string,
  size: t.number,
  sha256: t.string,
});
export type GuestFilePut = t.TypeOf<typeof GuestFilePut>;

export const filesPath = (vmId: string) => `vm/${encodeURIComponent(vmId)}/files`;

export const getGuestFileAccess =
  (http: HttpClient) =>
  (vmId: string, signal: AbortSignal): TE.TaskEither<ApiError, GuestFileAccess> =>
    http.request(GuestFileAccess, { method: 'GET', path: filesPath(vmId), signal });

export type GuestFilePutter = (
  vmId: string,
  file: File,
  /** 0..100 of the file sent to the server; the machine takes it after that. */
  onProgress: (percent: number) => void,
  signal: AbortSignal,
) => TE.TaskEither<ApiError, GuestFilePut>;

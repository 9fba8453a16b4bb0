import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';
import { Vm, type VmOperationType } from './vm';

/** A hub connection in a room (wire reference §2 CachedConnection, GET admin/live). */
export const LiveConnection = t.intersection([
  t.type({ id: t.string }),
  t.partial({
    room: nullable(t.string),
    profileId: nullable(t.string),
    profileName: nullable(t.string),
  }),
]);
export type LiveConnection = t.TypeOf<typeof LiveConnection>;

/** One finding of the janitor (wire reference §2 JanitorReport). */
export const JanitorReport = t.intersection([
  t.type({ id: t.string }),
  t.partial({
    name: nullable(t.string),
    reason: nullable(t.string),
    age: nullable(t.string),
    ownerName: nullable(t.string),
    vmCount: nullable(t.number),
  }),
]);
export type JanitorReport = t.TypeOf<typeof JanitorReport>;

/** One recent server error (GET admin/log); `level` and `requestId` are ours. */
export const ServerLogEntry = t.intersection([
  t.type({ timestamp: t.string, message: t.string }),
  t.partial({
    stackTrace: nullable(t.string),
    level: nullable(t.string),
    requestId: nullable(t.string),
  }),
]);
export type ServerLogEntry = t.TypeOf<typeof ServerLogEntry>;

/**
 * The hypervisor as the server drives it (GET admin/hypervisor, ours). `kind` stays a string so
 * that a driver this build does not know is shown by its name rather than failing the panel.
 */
export const HypervisorStatus = t.type({
  kind: t.string,
  acceleration: t.string,
  running: t.number,
  maxRunning: nullable(t.number),
  memoryMiBInUse: t.number,
  maxMemoryMiB: nullable(t.number),
  orphans: t.number,
});
export type HypervisorStatus = t.TypeOf<typeof HypervisorStatus>;

export const AppVersion = t.partial({ commit: nullable(t.string) });
export type AppVersion = t.TypeOf<typeof AppVersion>;

/** POST admin/announce: the text (text/plain) to every connected client. */
export const announce =
  (http: HttpClient) =>
  (message: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(t.unknown, { method: 'POST', path: 'admin/announce', text: message, signal });

export const listLiveConnections =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, LiveConnection[]> =>
    http.request(t.array(LiveConnection), { method: 'GET', path: 'admin/live', signal });

/** POST admin/janitor with `dryRun`: the report of what it found (and, unless dry, did). */
export const runJanitor =
  (http: HttpClient) =>
  (options: { dryRun: boolean }, signal: AbortSignal): TE.TaskEither<ApiError, JanitorReport[]> =>
    http.request(t.array(JanitorReport), {
      method: 'POST',
      path: 'admin/janitor',
      body: options,
      signal,
    });

export const getVersion =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, AppVersion> =>
    http.request(AppVersion, { method: 'GET', path: 'version', signal });

/** GET admin/hypervisor: the driver, its running machines against its caps, its orphans. */
export const getHypervisorStatus =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, HypervisorStatus> =>
    http.request(HypervisorStatus, { method: 'GET', path: 'admin/hypervisor', signal });

/** GET admin/log: the server's recent errors, oldest first. */
export const getServerLog =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, ServerLogEntry[]> =>
    http.request(t.array(ServerLogEntry), { method: 'GET', path: 'admin/log', signal });

/** GET vms: every machine, with its group (`__orphaned#…` when it belongs to nothing). */
export const listAllVms =
  (http: HttpClient) =>
  (term: string, signal: AbortSignal): TE.TaskEither<ApiError, Vm[]> =>
    http.request(t.array(Vm), { method: 'GET', path: withQuery('vms', { filter: term }), signal });

/** Start or stop (PUT vm), or delete (DELETE vm/{id}) a machine. */
export const operateVm =
  (http: HttpClient) =>
  (
    operation: { id: string; type: Extract<VmOperationType, 'start' | 'stop' | 'delete'> },
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, Vm> =>
    operation.type === 'delete'
      ? http.request(Vm, {
          method: 'DELETE',
          path: `vm/${encodeURIComponent(operation.id)}`,
          signal,
        })
      : http.request(Vm, { method: 'PUT', path: 'vm', body: operation, signal });

/** A binary answer, passed on as it came (the workspace archive). */
const BlobCodec = new t.Type<Blob, Blob, unknown>(
  'Blob',
  (value): value is Blob => value instanceof Blob,
  (value, context) => (value instanceof Blob ? t.success(value) : t.failure(value, context)),
  (value) => value,
);

/** POST admin/export: the archive of `ids` (or `["all"]`) written to the server's data folder. */
export const exportWorkspaces =
  (http: HttpClient) =>
  (ids: string[], signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(t.unknown, { method: 'POST', path: 'admin/export', body: ids, signal });

/** POST admin/download: the archive of `ids` (or `["all"]`) as a zip. */
export const downloadWorkspaces =
  (http: HttpClient) =>
  (ids: string[], signal: AbortSignal): TE.TaskEither<ApiError, Blob> =>
    http.request(BlobCodec, {
      method: 'POST',
      path: 'admin/download',
      body: ids,
      blobResponse: true,
      signal,
    });

/** GET admin/import: imports every `*export.zip` in the server's data folder; what it added. */
export const importWorkspaces =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, string[]> =>
    http.request(t.array(t.string), { method: 'GET', path: 'admin/import', signal });

/** POST admin/upload (multipart `files`): the ids of the workspaces the archive added. */
export const uploadWorkspaces =
  (http: HttpClient) =>
  (file: Blob, fileName: string, signal: AbortSignal): TE.TaskEither<ApiError, string[]> => {
    const form = new FormData();
    form.append('files', file, fileName);
    return http.request(t.array(t.string), {
      method: 'POST',
      path: 'admin/upload',
      body: form,
      signal,
    });
  };

import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';

// ISO files (wire reference §1.1, §1.6, §4.9): usage and delete; the upload with its progress is
// in ./isoUpload.ts.

export const IsoUsageReport = t.type({
  templates: t.array(
    t.intersection([
      t.type({ id: t.string, name: t.string }),
      t.partial({ workspaceName: nullable(t.string) }),
    ]),
  ),
  activeGamespaces: t.array(t.type({ id: t.string, name: t.string })),
});
export type IsoUsageReport = t.TypeOf<typeof IsoUsageReport>;

const isoPath = (workspaceId: string, route: string, path: string) =>
  withQuery(`workspace/${encodeURIComponent(workspaceId)}/${route}`, { path });

/** GET workspace/{id}/iso-usage?path=: the templates mounting the ISO, the gamespaces running. */
export const getIsoUsage =
  (http: HttpClient) =>
  (
    workspaceId: string,
    path: string,
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, IsoUsageReport> =>
    http.request(IsoUsageReport, {
      method: 'GET',
      path: isoPath(workspaceId, 'iso-usage', path),
      signal,
    });

/** DELETE workspace/{id}/iso?path=: answers true (404 when the file is gone already). */
export const deleteIso =
  (http: HttpClient) =>
  (workspaceId: string, path: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(t.unknown, { method: 'DELETE', path: isoPath(workspaceId, 'iso', path), signal });

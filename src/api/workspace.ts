import { pipe } from 'fp-ts/function';
import * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import { nullable, NoContent } from './codecs';
import type { ApiError, HttpClient } from './http';
import { Template } from './template';

/** The title every new workspace starts with (spec §3). */
export const NEW_WORKSPACE_NAME = 'Workspace Title';

export const Worker = t.intersection([
  t.type({ subjectId: t.string }),
  t.partial({
    workspaceId: nullable(t.string),
    subjectName: nullable(t.string),
    /** 'none' | 'editor' | 'manager' over REST; hub payloads carry the flags as numbers (255). */
    permission: nullable(t.union([t.string, t.number])),
    canManage: t.boolean,
    canEdit: t.boolean,
  }),
]);
export type Worker = t.TypeOf<typeof Worker>;

/** The workspace's templates are full templates (wire reference §2.1). */
export const WorkspaceTemplate = Template;
export type WorkspaceTemplate = Template;

/** Extra fields (stats, flags the reference adds later) pass through untouched. */
export const Workspace = t.intersection([
  t.type({ id: t.string, name: nullable(t.string) }),
  t.partial({
    description: nullable(t.string),
    tags: nullable(t.string),
    author: nullable(t.string),
    audience: nullable(t.string),
    whenCreated: nullable(t.string),
    templateScope: nullable(t.string),
    templateLimit: nullable(t.number),
    durationMinutes: nullable(t.number),
    /** Record its gamespaces' consoles; null: the server's default (RECORD_CONSOLES). */
    recordConsoles: nullable(t.boolean),
    challenge: nullable(t.string),
    workers: nullable(t.array(Worker)),
    templates: nullable(t.array(WorkspaceTemplate)),
    /** GET workspace/{id}: how many of its gamespaces are under way (spec §3). */
    stats: nullable(t.partial({ activeGamespaceCount: nullable(t.number) })),
  }),
]);
export type Workspace = t.TypeOf<typeof Workspace>;

/** POST workspace {name}: the server answers with the new workspace. */
export const createWorkspace =
  (http: HttpClient) =>
  (name: string, signal: AbortSignal): TE.TaskEither<ApiError, Workspace> =>
    http.request(Workspace, { method: 'POST', path: 'workspace', body: { name }, signal });

/** GET workspace/{id}. */
export const getWorkspace =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, Workspace> =>
    http.request(Workspace, {
      method: 'GET',
      path: `workspace/${encodeURIComponent(id)}`,
      signal,
    });

/** PUT workspace's body (RestrictedChangedWorkspace, wire reference §2.1). */
export interface ChangedWorkspace {
  id: string;
  name: string;
  description: string;
  tags: string;
  author: string;
  audience: string;
  durationMinutes: number;
  /** Ours, not the reference's: true, false, or null for the server's default; omitted, unchanged. */
  recordConsoles?: boolean | null;
}

/** PUT workspace (200 with no body; the hub announces TOPO.UPDATED). */
export const updateWorkspace =
  (http: HttpClient) =>
  (changed: ChangedWorkspace, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, { method: 'PUT', path: 'workspace', body: changed, signal });

/** DELETE workspace/{id} (managers only; the hub announces TOPO.DELETED). */
export const deleteWorkspace =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, {
      method: 'DELETE',
      path: `workspace/${encodeURIComponent(id)}`,
      signal,
    });

/** POST workspace/{id}/clone: the copy, with its new id. */
export const cloneWorkspace =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, Workspace> =>
    http.request(Workspace, {
      method: 'POST',
      path: `workspace/${encodeURIComponent(id)}/clone`,
      body: {},
      signal,
    });

export const JoinCode = t.type({ id: t.string, code: t.string });
export type JoinCode = t.TypeOf<typeof JoinCode>;

/** PUT workspace/{id}/invite: a new invitation code; the previous one stops working. */
export const generateWorkspaceInvitation =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, JoinCode> =>
    http.request(JoinCode, {
      method: 'PUT',
      path: `workspace/${encodeURIComponent(id)}/invite`,
      body: {},
      signal,
    });

/** DELETE workspace/{id}/worker/{subjectId}: removes a collaborator (not the last manager). */
export const removeWorker =
  (http: HttpClient) =>
  (workspaceId: string, subjectId: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, {
      method: 'DELETE',
      path: `workspace/${encodeURIComponent(workspaceId)}/worker/${encodeURIComponent(subjectId)}`,
      signal,
    });

export const WorkspaceStats = t.intersection([
  t.type({ id: t.string }),
  t.partial({
    activeGamespaceCount: nullable(t.number),
    launchCount: nullable(t.number),
    lastActivity: nullable(t.string),
  }),
]);
export type WorkspaceStats = t.TypeOf<typeof WorkspaceStats>;

/** DELETE workspace/{id}/games: ends every gamespace of the workspace; answers the stats. */
export const endWorkspaceGames =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, WorkspaceStats> =>
    http.request(WorkspaceStats, {
      method: 'DELETE',
      path: `workspace/${encodeURIComponent(id)}/games`,
      signal,
    });

/** VmOptions: the ISO paths (`{workspaceId}/file.iso`), when asked for ISOs. */
export const IsoOptions = t.partial({ iso: nullable(t.array(t.string)) });
export type IsoOptions = t.TypeOf<typeof IsoOptions>;

/** GET workspace/{id}/isos?term&local: the ISOs a template of the workspace may mount. */
export const listWorkspaceIsos =
  (http: HttpClient) =>
  (
    id: string,
    search: { term: string; local: boolean },
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, string[]> =>
    pipe(
      http.request(IsoOptions, {
        method: 'GET',
        path: withQuery(`workspace/${encodeURIComponent(id)}/isos`, search),
        signal,
      }),
      TE.map((options) => options.iso ?? []),
    );

import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';

/** The title every new workspace starts with (spec §3). */
export const NEW_WORKSPACE_NAME = 'Workspace Title';

export const Worker = t.intersection([
  t.type({ subjectId: t.string }),
  t.partial({
    workspaceId: nullable(t.string),
    subjectName: nullable(t.string),
    permission: nullable(t.string),
    canManage: t.boolean,
    canEdit: t.boolean,
  }),
]);
export type Worker = t.TypeOf<typeof Worker>;

/** Templates are edited by a later issue; here only their identity is relied upon. */
export const WorkspaceTemplate = t.type({ id: t.string, name: nullable(t.string) });
export type WorkspaceTemplate = t.TypeOf<typeof WorkspaceTemplate>;

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
    challenge: nullable(t.string),
    workers: nullable(t.array(Worker)),
    templates: nullable(t.array(WorkspaceTemplate)),
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

import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';

/**
 * A workspace in a list (wire reference §2.1 WorkspaceSummary). `slug` is the name made
 * URL-friendly by the server, used in play links (/mojo/{id}/{slug}).
 */
export const WorkspaceSummary = t.intersection([
  t.type({ id: t.string, name: nullable(t.string) }),
  t.partial({
    slug: nullable(t.string),
    description: nullable(t.string),
    tags: nullable(t.string),
    /** Markdown, only when the search asked for it with `doc`. */
    text: nullable(t.string),
    audience: nullable(t.string),
    author: nullable(t.string),
    durationMinutes: nullable(t.number),
    whenCreated: nullable(t.string),
    lastActivity: nullable(t.string),
  }),
]);
export type WorkspaceSummary = t.TypeOf<typeof WorkspaceSummary>;

/**
 * The workspace list's query (wire reference §1.1). `filter: ['my']` lists the workspaces the
 * user works on; without it, the ones published to the user's audience (and, for
 * administrators, all of them).
 */
export interface WorkspaceSearch {
  term?: string;
  skip?: number;
  take?: number;
  filter?: readonly string[];
}

/** GET workspaces?term&skip&take&filter. */
export const listWorkspaces =
  (http: HttpClient) =>
  (search: WorkspaceSearch, signal: AbortSignal): TE.TaskEither<ApiError, WorkspaceSummary[]> =>
    http.request(t.array(WorkspaceSummary), {
      method: 'GET',
      path: withQuery('workspaces', { ...search }),
      signal,
    });

/**
 * POST worker/{code}: joins the workspace whose invitation code this is, as an editor (or as its
 * manager when it has none). Joining again changes nothing; a bad code is 400 InvalidInvitation.
 */
export const redeemWorkspaceInvitation =
  (http: HttpClient) =>
  (code: string, signal: AbortSignal): TE.TaskEither<ApiError, WorkspaceSummary> =>
    http.request(WorkspaceSummary, {
      method: 'POST',
      path: `worker/${encodeURIComponent(code)}`,
      body: {},
      signal,
    });

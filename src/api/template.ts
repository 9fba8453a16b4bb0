import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import { nullable, NoContent } from './codecs';
import type { ApiError, HttpClient } from './http';

/**
 * A template of a workspace (wire reference §2.4 Template). Only the identity is required; the
 * editor reads the other fields with defaults, so that a server leaving one out is not a failure.
 */
export const Template = t.intersection([
  t.type({ id: t.string, name: nullable(t.string) }),
  t.partial({
    description: nullable(t.string),
    audience: nullable(t.string),
    networks: nullable(t.string),
    iso: nullable(t.string),
    guestinfo: nullable(t.string),
    isHidden: nullable(t.boolean),
    isLinked: nullable(t.boolean),
    parentId: nullable(t.string),
    parentName: nullable(t.string),
    replicas: nullable(t.number),
    variant: nullable(t.number),
    workspaceId: nullable(t.string),
    workspaceName: nullable(t.string),
  }),
]);
export type Template = t.TypeOf<typeof Template>;

/** A search result (wire reference §2.4 TemplateSummary). */
export const TemplateSummary = t.intersection([
  t.type({ id: t.string, name: nullable(t.string) }),
  t.partial({
    description: nullable(t.string),
    audience: nullable(t.string),
    workspaceId: nullable(t.string),
    workspaceName: nullable(t.string),
    parentId: nullable(t.string),
    parentName: nullable(t.string),
    isLinked: nullable(t.boolean),
    isPublished: nullable(t.boolean),
    /** Ours, not the wire's: why the hypervisor cannot run it; absent when it can. */
    unavailable: nullable(t.string),
  }),
]);
export type TemplateSummary = t.TypeOf<typeof TemplateSummary>;

const TemplateSummaries = t.array(TemplateSummary);

/** PUT template's body (ChangedTemplate). */
export interface ChangedTemplate {
  id: string;
  name: string;
  description: string;
  networks: string;
  iso: string;
  isHidden: boolean;
  guestinfo: string;
  replicas: number;
  variant: number;
}

/** GET templates?term&filter=published: the published templates matching the term. */
export const searchPublishedTemplates =
  (http: HttpClient) =>
  (term: string, signal: AbortSignal): TE.TaskEither<ApiError, TemplateSummary[]> =>
    http.request(TemplateSummaries, {
      method: 'GET',
      path: withQuery('templates', { term, filter: ['published'] }),
      signal,
    });

/** GET workspace/{id}/templates: unpublished templates the workspace's audience may link. */
export const listScopedTemplates =
  (http: HttpClient) =>
  (workspaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, TemplateSummary[]> =>
    http.request(TemplateSummaries, {
      method: 'GET',
      path: `workspace/${encodeURIComponent(workspaceId)}/templates`,
      signal,
    });

/** PUT template (200 with no body; the hub announces TEMPLATE.UPDATED). */
export const updateTemplate =
  (http: HttpClient) =>
  (changed: ChangedTemplate, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, { method: 'PUT', path: 'template', body: changed, signal });

/** DELETE template/{id}; refused with TemplateHasDescendents while a template derives from it. */
export const deleteTemplate =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, {
      method: 'DELETE',
      path: `template/${encodeURIComponent(id)}`,
      signal,
    });

export interface TemplateLink {
  templateId: string;
  workspaceId: string;
}

/** POST template {templateId, workspaceId}: links the template into the workspace. */
export const linkTemplate =
  (http: HttpClient) =>
  (link: TemplateLink, signal: AbortSignal): TE.TaskEither<ApiError, Template> =>
    http.request(Template, { method: 'POST', path: 'template', body: link, signal });

/** POST template/unlink: the template gets its own copy of its parent's disks. */
export const unlinkTemplate =
  (http: HttpClient) =>
  (link: TemplateLink, signal: AbortSignal): TE.TaskEither<ApiError, Template> =>
    http.request(Template, { method: 'POST', path: 'template/unlink', body: link, signal });

export interface TemplateReLink extends TemplateLink {
  parentId: string;
}

/** POST template/relink: points the template at a sibling revision. */
export const relinkTemplate =
  (http: HttpClient) =>
  (relink: TemplateReLink, signal: AbortSignal): TE.TaskEither<ApiError, Template> =>
    http.request(Template, { method: 'POST', path: 'template/relink', body: relink, signal });

/** GET template/{id}/siblings?pub=true: the published revisions a template may re-link to. */
export const listTemplateSiblings =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, TemplateSummary[]> =>
    http.request(TemplateSummaries, {
      method: 'GET',
      path: withQuery(`template/${encodeURIComponent(id)}/siblings`, { pub: true }),
      signal,
    });

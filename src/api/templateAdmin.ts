import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import { NoContent, nullable } from './codecs';
import type { ApiError, HttpClient } from './http';
import { TemplateSummary } from './template';

// The administrators' template calls (wire reference §1.3): the whole list, a template's detail
// (the VmTemplate JSON it deploys), new stock templates and clones.

/** TemplateDetail (wire reference §2.4); `detail` is VmTemplate JSON text. */
export const TemplateDetail = t.intersection([
  t.type({ id: t.string, name: nullable(t.string) }),
  t.partial({
    description: nullable(t.string),
    audience: nullable(t.string),
    networks: nullable(t.string),
    guestinfo: nullable(t.string),
    detail: nullable(t.string),
    isPublished: nullable(t.boolean),
    isLinked: nullable(t.boolean),
  }),
]);
export type TemplateDetail = t.TypeOf<typeof TemplateDetail>;

/** ChangedTemplateDetail: PUT template-detail's body. */
export interface ChangedTemplateDetail {
  id: string;
  name: string;
  description: string;
  audience: string;
  networks: string;
  guestinfo: string;
  detail: string;
  isPublished: boolean;
}

export interface TemplateSearch {
  term: string;
  filter: readonly string[];
  skip: number;
  take: number;
}

/** GET templates (an administrator gets every template; the term may be a workspace id). */
export const searchTemplates =
  (http: HttpClient) =>
  (search: TemplateSearch, signal: AbortSignal): TE.TaskEither<ApiError, TemplateSummary[]> =>
    http.request(t.array(TemplateSummary), {
      method: 'GET',
      path: withQuery('templates', { ...search }),
      signal,
    });

export const getTemplateDetail =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, TemplateDetail> =>
    http.request(TemplateDetail, {
      method: 'GET',
      path: `template-detail/${encodeURIComponent(id)}`,
      signal,
    });

/** PUT template-detail (200 with no body). */
export const updateTemplateDetail =
  (http: HttpClient) =>
  (changed: ChangedTemplateDetail, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, { method: 'PUT', path: 'template-detail', body: changed, signal });

/** POST template-detail: a new stock template, with the default detail. */
export const createStockTemplate =
  (http: HttpClient) =>
  (name: string, signal: AbortSignal): TE.TaskEither<ApiError, TemplateDetail> =>
    http.request(TemplateDetail, {
      method: 'POST',
      path: 'template-detail',
      body: { name },
      signal,
    });

/** POST template/clone: an unpublished, unlinked copy beside the template, as its child. */
export const cloneTemplate =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, TemplateDetail> =>
    http.request(TemplateDetail, {
      method: 'POST',
      path: 'template/clone',
      body: { id },
      signal,
    });

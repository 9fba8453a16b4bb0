import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { fromTaskEither } from '../api/actor';
import type { HttpClient } from '../api/http';
import type { TemplateSummary } from '../api/template';
import {
  cloneTemplate,
  createStockTemplate,
  getTemplateDetail,
  searchTemplates,
  updateTemplateDetail,
  type TemplateDetail,
} from '../api/templateAdmin';
import type { PageQuery } from '../machines/pagedSearchMachine';
import {
  templateDetailMachine,
  type LoadedTemplateDetail,
  type TemplateDetailValues,
} from '../machines/templateDetailMachine';
import {
  templateListSearchMachine,
  templateManagerMachine,
  type TemplateRow,
} from '../machines/templateManagerMachine';

/** The name a new stock template starts with; the admin renames it in its form. */
export const NEW_STOCK_TEMPLATE_NAME = 'new-template';

export const toTemplateRow = (t: TemplateSummary): TemplateRow => ({
  id: t.id,
  name: t.name ?? '',
  workspaceId: t.workspaceId ?? null,
  workspaceName: t.workspaceName ?? null,
  parentName: t.parentName ?? null,
  isLinked: !!t.isLinked,
  isPublished: !!t.isPublished,
  ...(t.unavailable ? { unavailable: t.unavailable } : {}),
});

export const toLoadedDetail = (d: TemplateDetail): LoadedTemplateDetail => ({
  id: d.id,
  name: d.name ?? '',
  description: d.description ?? '',
  audience: d.audience ?? '',
  networks: d.networks ?? '',
  guestinfo: d.guestinfo ?? '',
  detail: d.detail ?? '',
  isPublished: !!d.isPublished,
  isLinked: !!d.isLinked,
});

/** The admin template manager with its effects (admin/templates). */
export function templateManagerLogic(http: HttpClient) {
  return templateManagerMachine.provide({
    actors: {
      templateSearch: templateListSearchMachine.provide({
        actors: {
          fetchPage: fromTaskEither((query: PageQuery, signal) =>
            pipe(
              searchTemplates(http)(query, signal),
              TE.map((list) => list.map(toTemplateRow)),
            ),
          ),
        },
      }),
      templateDetail: templateDetailMachine.provide({
        actors: {
          loadDetail: fromTaskEither(({ id }: { id: string }, signal) =>
            pipe(getTemplateDetail(http)(id, signal), TE.map(toLoadedDetail)),
          ),
          saveDetail: fromTaskEither(
            ({ id, values }: { id: string; values: TemplateDetailValues }, signal) =>
              updateTemplateDetail(http)({ id, ...values }, signal),
          ),
        },
      }),
      createTemplate: fromTaskEither((_: void, signal) =>
        pipe(
          createStockTemplate(http)(NEW_STOCK_TEMPLATE_NAME, signal),
          TE.map((d) => d.id),
        ),
      ),
      cloneTemplate: fromTaskEither(({ id }: { id: string }, signal) =>
        pipe(
          cloneTemplate(http)(id, signal),
          TE.map((d) => d.id),
        ),
      ),
    },
  });
}

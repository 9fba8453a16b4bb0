import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { EMPTY, filter, map, mergeMap, type Observable } from 'rxjs';
import { fromEventObservable } from 'xstate';
import { fromTaskEither } from '../api/actor';
import type { ApiError, HttpClient } from '../api/http';
import {
  deleteTemplate,
  linkTemplate,
  listScopedTemplates,
  listTemplateSiblings,
  relinkTemplate,
  searchPublishedTemplates,
  Template,
  type TemplateSummary,
  unlinkTemplate,
  updateTemplate,
} from '../api/template';
import { endWorkspaceGames, listWorkspaceIsos } from '../api/workspace';
import { gamespaceCleanupMachine } from '../machines/gamespaceCleanupMachine';
import { isoChooserMachine } from '../machines/isoChooserMachine';
import { templateActionsMachine } from '../machines/templateActionsMachine';
import { templateEditorMachine } from '../machines/templateEditorMachine';
import { templateListMachine, type TemplateListHubEvent } from '../machines/templateListMachine';
import { templateSelectorMachine } from '../machines/templateSelectorMachine';
import { decodedModel, templateEvents$, type HubEventSource } from '../streams/hub';
import { autosaveLogic } from './autosaveImplementations';
import { templateVmLogic, type VmControllerDependencies } from './vmControllerImplementations';

// The workspace editor's Templates section: its list, following the hub, and each template's
// editor with its actions, machine and ISO; one logic builder per child machine.

/** TEMPLATE.ADDED, UPDATED and REMOVED of one workspace's templates, validated. */
export const workspaceTemplateEvents$ = (
  source: HubEventSource,
  workspaceId: string,
): Observable<TemplateListHubEvent> =>
  templateEvents$(source).pipe(
    mergeMap((event) =>
      event.type === 'template.messaged'
        ? EMPTY
        : decodedModel(
            Template,
            'template',
          )(event.model).pipe(
            filter((template) => template.workspaceId === workspaceId),
            map((template): TemplateListHubEvent =>
              event.type === 'template.removed'
                ? { type: 'template.removed', templateId: template.id }
                : { type: event.type, template },
            ),
          ),
    ),
  );

/** A template's unlink, relink and delete. */
const templateActionsLogic = (http: HttpClient) =>
  templateActionsMachine.provide({
    actors: {
      unlinkTemplate: fromTaskEither(unlinkTemplate(http)),
      listSiblings: fromTaskEither(({ templateId }: { templateId: string }, signal) =>
        listTemplateSiblings(http)(templateId, signal),
      ),
      relinkTemplate: fromTaskEither(relinkTemplate(http)),
      deleteTemplate: fromTaskEither(({ templateId }: { templateId: string }, signal) =>
        deleteTemplate(http)(templateId, signal),
      ),
    },
  });

/** The ISOs a template may attach: the workspace's own or all. */
const isoChooserLogic = (http: HttpClient) =>
  isoChooserMachine.provide({
    actors: {
      listIsos: fromTaskEither(
        (
          { workspaceId, term, local }: { workspaceId: string; term: string; local: boolean },
          signal,
        ) => listWorkspaceIsos(http)(workspaceId, { term, local }, signal),
      ),
    },
  });

/** One template's editor: its form, its actions, its machine and its ISO. */
function templateEditorLogic(deps: VmControllerDependencies) {
  const { http } = deps;
  return templateEditorMachine.provide({
    actors: {
      form: autosaveLogic(updateTemplate(http)),
      actions: templateActionsLogic(http),
      vmController: templateVmLogic(deps),
      isoChooser: isoChooserLogic(http),
    },
  });
}

/** Adding a template: the published ones and those of the workspace's audience, then linking. */
const templateSelectorLogic = (http: HttpClient) =>
  templateSelectorMachine.provide({
    actors: {
      // The audience-scoped list is a complement: without it the published list still
      // serves, so its failure is not the search's.
      searchTemplates: fromTaskEither(
        ({ workspaceId, term }: { workspaceId: string; term: string }, signal) =>
          pipe(
            TE.Do,
            TE.apS('published', searchPublishedTemplates(http)(term, signal)),
            TE.apS(
              'scoped',
              pipe(
                listScopedTemplates(http)(workspaceId, signal),
                TE.orElse(() => TE.right<ApiError, TemplateSummary[]>([])),
              ),
            ),
            TE.map(({ published, scoped }) => ({ published, scoped })),
          ),
      ),
      linkTemplate: fromTaskEither(linkTemplate(http)),
    },
  });

/** Ending the workspace's games before its templates change. */
const gamespaceCleanupLogic = (http: HttpClient) =>
  gamespaceCleanupMachine.provide({
    actors: {
      endGamespaces: fromTaskEither(({ workspaceId }: { workspaceId: string }, signal) =>
        pipe(
          endWorkspaceGames(http)(workspaceId, signal),
          TE.map((stats): unknown => stats),
        ),
      ),
    },
  });

/** The Templates section: the list, following the hub, and its editors. */
export function templateListLogic(deps: VmControllerDependencies) {
  const { http, hubEvents } = deps;
  return templateListMachine.provide({
    actors: {
      templateEvents: fromEventObservable<TemplateListHubEvent, { workspaceId: string }>(
        ({ input }) => workspaceTemplateEvents$(hubEvents, input.workspaceId),
      ),
      templateEditor: templateEditorLogic(deps),
      templateSelector: templateSelectorLogic(http),
      gamespaceCleanup: gamespaceCleanupLogic(http),
    },
  });
}

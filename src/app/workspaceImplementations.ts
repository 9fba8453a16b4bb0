import * as E from 'fp-ts/Either';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import type * as t from 'io-ts';
import { EMPTY, filter, map, merge, mergeMap, of, type Observable } from 'rxjs';
import { fromCallback, fromEventObservable, type EventObject } from 'xstate';
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
import { getChallenge, saveChallenge } from '../api/challenge';
import { deleteIso, getIsoUsage } from '../api/files';
import type { IsoUploader } from '../api/isoUpload';
import {
  changeVmState,
  deployTemplate,
  getTemplateMachine,
  initializeTemplate,
  loadVm,
} from '../api/vm';
import {
  cloneWorkspace,
  deleteWorkspace,
  endWorkspaceGames,
  generateWorkspaceInvitation,
  getWorkspace,
  listWorkspaceIsos,
  removeWorker,
  updateWorkspace,
  Workspace,
} from '../api/workspace';
import { autosaveFormMachine } from '../machines/autosaveFormMachine';
import { challengeFormMachine } from '../machines/challengeFormMachine';
import { collaboratorsMachine } from '../machines/collaboratorsMachine';
import { gamespaceCleanupMachine } from '../machines/gamespaceCleanupMachine';
import type { HubConnectionActorRef } from '../machines/hubConnectionMachine';
import { selectIsHubConnected } from '../machines/hubConnectionMachine.selectors';
import { invitationMachine } from '../machines/invitationMachine';
import { isoChooserMachine } from '../machines/isoChooserMachine';
import { isoFilesMachine } from '../machines/isoFilesMachine';
import { uploadMachine, type UploadEvent } from '../machines/uploadMachine';
import { uploadQueueMachine } from '../machines/uploadQueueMachine';
import { presenceMachine, type PresenceSourceEvent } from '../machines/presenceMachine';
import { templateActionsMachine } from '../machines/templateActionsMachine';
import { templateEditorMachine } from '../machines/templateEditorMachine';
import { templateListMachine, type TemplateListHubEvent } from '../machines/templateListMachine';
import { templateSelectorMachine } from '../machines/templateSelectorMachine';
import { vmActionsMachine } from '../machines/vmActionsMachine';
import { vmControllerMachine, type VmControllerEvent } from '../machines/vmControllerMachine';
import { vmLoadMachine } from '../machines/vmLoadMachine';
import { vmRequestMachine } from '../machines/vmRequestMachine';
import { workspaceActionsMachine } from '../machines/workspaceActionsMachine';
import type {
  WorkspaceTopoEvent,
  workspaceEditorMachine,
} from '../machines/workspaceEditorMachine';
import { workspaceSettingsMachine } from '../machines/workspaceSettingsMachine';
import {
  documentEvents$,
  hubDisconnections$,
  presenceEvents$,
  snapshots$,
  templateEvents$,
  topoEvents$,
  vmEvents$,
  type HubEventSource,
} from '../streams/hub';
import { documentEditorImplementation } from './documentImplementations';
import type { HubAdapter } from './hub';
import type { LocalSettingsStore } from './localSettings';

export type WorkspaceEditorImplementations = Parameters<typeof workspaceEditorMachine.provide>[0];

/** What the workspace editor's effects are made of; the app builds each once (src/app/main.tsx). */
export interface WorkspaceDependencies {
  http: HttpClient;
  /** Where the workspace's document files are served from (settings.json's apphost). */
  apphost: string;
  hub: HubConnectionActorRef;
  /** Server events of the hub connection, whichever connection is open. */
  hubEvents: HubEventSource;
  local: LocalSettingsStore;
  navigate: (to: string) => void;
  /** navigator.clipboard in the browser. */
  clipboard: Pick<Clipboard, 'writeText'>;
  /** Invokes a hub method and waits for the server's completion (the document's Edited). */
  hubInvoke: HubAdapter['invoke'];
  /** Sends an ISO file with its progress (src/api/files.ts). */
  uploadIso: IsoUploader;
  /** The user cloned or deleted a workspace: the sidebar's workspace lists refresh. */
  announceWorkspacesChanged: () => void;
}

/** A hub model decoded as a DTO; one that does not match is dropped, with a warning. */
const decoded =
  <A>(codec: t.Decoder<unknown, A>, what: string) =>
  (model: unknown): Observable<A> =>
    pipe(
      codec.decode(model),
      E.match(
        () => {
          console.warn(`hub: dropped a ${what} that does not match its shape`);
          return EMPTY;
        },
        (value) => of(value),
      ),
    );

/** TOPO.UPDATED and TOPO.DELETED of one workspace, the updated workspace validated. */
export const workspaceTopoEvents$ = (
  source: HubEventSource,
  workspaceId: string,
): Observable<WorkspaceTopoEvent> =>
  topoEvents$(source).pipe(
    // The user channel's own actions (added, removed) are for the workspace list, not the editor.
    filter(
      (event) =>
        event.model.id === workspaceId &&
        (event.type === 'topo.updated' || event.type === 'topo.deleted'),
    ),
    mergeMap((event) =>
      event.type === 'topo.deleted'
        ? of<WorkspaceTopoEvent>({ type: 'topo.deleted', by: event.actor.name })
        : decoded(
            Workspace,
            'workspace',
          )(event.model).pipe(
            map((workspace): WorkspaceTopoEvent => ({ type: 'topo.updated', workspace })),
          ),
    ),
  );

/** TEMPLATE.ADDED, UPDATED and REMOVED of one workspace's templates, validated. */
export const workspaceTemplateEvents$ = (
  source: HubEventSource,
  workspaceId: string,
): Observable<TemplateListHubEvent> =>
  templateEvents$(source).pipe(
    mergeMap((event) =>
      event.type === 'template.messaged'
        ? EMPTY
        : decoded(
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

/**
 * The hub's VmEvents as the machine controller reads them; each controller keeps those of its own
 * machine (or VM.DEPLOY of its template).
 */
export const vmAnnouncements$ = (source: HubEventSource): Observable<VmControllerEvent> =>
  vmEvents$(source).pipe(
    map((event): VmControllerEvent => ({
      type: 'vm.announced',
      kind: event.type,
      modelId: event.model.id,
    })),
  );

/** Opens a page in a new browser tab (the machine console). */
const openTab = (url: string) => {
  window.open(url, '_blank');
};

/**
 * The effects of the workspace editor and its sections. This module loads with the workspace
 * route, not with the first page.
 */
export function workspaceEditorImplementations(
  deps: WorkspaceDependencies,
): WorkspaceEditorImplementations {
  const { http, hub, hubEvents, local, navigate, clipboard, uploadIso } = deps;
  const toWorkspace = (id: string) => `/topo/${encodeURIComponent(id)}/settings`;

  return {
    actors: {
      loadWorkspace: fromTaskEither(({ id }: { id: string }, signal) =>
        getWorkspace(http)(id, signal),
      ),
      topoEvents: fromEventObservable<WorkspaceTopoEvent, { workspaceId: string }>(({ input }) =>
        workspaceTopoEvents$(hubEvents, input.workspaceId),
      ),
      listenToChannel: fromCallback<EventObject, { channelId: string }>(({ input }) => {
        hub.send({ type: 'hub.listenRequested', channelId: input.channelId });
        return () => hub.send({ type: 'hub.leaveRequested', channelId: input.channelId });
      }),
      presence: presenceMachine.provide({
        actors: {
          hubEvents: fromEventObservable<PresenceSourceEvent, { channelId: string }>(() =>
            merge(
              presenceEvents$(hubEvents),
              documentEvents$(hubEvents),
              hubDisconnections$(snapshots$(hub).pipe(map(selectIsHubConnected))),
            ),
          ),
        },
        actions: {
          greet: ({ context }) =>
            hub.send({ type: 'hub.invokeRequested', method: 'Greet', args: [context.channelId] }),
        },
      }),
      settings: workspaceSettingsMachine.provide({
        actors: {
          form: autosaveFormMachine.provide({
            actors: { save: fromTaskEither(updateWorkspace(http)) },
          }),
        },
      }),
      collaborators: collaboratorsMachine.provide({
        actors: {
          removeWorker: fromTaskEither(
            ({ workspaceId, subjectId }: { workspaceId: string; subjectId: string }, signal) =>
              removeWorker(http)(workspaceId, subjectId, signal),
          ),
        },
      }),
      invitation: invitationMachine.provide({
        actors: {
          generateInvitation: fromTaskEither(({ workspaceId }: { workspaceId: string }, signal) =>
            pipe(
              generateWorkspaceInvitation(http)(workspaceId, signal),
              TE.map(({ code }) => ({ code })),
            ),
          ),
          copyToClipboard: fromTaskEither(({ text }: { text: string }) =>
            TE.tryCatch(
              () => clipboard.writeText(text),
              (error) => ({ status: 0, message: String(error) }),
            ),
          ),
        },
      }),
      document: documentEditorImplementation(deps),
      workspaceActions: workspaceActionsMachine.provide({
        actors: {
          cloneWorkspace: fromTaskEither(({ workspaceId }: { workspaceId: string }, signal) =>
            pipe(
              cloneWorkspace(http)(workspaceId, signal),
              TE.map((copy) => ({ id: copy.id })),
            ),
          ),
          deleteWorkspace: fromTaskEither(({ workspaceId }: { workspaceId: string }, signal) =>
            deleteWorkspace(http)(workspaceId, signal),
          ),
        },
        actions: {
          navigateToWorkspace: (_, { workspaceId }) => navigate(toWorkspace(workspaceId)),
          navigateHome: () => navigate('/'),
          announceWorkspacesChanged: deps.announceWorkspacesChanged,
        },
      }),
      templates: templateListMachine.provide({
        actors: {
          templateEvents: fromEventObservable<TemplateListHubEvent, { workspaceId: string }>(
            ({ input }) => workspaceTemplateEvents$(hubEvents, input.workspaceId),
          ),
          templateEditor: templateEditorMachine.provide({
            actors: {
              form: autosaveFormMachine.provide({
                actors: { save: fromTaskEither(updateTemplate(http)) },
              }),
              actions: templateActionsMachine.provide({
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
              }),
              vmController: vmControllerMachine.provide({
                actors: {
                  vmLoad: vmLoadMachine.provide({
                    actors: {
                      loadTemplateMachine: fromTaskEither(
                        ({ templateId }: { templateId: string }, signal) =>
                          getTemplateMachine(http)(templateId, signal),
                      ),
                      loadVm: fromTaskEither(({ id }: { id: string }, signal) =>
                        loadVm(http)(id, signal),
                      ),
                    },
                  }),
                  vmActions: vmActionsMachine.provide({
                    actors: {
                      vmRequest: vmRequestMachine.provide({
                        actors: {
                          initializeTemplate: fromTaskEither(
                            ({ templateId }: { templateId: string }, signal) =>
                              initializeTemplate(http)(templateId, signal),
                          ),
                          deployTemplate: fromTaskEither(
                            ({ templateId }: { templateId: string }, signal) =>
                              deployTemplate(http)(templateId, signal),
                          ),
                          changeVmState: fromTaskEither(changeVmState(http)),
                        },
                      }),
                    },
                  }),
                  vmEvents: fromEventObservable(() => vmAnnouncements$(hubEvents)),
                },
                actions: { openConsole: (_, { url }) => openTab(url) },
              }),
              isoChooser: isoChooserMachine.provide({
                actors: {
                  listIsos: fromTaskEither(
                    (
                      {
                        workspaceId,
                        term,
                        local,
                      }: { workspaceId: string; term: string; local: boolean },
                      signal,
                    ) => listWorkspaceIsos(http)(workspaceId, { term, local }, signal),
                  ),
                },
              }),
            },
          }),
          templateSelector: templateSelectorMachine.provide({
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
          }),
          gamespaceCleanup: gamespaceCleanupMachine.provide({
            actors: {
              endGamespaces: fromTaskEither(({ workspaceId }: { workspaceId: string }, signal) =>
                pipe(
                  endWorkspaceGames(http)(workspaceId, signal),
                  TE.map((stats): unknown => stats),
                ),
              ),
            },
          }),
        },
      }),
      challenge: challengeFormMachine.provide({
        actors: {
          loadChallenge: fromTaskEither(({ workspaceId }: { workspaceId: string }, signal) =>
            getChallenge(http)(workspaceId, signal),
          ),
          form: autosaveFormMachine.provide({
            actors: { save: fromTaskEither(saveChallenge(http)) },
          }),
        },
      }),
      files: isoFilesMachine.provide({
        actors: {
          listIsos: fromTaskEither(({ workspaceId }: { workspaceId: string }, signal) =>
            listWorkspaceIsos(http)(workspaceId, { term: '', local: true }, signal),
          ),
          loadIsoUsage: fromTaskEither(
            ({ workspaceId, path }: { workspaceId: string; path: string }, signal) =>
              getIsoUsage(http)(workspaceId, path, signal),
          ),
          deleteIso: fromTaskEither(
            ({ workspaceId, path }: { workspaceId: string; path: string }, signal) =>
              deleteIso(http)(workspaceId, path, signal),
          ),
          uploads: uploadQueueMachine.provide({
            actors: {
              upload: uploadMachine.provide({
                actors: {
                  sendFile: fromCallback<UploadEvent, { file: File; groupKey: string }>(
                    ({ input, sendBack }) => {
                      const controller = new AbortController();
                      void uploadIso(
                        input.file,
                        input.groupKey,
                        (percent) => sendBack({ type: 'upload.progressed', percent }),
                        controller.signal,
                      )().then((result) => {
                        if (controller.signal.aborted) return;
                        sendBack(
                          E.isRight(result)
                            ? { type: 'upload.succeeded' }
                            : { type: 'upload.failed', error: result.left },
                        );
                      });
                      return () => controller.abort();
                    },
                  ),
                },
              }),
            },
          }),
        },
      }),
    },
    actions: { forgetLastPage: () => local.forgetLast() },
  };
}

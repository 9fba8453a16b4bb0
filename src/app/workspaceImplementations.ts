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
  type HubEventSource,
} from '../streams/hub';
import { documentEditorImplementation } from './documentImplementations';
import type { HubAdapter } from './hub';
import type { LocalSettingsStore } from './localSettings';
import { templateVmLogic } from './vmControllerImplementations';

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

/** The hub channel of `channelId`, listened to while the invoking state lasts. */
const listenToChannelLogic = (hub: HubConnectionActorRef) =>
  fromCallback<EventObject, { channelId: string }>(({ input }) => {
    hub.send({ type: 'hub.listenRequested', channelId: input.channelId });
    return () => hub.send({ type: 'hub.leaveRequested', channelId: input.channelId });
  });

/** A form that saves itself with `save`. */
const autosaveLogic = <I, O>(save: (input: I, signal: AbortSignal) => TE.TaskEither<ApiError, O>) =>
  autosaveFormMachine.provide({ actors: { save: fromTaskEither(save) } });

/** Who else is in the workspace: the hub's presence and document events, and Greet. */
function presenceLogic({ hub, hubEvents }: WorkspaceDependencies) {
  return presenceMachine.provide({
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
  });
}

/** The Settings section: the workspace's form, saved with PUT workspace. */
const settingsLogic = (http: HttpClient) =>
  workspaceSettingsMachine.provide({ actors: { form: autosaveLogic(updateWorkspace(http)) } });

/** The workspace's collaborators. */
const collaboratorsLogic = (http: HttpClient) =>
  collaboratorsMachine.provide({
    actors: {
      removeWorker: fromTaskEither(
        ({ workspaceId, subjectId }: { workspaceId: string; subjectId: string }, signal) =>
          removeWorker(http)(workspaceId, subjectId, signal),
      ),
    },
  });

/** The workspace's invitation code, generated and copied. */
function invitationLogic({ http, clipboard }: WorkspaceDependencies) {
  return invitationMachine.provide({
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
  });
}

/** Cloning and deleting the workspace, then the copy's page or home. */
function workspaceActionsLogic({
  http,
  navigate,
  announceWorkspacesChanged,
}: WorkspaceDependencies) {
  const toWorkspace = (id: string) => `/topo/${encodeURIComponent(id)}/settings`;
  return workspaceActionsMachine.provide({
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
      announceWorkspacesChanged,
    },
  });
}

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
function templateEditorLogic(deps: WorkspaceDependencies) {
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
function templateListLogic(deps: WorkspaceDependencies) {
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

/** The Challenge section: loaded, then saved as the author writes. */
const challengeFormLogic = (http: HttpClient) =>
  challengeFormMachine.provide({
    actors: {
      loadChallenge: fromTaskEither(({ workspaceId }: { workspaceId: string }, signal) =>
        getChallenge(http)(workspaceId, signal),
      ),
      form: autosaveLogic(saveChallenge(http)),
    },
  });

/** ISO uploads one at a time, each with its progress; leaving one aborts it. */
const uploadQueueLogic = (uploadIso: IsoUploader) =>
  uploadQueueMachine.provide({
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
  });

/** The Files section: the workspace's ISOs, where they are used, deletes and uploads. */
function isoFilesLogic({ http, uploadIso }: WorkspaceDependencies) {
  return isoFilesMachine.provide({
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
      uploads: uploadQueueLogic(uploadIso),
    },
  });
}

/**
 * The effects of the workspace editor and its sections, one logic builder a child machine. This
 * module loads with the workspace route, not with the first page.
 */
export function workspaceEditorImplementations(
  deps: WorkspaceDependencies,
): WorkspaceEditorImplementations {
  const { http, hub, hubEvents, local } = deps;
  return {
    actors: {
      loadWorkspace: fromTaskEither(({ id }: { id: string }, signal) =>
        getWorkspace(http)(id, signal),
      ),
      topoEvents: fromEventObservable<WorkspaceTopoEvent, { workspaceId: string }>(({ input }) =>
        workspaceTopoEvents$(hubEvents, input.workspaceId),
      ),
      listenToChannel: listenToChannelLogic(hub),
      presence: presenceLogic(deps),
      settings: settingsLogic(http),
      collaborators: collaboratorsLogic(http),
      invitation: invitationLogic(deps),
      document: documentEditorImplementation(deps),
      workspaceActions: workspaceActionsLogic(deps),
      templates: templateListLogic(deps),
      challenge: challengeFormLogic(http),
      files: isoFilesLogic(deps),
    },
    actions: { forgetLastPage: () => local.forgetLast() },
  };
}

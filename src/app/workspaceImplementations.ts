import * as E from 'fp-ts/Either';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { filter, map, merge, mergeMap, of, type Observable } from 'rxjs';
import { fromCallback, fromEventObservable, type EventObject } from 'xstate';
import { fromTaskEither } from '../api/actor';
import type { HttpClient } from '../api/http';
import { getChallenge, saveChallenge } from '../api/challenge';
import { deleteIso, getIsoUsage } from '../api/files';
import type { IsoUploader } from '../api/isoUpload';
import {
  cloneWorkspace,
  deleteWorkspace,
  generateWorkspaceInvitation,
  getWorkspace,
  listWorkspaceIsos,
  removeWorker,
  updateWorkspace,
  Workspace,
} from '../api/workspace';
import { challengeFormMachine } from '../machines/challengeFormMachine';
import { collaboratorsMachine } from '../machines/collaboratorsMachine';
import type { HubConnectionActorRef } from '../machines/hubConnectionMachine';
import { selectIsHubConnected } from '../machines/hubConnectionMachine.selectors';
import { invitationMachine } from '../machines/invitationMachine';
import { isoFilesMachine } from '../machines/isoFilesMachine';
import { uploadMachine, type UploadEvent } from '../machines/uploadMachine';
import { uploadQueueMachine } from '../machines/uploadQueueMachine';
import { presenceMachine, type PresenceSourceEvent } from '../machines/presenceMachine';
import { workspaceActionsMachine } from '../machines/workspaceActionsMachine';
import type {
  WorkspaceTopoEvent,
  workspaceEditorMachine,
} from '../machines/workspaceEditorMachine';
import { workspaceSettingsMachine } from '../machines/workspaceSettingsMachine';
import {
  decodedModel,
  documentEvents$,
  hubDisconnections$,
  presenceEvents$,
  snapshots$,
  topoEvents$,
  type HubEventSource,
} from '../streams/hub';
import { autosaveLogic } from './autosaveImplementations';
import { documentEditorImplementation } from './documentImplementations';
import type { HubAdapter } from './hub';
import type { LocalSettingsStore } from './localSettings';
import { templateListLogic } from './templateListImplementations';

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
        : decodedModel(
            Workspace,
            'workspace',
          )(event.model).pipe(
            map((workspace): WorkspaceTopoEvent => ({ type: 'topo.updated', workspace })),
          ),
    ),
  );

/** The hub channel of `channelId`, listened to while the invoking state lasts. */
const listenToChannelLogic = (hub: HubConnectionActorRef) =>
  fromCallback<EventObject, { channelId: string }>(({ input }) => {
    hub.send({ type: 'hub.listenRequested', channelId: input.channelId });
    return () => hub.send({ type: 'hub.leaveRequested', channelId: input.channelId });
  });

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

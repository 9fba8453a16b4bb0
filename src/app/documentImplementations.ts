import { pipe } from 'fp-ts/function';
import * as TE from 'fp-ts/TaskEither';
import {
  distinctUntilChanged,
  EMPTY,
  filter,
  map,
  merge,
  mergeMap,
  of,
  pairwise,
  type Observable,
} from 'rxjs';
import { fromEventObservable, fromPromise } from 'xstate';
import { fromTaskEither } from '../api/actor';
import { getDocumentCrdt, saveDocument } from '../api/document';
import type { ApiError, HttpClient } from '../api/http';
import { isCrdtChanges } from '../domain/coedit';
import { documentCursorsMachine } from '../machines/documentCursorsMachine';
import { documentEditorMachine, type DocumentSourceEvent } from '../machines/documentEditorMachine';
import { documentLogMachine } from '../machines/documentLogMachine';
import { documentOutboxMachine } from '../machines/documentOutboxMachine';
import type { HubConnectionActorRef } from '../machines/hubConnectionMachine';
import { selectIsChannelJoined } from '../machines/hubConnectionMachine.selectors';
import { documentEvents$, snapshots$, type HubEventSource } from '../streams/hub';
import type { HubAdapter } from './hub';
import { imageManagerLogic } from './imageImplementations';

/**
 * The workspace channel's DocumentEvents as the document editor reads them: our Yjs updates
 * (reference change records are dropped: they cannot be merged), saves, cursors, and each time
 * the channel is joined again after it was not (updates sent meanwhile never reached us).
 */
export const workspaceDocumentEvents$ = (
  source: HubEventSource,
  joined: Observable<boolean>,
): Observable<DocumentSourceEvent> =>
  merge(
    documentEvents$(source).pipe(
      mergeMap((event): Observable<DocumentSourceEvent> => {
        switch (event.type) {
          case 'document.updated':
            return isCrdtChanges(event.changes)
              ? of({ type: 'document.updatedRemotely', update: event.changes.update })
              : EMPTY;
          case 'document.saved':
            return of({
              type: 'document.savedRemotely',
              text: event.text,
              timestamp: event.timestamp,
            });
          case 'document.cursorChanged':
            return of({
              type: 'document.cursorMovedRemotely',
              actorId: event.actor.id,
              name: event.actor.name,
              positions: event.positions,
            });
          default:
            return EMPTY;
        }
      }),
    ),
    joined.pipe(
      distinctUntilChanged(),
      pairwise(),
      filter(([was, is]) => !was && is),
      map((): DocumentSourceEvent => ({ type: 'hub.reconnected' })),
    ),
  );

export interface DocumentDependencies {
  http: HttpClient;
  /** Where the document's files are served from (settings.json's apphost). */
  apphost: string;
  hub: HubConnectionActorRef;
  hubEvents: HubEventSource;
  /** Invokes a hub method and waits for the server (src/app/hub.ts). */
  hubInvoke: HubAdapter['invoke'];
}

/** The Document tab's effects (the co-editing contract) and its image manager's. */
export function documentEditorImplementation({
  http,
  apphost,
  hub,
  hubEvents,
  hubInvoke,
}: DocumentDependencies) {
  const sendEdits = async (workspaceId: string, update: string) => {
    await hubInvoke('Edited', workspaceId, { crdt: 'yjs', update });
  };
  return documentEditorMachine.provide({
    actors: {
      documentEvents: fromEventObservable<DocumentSourceEvent, { workspaceId: string }>(
        ({ input }) =>
          workspaceDocumentEvents$(
            hubEvents,
            snapshots$(hub).pipe(map(selectIsChannelJoined(input.workspaceId))),
          ),
      ),
      log: documentLogMachine.provide({
        actors: {
          loadCrdt: fromTaskEither(({ workspaceId }: { workspaceId: string }, signal) =>
            getDocumentCrdt(http)(workspaceId, signal),
          ),
        },
      }),
      outbox: documentOutboxMachine.provide({
        actors: {
          sendEdits: fromPromise<void, { workspaceId: string; update: string }>(({ input }) =>
            sendEdits(input.workspaceId, input.update),
          ),
          // The log is the truth: the server writes its text, so our edits must be in it first.
          saveDocument: fromTaskEither(
            (
              {
                workspaceId,
                update,
                text,
              }: { workspaceId: string; update: string | null; text: string },
              signal,
            ) =>
              pipe(
                update === null
                  ? TE.right<ApiError, void>(undefined)
                  : TE.tryCatch(
                      () => sendEdits(workspaceId, update),
                      (error): ApiError => ({
                        status: 0,
                        message: error instanceof Error ? error.message : String(error),
                      }),
                    ),
                TE.chain(() => saveDocument(http)({ workspaceId, text }, signal)),
                TE.map((): void => undefined),
              ),
          ),
        },
      }),
      cursors: documentCursorsMachine.provide({
        actions: {
          broadcastCursor: (_, { workspaceId, cursor }) =>
            hub.send({
              type: 'hub.invokeRequested',
              method: 'CursorChanged',
              args: [workspaceId, cursor],
            }),
        },
      }),
      images: imageManagerLogic(http, apphost),
    },
  });
}

import type {
  DocumentEditorActorRef,
  DocumentEditorSnapshot,
  RemoteCursor,
} from './documentEditorMachine';
import { LOADING_MESSAGE } from './documentEditorMachine';
import type { WorkspaceEditorSnapshot } from './workspaceEditorMachine';

/** The workspace editor's Document tab, once the workspace has loaded. */
export const selectDocumentEditor = (
  snapshot: WorkspaceEditorSnapshot,
): DocumentEditorActorRef | null =>
  (snapshot.children as Record<string, unknown>).document !== undefined
    ? ((snapshot.children as Record<string, unknown>).document as DocumentEditorActorRef)
    : null;

/** The shared text as of the last change (the Preview shows it). */
export const selectDocumentText = (snapshot: DocumentEditorSnapshot): string =>
  snapshot.context.text;

/** The editor refuses typing: the document is loading, or the writable delay has not passed. */
export const selectIsReadOnly = (snapshot: DocumentEditorSnapshot): boolean =>
  !snapshot.hasTag('writable');

/** What the read-only editor says to someone typing (spec §2: 'Loading document...'). */
export const selectReadOnlyMessage = (snapshot: DocumentEditorSnapshot): string | null =>
  snapshot.hasTag('writable') ? null : LOADING_MESSAGE;

export const selectIsDocumentLoading = (snapshot: DocumentEditorSnapshot): boolean =>
  snapshot.hasTag('loading');

/** The saved indicator flashes (spec §4: 4 s after a save). */
export const selectIsSaved = (snapshot: DocumentEditorSnapshot): boolean =>
  snapshot.hasTag('saved');

export const selectIsSaving = (snapshot: DocumentEditorSnapshot): boolean =>
  snapshot.hasTag('saving');

/** A save failed; the text is kept and the save is retried. */
export const selectIsUnsaved = (snapshot: DocumentEditorSnapshot): boolean =>
  snapshot.hasTag('unsaved');

export const selectCanSave = (snapshot: DocumentEditorSnapshot): boolean =>
  snapshot.hasTag('writable') && snapshot.can({ type: 'document.saveRequested' });

const NO_CURSORS: RemoteCursor[] = [];

/** Other people's cursors; a stable array until one of them moves. */
export const selectRemoteCursors = (() => {
  let last: Record<string, RemoteCursor> | null = null;
  let shown = NO_CURSORS;
  return (snapshot: DocumentEditorSnapshot): RemoteCursor[] => {
    const cursors = snapshot.context.remoteCursors;
    if (cursors !== last) {
      last = cursors;
      shown = Object.values(cursors);
    }
    return shown;
  };
})();

import type {
  DocumentCursorsActorRef,
  DocumentCursorsSnapshot,
  RemoteCursor,
} from './documentCursorsMachine';
import type { DocumentEditorActorRef, DocumentEditorSnapshot } from './documentEditorMachine';
import { LOADING_MESSAGE } from './documentEditorMachine';
import type { DocumentOutboxActorRef, DocumentOutboxSnapshot } from './documentOutboxMachine';
import type { ImageManagerActorRef } from './imageManagerMachine';
import type { WorkspaceEditorSnapshot } from './workspaceEditorMachine';
import { placeholdersIn } from '../domain/transforms';

// The document editor's children hold the rest: the save indicator is its outbox's
// (DocumentOutboxSnapshot), the other authors' cursors its cursors' (DocumentCursorsSnapshot).

/** The workspace editor's Document tab, once the workspace has loaded. */
export const selectDocumentEditor = (
  snapshot: WorkspaceEditorSnapshot,
): DocumentEditorActorRef | null =>
  (snapshot.children as Record<string, unknown>).document !== undefined
    ? ((snapshot.children as Record<string, unknown>).document as DocumentEditorActorRef)
    : null;

/** The outbox: the document's local updates on their way to the server, and its saves. */
export const selectDocumentOutbox = (
  snapshot: DocumentEditorSnapshot,
): DocumentOutboxActorRef | undefined => snapshot.children.outbox;

export const selectDocumentCursors = (
  snapshot: DocumentEditorSnapshot,
): DocumentCursorsActorRef | undefined => snapshot.children.cursors;

/** The image manager, while its panel is open. */
export const selectImageManager = (
  snapshot: DocumentEditorSnapshot,
): ImageManagerActorRef | undefined => snapshot.children.images;

export const selectAreImagesShown = (snapshot: DocumentEditorSnapshot): boolean =>
  snapshot.matches({ images: 'shown' });

/** The shared text as of the last change (the Preview shows it). */
export const selectDocumentText = (snapshot: DocumentEditorSnapshot): string =>
  snapshot.context.text;

/** The editor refuses typing: the server's log is not merged yet. */
export const selectIsReadOnly = (snapshot: DocumentEditorSnapshot): boolean =>
  !snapshot.hasTag('writable');

/** What the read-only editor says to someone typing (spec §2: 'Loading document...'). */
export const selectReadOnlyMessage = (snapshot: DocumentEditorSnapshot): string | null =>
  snapshot.hasTag('writable') ? null : LOADING_MESSAGE;

/** The text is not in the editor yet: the log, or Monaco, is still loading (the tab says so). */
export const selectIsDocumentLoading = (snapshot: DocumentEditorSnapshot): boolean =>
  snapshot.hasTag('loading');

/** The saved indicator flashes (spec §4: 4 s after a save). */
export const selectIsSaved = (outbox: DocumentOutboxSnapshot): boolean => outbox.hasTag('saved');

export const selectIsSaving = (outbox: DocumentOutboxSnapshot): boolean => outbox.hasTag('saving');

/** A save failed; the text is kept and the save is retried. */
export const selectIsUnsaved = (outbox: DocumentOutboxSnapshot): boolean =>
  outbox.hasTag('unsaved');

/** Save is offered once the document is open and while no save is in flight (with writable). */
export const selectCanRequestSave = (outbox: DocumentOutboxSnapshot): boolean =>
  outbox.can({ type: 'document.saveRequested' });

const NO_CURSORS: RemoteCursor[] = [];

/** Other people's cursors; a stable array until one of them moves. */
export const selectRemoteCursors = (() => {
  let last: Record<string, RemoteCursor> | null = null;
  let shown = NO_CURSORS;
  return (snapshot: DocumentCursorsSnapshot): RemoteCursor[] => {
    const cursors = snapshot.context.remoteCursors;
    if (cursors !== last) {
      last = cursors;
      shown = Object.values(cursors);
    }
    return shown;
  };
})();

/**
 * The `##key##` placeholders the guide holds, space-separated ('' for none): players see them as
 * written, since only the challenge and guest settings are substituted.
 */
export const selectDocumentPlaceholders = (snapshot: DocumentEditorSnapshot): string =>
  placeholdersIn(selectDocumentText(snapshot)).join(' ');

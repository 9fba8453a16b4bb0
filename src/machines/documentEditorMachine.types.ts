import type { EditorChange, TextEdit } from '../domain/coedit';
import type { CursorPositions, RemoteCursorEvent } from './documentCursorsMachine';
import type { DocumentLogReport } from './documentLogMachine';
import type { ReplicaReport } from './documentReplica';
import type { ImageManagerReport } from './imageManagerMachine';

// The types of documentEditorMachine.ts (which exports them), kept apart so that the machine's
// file is its setup and chart.

/** The workspace channel's DocumentEvents as this machine reads them; the app validates them. */
export type DocumentSourceEvent =
  /** Someone's edits, as a Yjs update (base64); reference clients' change records are dropped. */
  | { type: 'document.updatedRemotely'; update: string }
  /** Someone saved (DOCUMENT.SAVED); `timestamp` in epoch ms. */
  | { type: 'document.savedRemotely'; text: string; timestamp: number }
  | RemoteCursorEvent
  /** The hub connection is back: updates sent while it was down never reached us. */
  | { type: 'hub.reconnected' };

export type DocumentEditorEvent =
  /**
   * The Document tab opened: its editor is on its way (Monaco loads on demand). The document
   * loads on the first one, alongside Monaco rather than after it.
   */
  | { type: 'editor.opened' }
  /** The editor (Monaco) is mounted and shows the replica's text. */
  | { type: 'editor.ready' }
  /** The tab closed and its editor with it; the document stays, with its unsaved edits. */
  | { type: 'editor.closed' }
  /** The user changed the text; `at` is when, in epoch ms. */
  | { type: 'editor.changed'; changes: EditorChange[]; at: number }
  | ({ type: 'editor.cursorMoved' } & CursorPositions)
  | { type: 'document.saveRequested' }
  /** The Images button: the image manager opens, or closes. */
  | { type: 'images.toggleRequested' }
  | DocumentSourceEvent
  | ReplicaReport
  | DocumentLogReport
  | ImageManagerReport;

export type DocumentEditorEmitted =
  /** The text changed from elsewhere; the editor model applies `edits` to reach `text`. */
  | { type: 'document.remotelyEdited'; edits: TextEdit[]; text: string }
  /** A file chosen in the image manager: the editor model puts its markdown at the cursor. */
  | ImageManagerReport;

export interface DocumentEditorInput {
  workspaceId: string;
}

export interface DocumentEditorContext {
  workspaceId: string;
  /** The shared text as the replica last reported it. */
  text: string;
  /** Remote updates received while the document was loading, merged after it. */
  buffered: string[];
  /** When the user last changed the text (epoch ms, from the editor's event). */
  lastChangeAt: number;
}

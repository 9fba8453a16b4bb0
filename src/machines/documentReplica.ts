import { fromCallback } from 'xstate';
import {
  applyEditorChanges,
  applyRemoteUpdate,
  createReplica,
  fromBase64,
  onLocalUpdates,
  onRemoteEdits,
  textOf,
  toBase64,
  type EditorChange,
  type TextEdit,
} from '../domain/coedit';

/** What the document editor tells its replica. */
export type ReplicaCommand =
  /** The user changed the editor's text (one Monaco content-change event). */
  | { type: 'editor.changed'; changes: EditorChange[]; at: number }
  /**
   * Merge updates from elsewhere (the loaded state, a hub update, a resync); `resync` marks a
   * merge that repairs missed updates, whose changes the editor reports as a resync.
   */
  | { type: 'replica.merge'; updates: string[]; resync?: boolean };

/** What the replica reports to the document editor. */
export type ReplicaReport =
  /** The user's change as a Yjs update, to batch and send; `text` is the text after it. */
  | { type: 'replica.locallyUpdated'; update: string; text: string }
  /** The text changed from elsewhere: the editor model must apply `edits`. */
  | { type: 'replica.remotelyEdited'; edits: TextEdit[]; text: string; resync: boolean };

/**
 * The document's replica (a Y.Doc) as an actor, so that the machine's context stays plain data:
 * the editor's changes go in, updates to send and edits for the editor model come out. It is pure
 * computation over `src/domain/coedit.ts`, not an effect of the outside world, so the machine
 * uses it as it is.
 */
export const documentReplica = fromCallback<ReplicaCommand>(({ sendBack, receive }) => {
  const replica = createReplica();
  // The report of a merge says whether it was a resync; set while that merge runs.
  let resync = false;
  const stopLocal = onLocalUpdates(replica, (update) =>
    sendBack({
      type: 'replica.locallyUpdated',
      update: toBase64(update),
      text: textOf(replica),
    } satisfies ReplicaReport),
  );
  const stopRemote = onRemoteEdits(replica, (edits) =>
    sendBack({
      type: 'replica.remotelyEdited',
      edits,
      text: textOf(replica),
      resync,
    } satisfies ReplicaReport),
  );
  // A traversal's commands come without their payloads: they change nothing.
  receive((command) => {
    if (command.type === 'editor.changed' && Array.isArray(command.changes)) {
      applyEditorChanges(replica.text, command.changes);
    } else if (command.type === 'replica.merge' && Array.isArray(command.updates)) {
      resync = command.resync === true;
      try {
        for (const update of command.updates) applyRemoteUpdate(replica, fromBase64(update));
      } catch (error) {
        // A malformed update (not base64, not Yjs) from the hub changes nothing here.
        console.warn('document: dropped an update that cannot be merged', error);
      } finally {
        resync = false;
      }
    }
  });
  return () => {
    stopLocal();
    stopRemote();
    replica.doc.destroy();
  };
});

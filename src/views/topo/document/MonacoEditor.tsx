import { Editor, type OnMount } from '@monaco-editor/react';
import { useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import type { TextEdit } from '../../../domain/coedit';
import type { DocumentCursorsActorRef } from '../../../machines/documentCursorsMachine';
import type { DocumentEditorActorRef } from '../../../machines/documentEditorMachine';
import {
  selectDocumentCursors,
  selectIsReadOnly,
  selectReadOnlyMessage,
  selectRemoteCursors,
} from '../../../machines/documentEditorMachine.selectors';
import { monaco } from './monaco';

type CodeEditor = Parameters<OnMount>[0];
type Model = NonNullable<ReturnType<CodeEditor['getModel']>>;

/** Editor options (spec §9): markdown, word wrap on, no minimap. */
const OPTIONS = {
  wordWrap: 'on',
  minimap: { enabled: false },
  scrollBeyondLastLine: false,
  automaticLayout: true,
  lineNumbers: 'off',
  fontSize: 14,
} as const;

/** Edits relative to the model's current text, as one batch of Monaco operations. */
const operations = (model: Model, edits: readonly TextEdit[]) =>
  edits.map(({ offset, deleteCount, text }) => ({
    range: monaco.Range.fromPositions(
      model.getPositionAt(offset),
      model.getPositionAt(offset + deleteCount),
    ),
    text,
  }));

type Decorations = ReturnType<CodeEditor['createDecorationsCollection']>;

/** Other authors' cursors, with their names, as decorations of the editor. */
function RemoteCursors({
  cursors,
  decorations,
}: {
  cursors: DocumentCursorsActorRef;
  decorations: { current: Decorations | null };
}) {
  const shown = useSelector(cursors, selectRemoteCursors);
  useEffect(() => {
    decorations.current?.set(
      shown.flatMap(({ name, positions }) =>
        positions.map(({ lineNumber, column }) => ({
          range: new monaco.Range(lineNumber, column, lineNumber, column),
          options: {
            className: 'tp-remote-cursor',
            hoverMessage: { value: name },
            after: { content: name, inlineClassName: 'tp-remote-cursor-name' },
          },
        })),
      ),
    );
  }, [shown, decorations]);
  return null;
}

/**
 * The markdown editor bound to the document's replica: the user's changes go to the machine as
 * offsets, the other authors' edits come back as offsets and are applied to the model without
 * being reported again. The model keeps no text of its own that the replica does not have. A
 * file inserted from the image manager is typed at the cursor, as the user would.
 */
export default function MonacoEditor({ document }: { document: DocumentEditorActorRef }) {
  const readOnly = useSelector(document, selectIsReadOnly);
  const readOnlyMessage = useSelector(document, selectReadOnlyMessage);
  const cursors = useSelector(document, selectDocumentCursors);
  const editorRef = useRef<CodeEditor | null>(null);
  const decorations = useRef<Decorations | null>(null);
  const binding = useRef<(() => void) | null>(null);

  // Unbinding when the tab closes (the tab tells the machine); the document (and its unsaved
  // edits) stays in the machine.
  useEffect(
    () => () => {
      binding.current?.();
      binding.current = null;
    },
    [document],
  );

  const onMount: OnMount = (editor) => {
    const model = editor.getModel();
    if (!model) return;
    editorRef.current = editor;
    decorations.current = editor.createDecorationsCollection();
    model.setEOL(monaco.editor.EndOfLineSequence.LF);

    // Remote edits are applied without being sent back as the user's.
    let applying = false;
    const setText = (text: string) => {
      applying = true;
      model.setValue(text);
      applying = false;
    };
    setText(document.getSnapshot().context.text);
    const remote = document.on('document.remotelyEdited', ({ edits, text }) => {
      applying = true;
      model.applyEdits(operations(model, edits));
      applying = false;
      // Never expected; but a model that drifted from the replica must not stay so.
      if (model.getValue() !== text) setText(text);
    });
    const changes = editor.onDidChangeModelContent((event) => {
      if (applying) return;
      document.send({
        type: 'editor.changed',
        changes: event.changes.map(({ rangeOffset, rangeLength, text }) => ({
          rangeOffset,
          rangeLength,
          text,
        })),
        at: Date.now(),
      });
    });
    const cursorMoves = editor.onDidChangeCursorSelection(() => {
      if (applying) return;
      document.send({
        type: 'editor.cursorMoved',
        positions: (editor.getSelections() ?? []).map((s) => ({
          lineNumber: s.positionLineNumber,
          column: s.positionColumn,
        })),
      });
    });
    const inserts = document.on('image.inserted', ({ markdown }) => {
      const selection = editor.getSelection();
      if (!selection || editor.getOption(monaco.editor.EditorOption.readOnly)) return;
      editor.executeEdits('image-manager', [
        { range: selection, text: markdown, forceMoveMarkers: true },
      ]);
      editor.focus();
    });
    binding.current = () => {
      remote.unsubscribe();
      inserts.unsubscribe();
      changes.dispose();
      cursorMoves.dispose();
    };
    document.send({ type: 'editor.ready' });
  };

  return (
    <div className="tp-document-editor" data-testid="document-editor" data-readonly={readOnly}>
      {cursors && <RemoteCursors cursors={cursors} decorations={decorations} />}
      <Editor
        language="markdown"
        defaultValue=""
        options={{
          ...OPTIONS,
          readOnly,
          readOnlyMessage: readOnlyMessage ? { value: readOnlyMessage } : undefined,
          ariaLabel: 'Document markdown',
        }}
        onMount={onMount}
        // The tab shows that the document is loading until this editor is ready.
        loading={null}
      />
    </div>
  );
}

import { useSelector } from '@xstate/react';
import { lazy, Suspense, useCallback, useRef, useState } from 'react';
import type { DocumentEditorActorRef } from '../../../machines/documentEditorMachine';
import {
  selectCanSave,
  selectDocumentEditor,
  selectDocumentText,
  selectIsSaved,
  selectIsSaving,
  selectIsUnsaved,
} from '../../../machines/documentEditorMachine.selectors';
import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';
import { selectWorkspaceHeader } from '../../../machines/workspaceEditorMachine.selectors';
import { Spinner } from '../../common/Spinner';
import { ImageManager } from './ImageManager';
import { MarkdownPreview } from './MarkdownPreview';

// Monaco is large: it loads with the editor, only once the Document tab is shown.
const MonacoEditor = lazy(() => import('./MonacoEditor'));

/** Saving, saved (for 4 s) or unsaved (a failed save being retried). */
function SaveStatus({ document }: { document: DocumentEditorActorRef }) {
  const saving = useSelector(document, selectIsSaving);
  const saved = useSelector(document, selectIsSaved);
  const unsaved = useSelector(document, selectIsUnsaved);
  const [text, className] = unsaved
    ? ['Unsaved: retrying', 'tp-save-status tp-save-failed']
    : saving
      ? ['Saving...', 'tp-save-status']
      : saved
        ? ['Saved', 'tp-save-status tp-save-ok']
        : ['', 'tp-save-status'];
  return (
    <span className={className} role="status" aria-live="polite">
      {text}
    </span>
  );
}

/** The rendered document, following the text as it changes. */
function Preview({ document }: { document: DocumentEditorActorRef }) {
  const text = useSelector(document, selectDocumentText);
  return (
    <div className="tp-document-preview" aria-label="Preview">
      <MarkdownPreview markdown={text} />
    </div>
  );
}

function Toggle({
  label,
  icon,
  pressed,
  onToggle,
}: {
  label: string;
  icon: string;
  pressed: boolean;
  onToggle: () => void;
}) {
  return (
    <button
      type="button"
      className={`p-button p-component p-button-sm ${pressed ? '' : 'p-button-outlined'}`}
      aria-pressed={pressed}
      onClick={onToggle}
    >
      <i className={`pi ${icon}`} aria-hidden="true" /> {label}
    </button>
  );
}

function DocumentTab({
  document,
  workspaceId,
}: {
  document: DocumentEditorActorRef;
  workspaceId: string;
}) {
  const canSave = useSelector(document, selectCanSave);
  // Which panels are open is the view's own matter, not the document's.
  const [showImages, setShowImages] = useState(false);
  const [showPreview, setShowPreview] = useState(false);
  const insert = useRef<((text: string) => void) | null>(null);
  const onInsertReady = useCallback((fn: ((text: string) => void) | null) => {
    insert.current = fn;
  }, []);
  const onInsert = useCallback((markdown: string) => insert.current?.(markdown), []);

  return (
    <div className="tp-document">
      <div className="tp-document-toolbar" role="toolbar" aria-label="Document">
        <button
          type="button"
          className="p-button p-component p-button-sm"
          disabled={!canSave}
          onClick={() => document.send({ type: 'document.saveRequested' })}
        >
          <i className="pi pi-save" aria-hidden="true" /> Save
        </button>
        <Toggle
          label="Images"
          icon="pi-images"
          pressed={showImages}
          onToggle={() => setShowImages((shown) => !shown)}
        />
        <Toggle
          label="Preview"
          icon="pi-eye"
          pressed={showPreview}
          onToggle={() => setShowPreview((shown) => !shown)}
        />
        <SaveStatus document={document} />
      </div>
      {showImages && <ImageManager workspaceId={workspaceId} onInsert={onInsert} />}
      <div className={showPreview ? 'tp-document-panes tp-document-split' : 'tp-document-panes'}>
        <Suspense fallback={<Spinner label="Loading editor" />}>
          <MonacoEditor document={document} onInsertReady={onInsertReady} />
        </Suspense>
        {showPreview && <Preview document={document} />}
      </div>
    </div>
  );
}

/** The Document tab (spec §2): the co-edited markdown editor, Save, Images and Preview. */
export default function DocumentSection({ editor }: { editor: WorkspaceEditorActorRef }) {
  const document = useSelector(editor, selectDocumentEditor);
  const header = useSelector(editor, selectWorkspaceHeader);
  if (!document || !header) return <Spinner label="Loading document" />;
  return <DocumentTab document={document} workspaceId={header.id} />;
}

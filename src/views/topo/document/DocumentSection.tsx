import { useSelector } from '@xstate/react';
import { lazy, Suspense, useEffect, useState } from 'react';
import type { DocumentEditorActorRef } from '../../../machines/documentEditorMachine';
import {
  selectAreImagesShown,
  selectCanRequestSave,
  selectDocumentEditor,
  selectDocumentOutbox,
  selectDocumentPlaceholders,
  selectDocumentText,
  selectImageManager,
  selectIsDocumentLoading,
  selectIsReadOnly,
  selectIsSaved,
  selectIsSaving,
  selectIsUnsaved,
} from '../../../machines/documentEditorMachine.selectors';
import type { DocumentOutboxActorRef } from '../../../machines/documentOutboxMachine';
import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';
import { Spinner } from '../../common/Spinner';
import { ImageManagerPanel } from './ImageManager';
import { MarkdownPreview } from './MarkdownPreview';
import { Icon, type IconShape, piEye, piImages, piSave } from '../../common/icons';

// Monaco is large: it loads only once the Document tab is shown, and as soon as this module is
// there, rather than once the tab has rendered: its script is most of the wait for the text.
const monacoEditor = import('./MonacoEditor');
const MonacoEditor = lazy(() => monacoEditor);

/**
 * Over the editor until it shows the text: the document's log or Monaco is still loading. The
 * editor is read-only meanwhile, and says so to someone typing.
 */
function DocumentLoading() {
  return (
    <div className="tp-document-loading">
      <Spinner label="Loading document" />
      <span aria-hidden="true">Loading document...</span>
    </div>
  );
}

/** Saving, saved (for 4 s) or unsaved (a failed save being retried). */
function SaveStatus({ outbox }: { outbox: DocumentOutboxActorRef }) {
  const saving = useSelector(outbox, selectIsSaving);
  const saved = useSelector(outbox, selectIsSaved);
  const unsaved = useSelector(outbox, selectIsUnsaved);
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

/**
 * Players read the guide as written: a `##key##` in it stays as it is, unlike in the challenge
 * and guest settings, where deploy substitutes it.
 */
function PlaceholderWarning({ document }: { document: DocumentEditorActorRef }) {
  const placeholders = useSelector(document, selectDocumentPlaceholders);
  if (placeholders === '') return null;
  return (
    <p className="tp-alert tp-alert-warning" role="note">
      Players see {placeholders} as written: placeholders are replaced only in the challenge and in
      templates' guest settings, not in this guide.
    </p>
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
  icon: IconShape;
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
      <Icon shape={icon} /> {label}
    </button>
  );
}

function DocumentTab({
  document,
  outbox,
}: {
  document: DocumentEditorActorRef;
  outbox: DocumentOutboxActorRef;
}) {
  // Save is offered once the document is writable and no save is in flight.
  const readOnly = useSelector(document, selectIsReadOnly);
  const canSave = useSelector(outbox, selectCanRequestSave) && !readOnly;
  const loading = useSelector(document, selectIsDocumentLoading);
  const showImages = useSelector(document, selectAreImagesShown);
  const images = useSelector(document, selectImageManager);
  // Whether the preview shows is the view's own matter; the image panel runs a manager, which
  // the document editor starts and stops.
  const [showPreview, setShowPreview] = useState(false);
  // The document loads as the tab opens, while Monaco loads, not once Monaco is there.
  useEffect(() => {
    document.send({ type: 'editor.opened' });
    return () => document.send({ type: 'editor.closed' });
  }, [document]);

  return (
    <div className="tp-document">
      <div className="tp-document-toolbar" role="toolbar" aria-label="Document">
        <button
          type="button"
          className="p-button p-component p-button-sm"
          disabled={!canSave}
          onClick={() => document.send({ type: 'document.saveRequested' })}
        >
          <Icon shape={piSave} /> Save
        </button>
        <Toggle
          label="Images"
          icon={piImages}
          pressed={showImages}
          onToggle={() => document.send({ type: 'images.toggleRequested' })}
        />
        <Toggle
          label="Preview"
          icon={piEye}
          pressed={showPreview}
          onToggle={() => setShowPreview((shown) => !shown)}
        />
        <SaveStatus outbox={outbox} />
      </div>
      {images && <ImageManagerPanel manager={images} />}
      <PlaceholderWarning document={document} />
      <div className={showPreview ? 'tp-document-panes tp-document-split' : 'tp-document-panes'}>
        <div className="tp-document-editor-pane">
          <Suspense fallback={<div className="tp-document-editor" />}>
            <MonacoEditor document={document} />
          </Suspense>
          {loading && <DocumentLoading />}
        </div>
        {showPreview && <Preview document={document} />}
      </div>
    </div>
  );
}

/** The Document tab (spec §2): the co-edited markdown editor, Save, Images and Preview. */
export default function DocumentSection({ editor }: { editor: WorkspaceEditorActorRef }) {
  const document = useSelector(editor, selectDocumentEditor);
  return document ? <LoadedDocument document={document} /> : <Spinner label="Loading document" />;
}

function LoadedDocument({ document }: { document: DocumentEditorActorRef }) {
  const outbox = useSelector(document, selectDocumentOutbox);
  if (!outbox) return <Spinner label="Loading document" />;
  return <DocumentTab document={document} outbox={outbox} />;
}

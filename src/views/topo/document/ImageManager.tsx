import { useSelector } from '@xstate/react';
import type { ChangeEvent } from 'react';
import { isImageFile, UPLOAD_LIMIT_TEXT } from '../../../domain/documentFiles';
import type { ImageManagerActorRef } from '../../../machines/imageManagerMachine';
import {
  selectCanRequestDelete,
  selectCanUpload,
  selectDeleteTarget,
  selectDocumentFiles,
  selectImageErrors,
  selectImageLoadError,
  selectIsConfirmingDelete,
  selectIsDeleting,
  selectIsLoadingImages,
  selectUploadingName,
  selectWaitingUploads,
} from '../../../machines/imageManagerMachine.selectors';
import { DismissibleAlerts } from '../../common/DismissibleAlerts';
import { Spinner } from '../../common/Spinner';
import { ConfirmPrompt } from '../ConfirmPrompt';
import { Icon, piFilePdf, piSpinner, piUpload } from '../../common/icons';

/** What the file chooser offers; the machine's check decides what is actually sent. */
const ACCEPT = 'image/png,image/jpeg,image/gif,image/webp,application/pdf';

/** Shown beside Upload as the reference UI words it (spec §5), though the check is 50,000,000. */

function UploadControl({ manager }: { manager: ImageManagerActorRef }) {
  const canUpload = useSelector(manager, selectCanUpload);
  const uploading = useSelector(manager, selectUploadingName);
  const waiting = useSelector(manager, selectWaitingUploads);
  const chosen = (event: ChangeEvent<HTMLInputElement>) => {
    const files = [...(event.currentTarget.files ?? [])];
    // Cleared so that choosing the same file again is a change too.
    event.currentTarget.value = '';
    if (files.length > 0) manager.send({ type: 'image.uploadRequested', files });
  };
  return (
    <div className="tp-images-toolbar">
      <label
        className={`p-button p-component p-button-sm tp-images-upload${canUpload ? '' : ' p-disabled'}`}
      >
        <Icon shape={piUpload} />
        <span>Upload</span>
        <input
          type="file"
          multiple
          accept={ACCEPT}
          disabled={!canUpload}
          aria-describedby="tp-images-limit"
          onChange={chosen}
        />
      </label>
      <span id="tp-images-limit" className="tp-muted">
        {UPLOAD_LIMIT_TEXT}
      </span>
      {uploading !== null && (
        <span className="tp-images-progress" role="status">
          <Icon shape={piSpinner} spin /> Uploading {uploading}
          {waiting > 0 && ` (${waiting} waiting)`}
        </span>
      )}
    </div>
  );
}

function FileList({ manager }: { manager: ImageManagerActorRef }) {
  const files = useSelector(manager, selectDocumentFiles);
  const canDelete = useSelector(manager, selectCanRequestDelete);
  const target = useSelector(manager, selectDeleteTarget);
  const confirming = useSelector(manager, selectIsConfirmingDelete);
  const deleting = useSelector(manager, selectIsDeleting);
  if (files.length === 0) return <p className="tp-muted">No images yet.</p>;
  return (
    <ul className="tp-images-list">
      {files.map((file) => (
        <li key={file.filename} className="tp-images-item">
          {isImageFile(file.filename) ? (
            <img className="tp-images-thumb" src={file.url} alt="" loading="lazy" />
          ) : (
            <Icon shape={piFilePdf} className="tp-images-icon" />
          )}
          <a className="tp-images-name" href={file.url} target="_blank" rel="noopener noreferrer">
            {file.filename}
          </a>
          <span className="tp-images-actions">
            <button
              type="button"
              className="p-button p-component p-button-sm p-button-outlined"
              aria-label={`Insert ${file.filename}`}
              onClick={() =>
                manager.send({ type: 'image.insertRequested', filename: file.filename })
              }
            >
              Insert
            </button>
            <button
              type="button"
              className="p-button p-component p-button-sm p-button-danger p-button-outlined"
              aria-label={`Delete ${file.filename}`}
              disabled={!canDelete}
              onClick={() =>
                manager.send({ type: 'image.deleteRequested', filename: file.filename })
              }
            >
              Delete
            </button>
          </span>
          {confirming && target === file.filename && (
            <ConfirmPrompt
              question={`Delete ${file.filename}?`}
              onConfirm={() => manager.send({ type: 'image.deleteConfirmed' })}
              onCancel={() => manager.send({ type: 'image.deleteCancelled' })}
            />
          )}
          {deleting && target === file.filename && <Spinner label={`Deleting ${file.filename}`} />}
        </li>
      ))}
    </ul>
  );
}

/**
 * The Document tab's image manager (spec §2, §5, §7), as the document editor runs it while its
 * panel is open: upload, the files with Insert and Delete, and the errors. Insert hands the file's
 * markdown to the document editor, which puts it at the cursor.
 */
export function ImageManagerPanel({ manager }: { manager: ImageManagerActorRef }) {
  const loading = useSelector(manager, selectIsLoadingImages);
  const loadError = useSelector(manager, selectImageLoadError);
  const errors = useSelector(manager, selectImageErrors);
  return (
    <section className="tp-images" aria-label="Images">
      <UploadControl manager={manager} />
      <DismissibleAlerts
        messages={errors.map((error) => `${error.filename}: ${error.message}`)}
        onDismiss={(index) => manager.send({ type: 'image.errorDismissed', index })}
      />
      {loading && <Spinner label="Loading images" />}
      {loadError !== null ? (
        <div className="tp-alert tp-alert-danger" role="alert">
          <span>{loadError}</span>
          <button
            type="button"
            className="p-button p-component p-button-sm p-button-secondary"
            onClick={() => manager.send({ type: 'images.reloadRequested' })}
          >
            Retry
          </button>
        </div>
      ) : (
        !loading && <FileList manager={manager} />
      )}
    </section>
  );
}

import { useSelector } from '@xstate/react';
import { useId, useState, type DragEvent } from 'react';
import { isoDisplayName } from '../../../domain/templateFields';
import type { IsoFilesActorRef } from '../../../machines/isoFilesMachine';
import {
  selectDeleteCandidate,
  selectDeleteError,
  selectIsDeleting,
  selectIsIsoListLoading,
  selectIsoFilesActor,
  selectIsoListError,
  selectIsoPaths,
  selectIsUsageLoading,
  selectUploadQueue,
  selectUsage,
  selectUsageError,
  selectUsagePath,
} from '../../../machines/isoFilesMachine.selectors';
import type { UploadActorRef } from '../../../machines/uploadMachine';
import type { UploadQueueActorRef } from '../../../machines/uploadQueueMachine';
import {
  selectCanCancelUpload,
  selectHasEndedUploads,
  selectUploadError,
  selectUploadName,
  selectUploadPercent,
  selectUploadStatus,
  selectUploads,
} from '../../../machines/uploadQueueMachine.selectors';
import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';
import './files.css';

const STATUS_TEXT = {
  queued: 'Waiting',
  uploading: 'Uploading',
  succeeded: 'Uploaded',
  failed: 'Failed',
  canceled: 'Canceled',
} as const;

const BUTTON = 'p-button p-component p-button-outlined p-button-sm';

function UploadRow({ upload, queue }: { upload: UploadActorRef; queue: UploadQueueActorRef }) {
  const name = useSelector(upload, selectUploadName);
  const percent = useSelector(upload, selectUploadPercent);
  const status = useSelector(upload, selectUploadStatus);
  const error = useSelector(upload, selectUploadError);
  const canCancel = useSelector(upload, selectCanCancelUpload);
  return (
    <li className={`tp-upload tp-upload-${status}`}>
      <span className="tp-upload-name">{name}</span>
      <progress max={100} value={percent} aria-label={`Upload of ${name}`} />
      <span className="tp-upload-status" role="status">
        {status === 'uploading' ? `${percent}%` : STATUS_TEXT[status]}
      </span>
      {canCancel ? (
        <button
          type="button"
          className={BUTTON}
          aria-label={`Cancel the upload of ${name}`}
          onClick={() => queue.send({ type: 'upload.cancelRequested', uploadId: upload.id })}
        >
          Cancel
        </button>
      ) : (
        <button
          type="button"
          className={BUTTON}
          aria-label={`Remove ${name} from the list`}
          onClick={() => queue.send({ type: 'upload.removeRequested', uploadId: upload.id })}
        >
          Remove
        </button>
      )}
      {error && (
        <small className="tp-upload-error" role="alert">
          {error}
        </small>
      )}
    </li>
  );
}

function Uploader({ queue }: { queue: UploadQueueActorRef }) {
  const uploads = useSelector(queue, selectUploads);
  const hasEnded = useSelector(queue, selectHasEndedUploads);
  // Only the look of the drop zone while something is dragged over it.
  const [dragging, setDragging] = useState(false);
  const inputId = useId();
  const choose = (files: FileList | null) => {
    if (files && files.length > 0) queue.send({ type: 'upload.filesChosen', files: [...files] });
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    choose(e.dataTransfer.files);
  };
  return (
    <section className="tp-files-upload" aria-label="Upload ISO files">
      <div
        className={`tp-dropzone${dragging ? ' tp-dropzone-over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <label htmlFor={inputId}>Choose files to upload, or drop them here</label>
        <input
          id={inputId}
          type="file"
          multiple
          onChange={(e) => {
            choose(e.target.files);
            e.target.value = '';
          }}
        />
        <small className="tp-muted">
          An ISO image is stored as it is; any other file is wrapped into an ISO image.
        </small>
      </div>
      {uploads.length > 0 && (
        <ul className="tp-uploads">
          {uploads.map((upload) => (
            <UploadRow key={upload.id} upload={upload} queue={queue} />
          ))}
        </ul>
      )}
      {hasEnded && (
        <button
          type="button"
          className={BUTTON}
          onClick={() => queue.send({ type: 'upload.clearRequested' })}
        >
          Clear finished uploads
        </button>
      )}
    </section>
  );
}

function IsoUsage({ files }: { files: IsoFilesActorRef }) {
  const path = useSelector(files, selectUsagePath);
  const loading = useSelector(files, selectIsUsageLoading);
  const usage = useSelector(files, selectUsage);
  const error = useSelector(files, selectUsageError);
  if (path === null) return null;
  return (
    <div className="tp-iso-usage" role="region" aria-label={`Usage of ${isoDisplayName(path)}`}>
      <strong>{isoDisplayName(path)}</strong>
      {loading && <p className="tp-muted">Loading...</p>}
      {error && <p className="tp-alert tp-alert-danger">{error}</p>}
      {usage && usage.templates.length === 0 && <p>No template uses this ISO.</p>}
      {usage && usage.templates.length > 0 && (
        <>
          <p>Used by the templates:</p>
          <ul>
            {usage.templates.map((t) => (
              <li key={t.id}>
                {t.name}
                {t.workspaceName ? ` (${t.workspaceName})` : ''}
              </li>
            ))}
          </ul>
          <p>Active gamespaces: {usage.activeGamespaces.length}</p>
        </>
      )}
      <button
        type="button"
        className={BUTTON}
        onClick={() => files.send({ type: 'iso.usageClosed' })}
      >
        Close
      </button>
    </div>
  );
}

function IsoList({ files }: { files: IsoFilesActorRef }) {
  const paths = useSelector(files, selectIsoPaths);
  const loading = useSelector(files, selectIsIsoListLoading);
  const error = useSelector(files, selectIsoListError);
  const candidate = useSelector(files, selectDeleteCandidate);
  const deleting = useSelector(files, selectIsDeleting);
  const deleteError = useSelector(files, selectDeleteError);
  return (
    <section className="tp-files-list" aria-label="ISO files">
      <h2>
        ISO files{' '}
        <button
          type="button"
          className={BUTTON}
          disabled={loading}
          onClick={() => files.send({ type: 'isos.refreshRequested' })}
        >
          Refresh
        </button>
      </h2>
      {error && <p className="tp-alert tp-alert-danger">{error}</p>}
      {deleteError && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {deleteError}
        </p>
      )}
      {paths.length === 0 && !loading && !error && (
        <p className="tp-muted">This workspace has no ISO files yet.</p>
      )}
      <ul className="tp-isos">
        {paths.map((path) => {
          const name = isoDisplayName(path);
          return (
            <li key={path} className="tp-iso-file">
              <span className="tp-iso-name">{name}</span>
              {candidate === path ? (
                <span className="tp-confirm" role="group" aria-label={`Delete ${name}?`}>
                  Delete {name}?
                  <button
                    type="button"
                    className={`${BUTTON} p-button-danger`}
                    onClick={() => files.send({ type: 'iso.deleteConfirmed' })}
                  >
                    Yes, delete
                  </button>
                  <button
                    type="button"
                    className={BUTTON}
                    onClick={() => files.send({ type: 'iso.deleteCanceled' })}
                  >
                    No
                  </button>
                </span>
              ) : (
                <>
                  <button
                    type="button"
                    className={BUTTON}
                    aria-label={`Usage of ${name}`}
                    onClick={() => files.send({ type: 'iso.usageRequested', path })}
                  >
                    Usage
                  </button>
                  <button
                    type="button"
                    className={`${BUTTON} p-button-danger`}
                    aria-label={`Delete ${name}`}
                    disabled={deleting || candidate !== null}
                    onClick={() => files.send({ type: 'iso.deleteRequested', path })}
                  >
                    Delete
                  </button>
                </>
              )}
            </li>
          );
        })}
      </ul>
      <IsoUsage files={files} />
    </section>
  );
}

function IsoFiles({ files }: { files: IsoFilesActorRef }) {
  const queue = useSelector(files, selectUploadQueue);
  return (
    <div className="tp-files">
      {queue && <Uploader queue={queue} />}
      <IsoList files={files} />
    </div>
  );
}

/** The Files tab (spec §2 Workspace editor): ISO uploads with per-file progress, the ISO list. */
export default function FilesSection({ editor }: { editor: WorkspaceEditorActorRef }) {
  const files = useSelector(editor, selectIsoFilesActor);
  return files ? <IsoFiles files={files} /> : null;
}

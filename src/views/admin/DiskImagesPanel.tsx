import { useSelector } from '@xstate/react';
import { useId } from 'react';
import type { DiskImage, DiskImagesActorRef } from '../../machines/diskImagesMachine';
import {
  selectDiskImageActionError,
  selectDiskImageDeleteCandidate,
  selectDiskImageListError,
  selectDiskImages,
  selectDiskImageUploads,
  selectIsDiskImageBusy,
  selectIsDiskImageListLoading,
} from '../../machines/diskImagesMachine.selectors';
import type { UploadActorRef } from '../../machines/uploadMachine';
import type { UploadQueueActorRef } from '../../machines/uploadQueueMachine';
import {
  selectCanCancelUpload,
  selectHasEndedUploads,
  selectUploadError,
  selectUploadName,
  selectUploadPercent,
  selectUploadStatus,
  selectUploads,
} from '../../machines/uploadQueueMachine.selectors';
import './diskImages.css';

// The Template Manager's Disk Images panel (issue 31): disk images uploaded into the qemu images
// folder (qcow2, raw, vmdk, vdi, ova; each converted to qcow2 by the server), listed with their
// sizes and the templates whose disk names them; a template made from one; delete when unused.

/** The file types the upload takes, for the file chooser (the server checks the content). */
const DISK_IMAGE_ACCEPT = '.qcow2,.raw,.img,.vmdk,.vdi,.ova';

/** 1536 -> '1.5 KiB': sizes as qemu-img writes them. */
export function formatBytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** The product's small outlined buttons, as on the Files tab. */
const BUTTON = 'p-button p-component p-button-outlined p-button-sm';

const STATUS_TEXT = {
  queued: 'Waiting',
  uploading: 'Uploading',
  succeeded: 'Imported',
  failed: 'Failed',
  canceled: 'Canceled',
} as const;

function UploadRow({ upload, queue }: { upload: UploadActorRef; queue: UploadQueueActorRef }) {
  const name = useSelector(upload, selectUploadName);
  const percent = useSelector(upload, selectUploadPercent);
  const status = useSelector(upload, selectUploadStatus);
  const error = useSelector(upload, selectUploadError);
  const canCancel = useSelector(upload, selectCanCancelUpload);
  return (
    <li className={`tp-disk-upload tp-disk-upload-${status}`}>
      <span>{name}</span>
      <progress max={100} value={percent} aria-label={`Upload of ${name}`} />
      <span role="status">{status === 'uploading' ? `${percent}%` : STATUS_TEXT[status]}</span>
      <button
        className={BUTTON}
        type="button"
        onClick={() =>
          queue.send({
            type: canCancel ? 'upload.cancelRequested' : 'upload.removeRequested',
            uploadId: upload.id,
          })
        }
      >
        {canCancel ? 'Cancel' : 'Remove'}
      </button>
      {error && (
        <small className="tp-disk-upload-error" role="alert">
          {error}
        </small>
      )}
    </li>
  );
}

function Uploads({ queue }: { queue: UploadQueueActorRef }) {
  const uploads = useSelector(queue, selectUploads);
  const hasEnded = useSelector(queue, selectHasEndedUploads);
  const inputId = useId();
  return (
    <div className="tp-disk-uploads">
      <label htmlFor={inputId}>Upload disk images</label>{' '}
      <input
        id={inputId}
        type="file"
        multiple
        accept={DISK_IMAGE_ACCEPT}
        onChange={(e) => {
          const files = e.target.files;
          if (files && files.length > 0) {
            queue.send({ type: 'upload.filesChosen', files: [...files] });
          }
          e.target.value = '';
        }}
      />
      <small className="tp-muted">
        qcow2, raw (.raw, .img), vmdk, vdi or ova (its first disk). Each is checked and converted to
        qcow2. A failed upload resumes where it stopped when the same file is chosen again.
      </small>
      {uploads.length > 0 && (
        <ul aria-label="Disk image uploads">
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
    </div>
  );
}

function ImageRow({
  image,
  images,
  busy,
}: {
  image: DiskImage;
  images: DiskImagesActorRef;
  busy: boolean;
}) {
  const used = image.templates.length > 0;
  return (
    <tr>
      <td>{image.name}</td>
      <td>{formatBytes(image.size)}</td>
      <td>{image.virtualSize === null ? '' : formatBytes(image.virtualSize)}</td>
      <td>
        {used
          ? image.templates
              .map((t) => (t.workspaceName ? `${t.name} (${t.workspaceName})` : t.name))
              .join(', ')
          : 'none'}
      </td>
      <td className="tp-disk-image-actions">
        <button
          className={BUTTON}
          type="button"
          disabled={busy}
          aria-label={`New template from ${image.name}`}
          onClick={() => images.send({ type: 'image.templateRequested', name: image.name })}
        >
          New template
        </button>
        <button
          className={BUTTON}
          type="button"
          disabled={busy || used}
          title={used ? 'In use by a template: change its disk first' : undefined}
          aria-label={`Delete ${image.name}`}
          onClick={() => images.send({ type: 'image.deleteRequested', name: image.name })}
        >
          Delete
        </button>
      </td>
    </tr>
  );
}

export function DiskImagesPanel({ images }: { images: DiskImagesActorRef }) {
  const list = useSelector(images, selectDiskImages);
  const loading = useSelector(images, selectIsDiskImageListLoading);
  const listError = useSelector(images, selectDiskImageListError);
  const candidate = useSelector(images, selectDiskImageDeleteCandidate);
  const busy = useSelector(images, selectIsDiskImageBusy);
  const actionError = useSelector(images, selectDiskImageActionError);
  const queue = useSelector(images, selectDiskImageUploads);
  return (
    <section className="tp-disk-images" aria-label="Disk images">
      <h3>Disk images</h3>
      <p className="tp-muted">
        Base disks of the qemu driver. A template uses one when a disk of its detail has the image's
        name as its Path.
      </p>
      {queue && <Uploads queue={queue} />}
      {listError && <p role="alert">{listError}</p>}
      {actionError && (
        <p role="alert">
          {actionError}{' '}
          <button
            type="button"
            className={BUTTON}
            onClick={() => images.send({ type: 'alert.dismissed' })}
          >
            Dismiss
          </button>
        </p>
      )}
      {candidate && (
        <p role="alertdialog" aria-label={`Delete ${candidate}?`}>
          Delete {candidate}?{' '}
          <button
            type="button"
            className={BUTTON}
            onClick={() => images.send({ type: 'image.deleteConfirmed' })}
          >
            Delete
          </button>{' '}
          <button
            type="button"
            className={BUTTON}
            onClick={() => images.send({ type: 'image.deleteCanceled' })}
          >
            Keep it
          </button>
        </p>
      )}
      <table aria-label="Disk image list" aria-busy={loading}>
        <thead>
          <tr>
            <th>Image</th>
            <th>Size</th>
            <th>Disk size</th>
            <th>Templates</th>
            <th>
              <span className="tp-visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.map((image) => (
            <ImageRow key={image.name} image={image} images={images} busy={busy} />
          ))}
        </tbody>
      </table>
      {!loading && list.length === 0 && <p className="tp-muted">No disk images yet.</p>}
    </section>
  );
}

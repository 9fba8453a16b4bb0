import { useSelector } from '@xstate/react';
import { useId, type DragEvent } from 'react';
import { byteSize, MAX_GUEST_FILE_LABEL } from '../../domain/guestFiles';
import type { GuestFilesActorRef } from '../../machines/guestFilesMachine';
import {
  selectCanPutFiles,
  selectFileItems,
  selectFilesUnavailableReason,
} from '../../machines/guestFilesMachine.selectors';
import { Icon, piTimes, piUpload } from '../common/icons';
import './consoleFiles.css';

/** The console toolbar's "Upload file" button: picks files to put into the machine. */
export function UploadFileButton({ files }: { files: GuestFilesActorRef }) {
  const canPut = useSelector(files, selectCanPutFiles);
  const reason = useSelector(files, selectFilesUnavailableReason);
  const inputId = useId();
  return (
    <>
      <input
        id={inputId}
        type="file"
        multiple
        hidden
        aria-label="File to put into the machine"
        onChange={(e) => {
          const chosen = [...(e.target.files ?? [])];
          if (chosen.length > 0) files.send({ type: 'files.chosen', files: chosen });
          e.target.value = '';
        }}
      />
      <button
        type="button"
        className="p-button p-component p-button-sm p-button-secondary p-button-outlined tp-console-files-button"
        title={
          reason ??
          `Put a file into the machine (up to ${MAX_GUEST_FILE_LABEL}); or drop it on the screen`
        }
        disabled={!canPut}
        onClick={() => document.getElementById(inputId)?.click()}
      >
        <Icon shape={piUpload} />
        <span className="tp-console-button-label">Upload file</span>
      </button>
    </>
  );
}

/** What the console's screen does with files dragged onto it: they go into the machine. */
export function fileDropHandlers(files: GuestFilesActorRef) {
  const carriesFiles = (e: DragEvent) => e.dataTransfer.types.includes('Files');
  return {
    onDragOver(e: DragEvent) {
      if (!carriesFiles(e) || !selectCanPutFiles(files.getSnapshot())) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    },
    onDrop(e: DragEvent) {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      const dropped = [...e.dataTransfer.files];
      if (dropped.length > 0) files.send({ type: 'files.chosen', files: dropped });
    },
  };
}

/** The files put into the machine from this page: each one's progress, then where it went. */
export function ConsoleFileList({ files }: { files: GuestFilesActorRef }) {
  const items = useSelector(files, selectFileItems);
  if (items.length === 0) return null;
  const ended = items.some((i) => i.status === 'done' || i.status === 'failed');
  return (
    <section className="tp-console-files" aria-label="Files into the machine">
      <ul>
        {items.map((item) => (
          <li key={item.id} className={`tp-console-file tp-console-file-${item.status}`}>
            {item.status === 'queued' ? (
              <span>
                {item.name} ({byteSize(item.size)}) waits its turn.
              </span>
            ) : item.status === 'sending' ? (
              <>
                <span role="status">
                  Sending {item.name}… {item.percent}%
                </span>
                <progress max={100} value={item.percent} aria-label={`${item.name} sent`} />
              </>
            ) : item.status === 'done' ? (
              <span role="status">
                {item.name} is in the machine: <code>{item.path}</code>
              </span>
            ) : (
              <span role="alert">
                {item.name} was not put into the machine. {item.error}
              </span>
            )}
          </li>
        ))}
      </ul>
      {ended ? (
        <button
          type="button"
          className="p-button p-component p-button-text p-button-sm"
          aria-label="Clear the ended files"
          onClick={() => files.send({ type: 'files.clearRequested' })}
        >
          <Icon shape={piTimes} />
        </button>
      ) : null}
    </section>
  );
}

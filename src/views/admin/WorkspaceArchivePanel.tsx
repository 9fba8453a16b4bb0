import { useSelector } from '@xstate/react';
import type { WorkspaceArchiveActorRef } from '../../machines/workspaceArchiveMachine';
import {
  selectArchiveDone,
  selectArchiveError,
  selectArchiveIds,
  selectArchiveResults,
  selectCanExport,
  selectIsArchiveBusy,
} from '../../machines/workspaceArchiveMachine.selectors';
import { Icon, piDownload, piFolderOpen, piServer, piSpinner } from '../common/icons';

const BUTTON = 'p-button p-component p-button-sm';

/** Export and import of workspaces as a zip (the admin Dashboard, wire reference §1.8). */
export function WorkspaceArchivePanel({ archive }: { archive: WorkspaceArchiveActorRef }) {
  const ids = useSelector(archive, selectArchiveIds);
  const canExport = useSelector(archive, selectCanExport);
  const busy = useSelector(archive, selectIsArchiveBusy);
  const done = useSelector(archive, selectArchiveDone);
  const error = useSelector(archive, selectArchiveError);
  const results = useSelector(archive, selectArchiveResults);
  return (
    <section aria-labelledby="tp-archive" className="tp-panel tp-archive">
      <h3 id="tp-archive">Export and import</h3>
      <p className="tp-muted">
        Moves workspaces between servers as a zip, with their guides, images, templates and
        challenge. Importing the same archive twice adds nothing.
      </p>
      <label className="tp-field">
        <span>Workspace ids to export (one or more, or &quot;all&quot;)</span>
        <textarea
          className="p-inputtextarea p-inputtext p-component"
          rows={2}
          value={ids}
          onChange={(e) => archive.send({ type: 'archive.idsEdited', text: e.target.value })}
        />
      </label>
      <div className="tp-actions">
        <button
          type="button"
          className={BUTTON}
          disabled={!canExport}
          onClick={() => archive.send({ type: 'archive.downloadRequested' })}
        >
          <Icon shape={piDownload} />
          <span>Download</span>
        </button>
        <button
          type="button"
          className={`${BUTTON} p-button-secondary`}
          disabled={!canExport}
          onClick={() => archive.send({ type: 'archive.exportRequested' })}
        >
          <Icon shape={piServer} />
          <span>Export to the server&apos;s folder</span>
        </button>
      </div>
      <div className="tp-actions">
        <button
          type="button"
          className={`${BUTTON} p-button-secondary`}
          disabled={busy}
          onClick={() => archive.send({ type: 'archive.importRequested' })}
        >
          <Icon shape={piFolderOpen} />
          <span>Import from the server&apos;s folder</span>
        </button>
        <label className="tp-field">
          <span>Upload an archive</span>
          <input
            type="file"
            accept=".zip,application/zip"
            disabled={busy}
            onChange={(e) => {
              const file = e.target.files?.[0];
              // Cleared so that choosing the same file again uploads it again.
              e.target.value = '';
              if (file)
                archive.send({ type: 'archive.uploadRequested', file, fileName: file.name });
            }}
          />
        </label>
        {busy && <Icon shape={piSpinner} spin label="Working" />}
      </div>
      {error && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
      )}
      {done && (
        <p className="tp-muted" role="status">
          {done}
        </p>
      )}
      {results && (
        <div role="status">
          <p>
            {results.items.length === 0
              ? 'Nothing was added: every workspace in it is here already.'
              : `${results.kind === 'uploaded' ? 'Uploaded' : 'Imported'}: ${results.items.length} added`}
          </p>
          {results.items.length > 0 && (
            <ul aria-label="Workspaces added">
              {results.items.map((item) => (
                <li key={item}>
                  <code>{item}</code>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}

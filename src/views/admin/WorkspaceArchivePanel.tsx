import { shallowEqual, useSelector } from '@xstate/react';
import type { WorkspaceArchiveActorRef } from '../../machines/workspaceArchiveMachine';
import {
  selectArchiveAll,
  selectArchiveDone,
  selectArchiveError,
  selectArchiveListError,
  selectArchiveMatches,
  selectArchiveResults,
  selectArchiveSelected,
  selectArchiveTerm,
  selectArchiveWorkspaces,
  selectCanExport,
  selectIsArchiveBusy,
} from '../../machines/workspaceArchiveMachine.selectors';
import { Icon, piDownload, piFolderOpen, piServer, piSpinner } from '../common/icons';
import './admin.css';

const BUTTON = 'p-button p-component p-button-sm';

/** Export and import of workspaces as a zip (the admin Dashboard, wire reference §1.8). */
export function WorkspaceArchivePanel({ archive }: { archive: WorkspaceArchiveActorRef }) {
  const term = useSelector(archive, selectArchiveTerm);
  const selected = useSelector(archive, selectArchiveSelected);
  const all = useSelector(archive, selectArchiveAll);
  const workspaces = useSelector(archive, selectArchiveWorkspaces);
  const matches = useSelector(archive, selectArchiveMatches, shallowEqual);
  const listError = useSelector(archive, selectArchiveListError);
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
      <p className="tp-muted">
        Disks are not in the archive: its <code>_disks.txt</code> lists the disk images and ISO
        files the templates use. To bring them along, copy each of those files to the same path in
        the new server&apos;s storage (its disk and ISO folders) before anyone launches the
        workspaces there.
      </p>
      <fieldset className="tp-archive-pick" disabled={busy}>
        <legend>Workspaces to export</legend>
        <label className="tp-archive-all">
          <input
            type="checkbox"
            checked={all}
            onChange={() => archive.send({ type: 'archive.allToggled' })}
          />
          <span>All workspaces ({workspaces.length})</span>
        </label>
        <label className="tp-field">
          <span>Search by name</span>
          <input
            type="search"
            className="p-inputtext p-component"
            value={term}
            disabled={all}
            onChange={(e) => archive.send({ type: 'archive.termEdited', text: e.target.value })}
          />
        </label>
        {listError && (
          <p className="tp-alert tp-alert-danger" role="alert">
            The workspaces could not be listed: {listError}
          </p>
        )}
        <ul className="tp-archive-list" aria-label="Workspaces">
          {matches.map((w) => (
            <li key={w.id}>
              <label>
                <input
                  type="checkbox"
                  checked={all || selected.includes(w.id)}
                  disabled={all}
                  onChange={() => archive.send({ type: 'archive.workspaceToggled', id: w.id })}
                />
                <span>{w.name}</span>
              </label>
            </li>
          ))}
          {matches.length === 0 && workspaces.length > 0 && (
            <li className="tp-muted">No workspace is named like that.</li>
          )}
        </ul>
        <p className="tp-muted" aria-live="polite">
          {all
            ? 'Every workspace will be exported.'
            : `${selected.length} selected${selected.length === 0 ? ': tick the workspaces to export.' : '.'}`}
        </p>
      </fieldset>
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

import { useSelector } from '@xstate/react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type {
  BrowserFilter,
  GamespaceBrowserActorRef,
  GamespaceRow,
} from '../../machines/gamespaceBrowserMachine';
import {
  rowSession,
  selectBrowserErrors,
  selectCanDeleteSelected,
  selectConfirming,
  selectFilter,
  selectGamespaceSearch,
  selectIsFullAdminView,
  selectNow,
  selectSelectedIds,
  selectSkip,
  selectTake,
  selectTerm,
  selectViewed,
  selectViewedId,
} from '../../machines/gamespaceBrowserMachine.selectors';
import type { PagedSearchActorRef } from '../../machines/pagedSearchMachine';
import {
  selectCanNext,
  selectCanPrevious,
  selectIsSearchLoading,
  selectItems,
  selectSearchError,
} from '../../machines/pagedSearchMachine.selectors';
import { DismissibleAlerts } from '../common/DismissibleAlerts';
import { ConfirmPrompt } from '../topo/ConfirmPrompt';
import { GamespaceDetailView } from './GamespaceDetailView';
import { Icon, piRefresh } from '../common/icons';

type Search = PagedSearchActorRef<GamespaceRow>;

/** Where a workspace's results table opens (src/app/router.tsx). */
export const resultsPath = (workspaceId: string): string =>
  `/observe/results/${encodeURIComponent(workspaceId)}`;

const FILTERS: readonly BrowserFilter[] = ['active', 'inactive'];
const buttonClass = 'p-button p-component p-button-sm';

/** Previous / Next with the page's skip and take (spec §2: one above and one below the list). */
function Pager({ search, label }: { search: Search; label: string }) {
  const skip = useSelector(search, selectSkip);
  const take = useSelector(search, selectTake);
  const canPrevious = useSelector(search, selectCanPrevious<GamespaceRow>);
  const canNext = useSelector(search, selectCanNext<GamespaceRow>);
  return (
    <nav className="tp-pager" aria-label={label}>
      <button
        type="button"
        className={`${buttonClass} p-button-text`}
        disabled={!canPrevious}
        onClick={() => search.send({ type: 'search.previousRequested' })}
      >
        Previous
      </button>
      <span className="tp-muted tp-small">
        skip {skip}, take {take}
      </span>
      <button
        type="button"
        className={`${buttonClass} p-button-text`}
        disabled={!canNext}
        onClick={() => search.send({ type: 'search.nextRequested' })}
      >
        Next
      </button>
    </nav>
  );
}

function Toolbar({ browser, search }: { browser: GamespaceBrowserActorRef; search: Search }) {
  const term = useSelector(search, selectTerm);
  const filter = useSelector(search, selectFilter);
  const loading = useSelector(search, selectIsSearchLoading<GamespaceRow>);
  const full = useSelector(browser, selectIsFullAdminView);
  const canDeleteSelected = useSelector(browser, selectCanDeleteSelected);
  const confirming = useSelector(browser, selectConfirming);
  return (
    <div className="tp-gs-toolbar">
      <input
        type="search"
        className="p-inputtext p-component"
        aria-label="term"
        placeholder="term"
        value={term}
        onChange={(e) => search.send({ type: 'search.termChanged', term: e.target.value })}
      />
      <div role="group" aria-label="Filter">
        {FILTERS.map((f) => (
          <button
            key={f}
            type="button"
            aria-pressed={filter === f}
            className={`${buttonClass} ${filter === f ? '' : 'p-button-outlined'}`}
            onClick={() => browser.send({ type: 'filter.toggled', filter: f })}
          >
            {f}
          </button>
        ))}
      </div>
      <button
        type="button"
        className={`${buttonClass} p-button-outlined`}
        onClick={() => search.send({ type: 'search.refreshRequested' })}
      >
        <Icon shape={piRefresh} spin={loading} /> Refresh
      </button>
      {full &&
        (confirming?.kind === 'selected' ? (
          <ConfirmPrompt
            question="Delete the selected gamespaces?"
            onConfirm={() => browser.send({ type: 'gamespace.deleteConfirmed' })}
            onCancel={() => browser.send({ type: 'gamespace.deleteCancelled' })}
          />
        ) : (
          <button
            type="button"
            className={`${buttonClass} p-button-danger p-button-outlined`}
            disabled={!canDeleteSelected}
            onClick={() => browser.send({ type: 'gamespace.deleteSelectedRequested' })}
          >
            Delete Selected
          </button>
        ))}
    </div>
  );
}

function Row({
  browser,
  row,
  dispatcher,
  recordings,
}: {
  browser: GamespaceBrowserActorRef;
  row: GamespaceRow;
  dispatcher?: (gamespaceId: string) => ReactNode;
  recordings?: (gamespaceId: string) => ReactNode;
}) {
  const now = useSelector(browser, selectNow);
  const full = useSelector(browser, selectIsFullAdminView);
  const selected = useSelector(browser, (s) => selectSelectedIds(s).includes(row.id));
  const expanded = useSelector(browser, (s) => selectViewedId(s) === row.id);
  const viewed = useSelector(browser, selectViewed);
  const canDelete = useSelector(browser, (s) =>
    s.can({ type: 'gamespace.deleteRequested', id: row.id }),
  );
  const confirmingThis = useSelector(browser, (s) => {
    const target = selectConfirming(s);
    return target?.kind === 'row' && target.id === row.id;
  });
  const { countdown, over, ended } = rowSession(row, now);
  const shortId = row.id.slice(0, 8);
  return (
    <li className={`tp-gs-row ${over ? 'tp-gs-over' : 'tp-gs-live'}`} aria-label={row.name}>
      <div className="tp-gs-line">
        {full && (
          <input
            type="checkbox"
            aria-label={`select ${shortId}`}
            checked={selected}
            onChange={() => browser.send({ type: 'gamespace.selectionToggled', id: row.id })}
          />
        )}
        <code className="tp-gs-id">{shortId}</code>
        {ended ? (
          <span className="tp-gs-countdown" aria-label="ended">
            ended {ended}
          </span>
        ) : (
          <span className="tp-gs-countdown" aria-label="countdown">
            {countdown}
          </span>
        )}
        <span className="tp-gs-manager">{row.managerName}</span>
        <span className="tp-gs-name">{row.name}</span>
        <button
          type="button"
          className={`${buttonClass} p-button-outlined`}
          aria-expanded={expanded}
          onClick={() =>
            browser.send({
              type: 'gamespace.viewToggled',
              id: row.id,
              workspaceId: row.workspaceId,
            })
          }
        >
          View
        </button>
        {row.workspaceId && (
          <Link
            className={`${buttonClass} p-button-text`}
            to={resultsPath(row.workspaceId)}
            aria-label={`Results of ${row.name}`}
          >
            Results
          </Link>
        )}
        {full &&
          (confirmingThis ? (
            <ConfirmPrompt
              question={`Delete gamespace ${shortId}?`}
              onConfirm={() => browser.send({ type: 'gamespace.deleteConfirmed' })}
              onCancel={() => browser.send({ type: 'gamespace.deleteCancelled' })}
            />
          ) : (
            <button
              type="button"
              className={`${buttonClass} p-button-danger p-button-outlined`}
              disabled={!canDelete}
              onClick={() => browser.send({ type: 'gamespace.deleteRequested', id: row.id })}
            >
              Delete
            </button>
          ))}
      </div>
      {expanded && viewed && (
        <GamespaceDetailView
          detailRef={viewed}
          row={row}
          now={now}
          dispatcher={dispatcher}
          recordings={recordings}
        />
      )}
    </li>
  );
}

/**
 * The gamespace browser (spec §2): observers get the list to look at; the admin route's full view
 * adds the selection and the deletes.
 */
export function GamespaceBrowser({
  browser,
  dispatcher,
  recordings,
}: {
  browser: GamespaceBrowserActorRef;
  /** The Dispatcher tab's console for a gamespace, where the page has one. */
  dispatcher?: (gamespaceId: string) => ReactNode;
  /** The Recordings tab's list of a gamespace's console recordings, where the page has one. */
  recordings?: (gamespaceId: string) => ReactNode;
}) {
  const search = useSelector(browser, selectGamespaceSearch);
  const rows = useSelector(search, selectItems<GamespaceRow>);
  const searchError = useSelector(search, selectSearchError<GamespaceRow>);
  const loading = useSelector(search, selectIsSearchLoading<GamespaceRow>);
  const full = useSelector(browser, selectIsFullAdminView);
  const selectedIds = useSelector(browser, selectSelectedIds);
  const errors = useSelector(browser, selectBrowserErrors);
  const ids = rows.map((r) => r.id);
  const allSelected = ids.length > 0 && ids.every((id) => selectedIds.includes(id));
  return (
    <section className="tp-gs-browser" aria-labelledby="gs-browser-title">
      <h2 id="gs-browser-title">Gamespaces</h2>
      <Toolbar browser={browser} search={search} />
      {full && (
        <label className="tp-gs-select-all">
          <input
            type="checkbox"
            checked={allSelected}
            onChange={() => browser.send({ type: 'gamespace.allSelectionToggled', ids })}
          />{' '}
          select all
        </label>
      )}
      <DismissibleAlerts
        messages={errors}
        onDismiss={(index) => browser.send({ type: 'alert.dismissed', index })}
      />
      {searchError && (
        <p className="tp-browser-error" role="status">
          {searchError}
        </p>
      )}
      <Pager search={search} label="Pager above" />
      <ul className="tp-gs-list" aria-label="Gamespace list" aria-busy={loading}>
        {rows.map((row) => (
          <Row
            key={row.id}
            browser={browser}
            row={row}
            dispatcher={dispatcher}
            recordings={recordings}
          />
        ))}
        {rows.length === 0 && !loading && <li className="tp-muted">No gamespaces.</li>}
      </ul>
      <Pager search={search} label="Pager below" />
    </section>
  );
}

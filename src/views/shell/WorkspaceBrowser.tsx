import { useSelector } from '@xstate/react';
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { PagedSearchActorRef } from '../../machines/pagedSearchMachine';
import {
  selectCanNext,
  selectCanPrevious,
  selectIsSearchLoading,
  selectItems,
  selectSearchError,
  selectShowPager,
} from '../../machines/pagedSearchMachine.selectors';
import {
  BROWSE_MODES,
  type BrowseMode,
  type GamespaceCard,
  type WorkspaceBrowserActorRef,
  type WorkspaceCard,
} from '../../machines/workspaceBrowserMachine';
import {
  expiresInText,
  selectBrowseMode,
  selectBrowserNow,
  selectBrowseTerm,
  selectGamespacesSearch,
  selectIsBrowserSignedIn,
  selectIsSearchFocusRequested,
  selectMyWorkspacesSearch,
  selectPlayWorkspacesSearch,
} from '../../machines/workspaceBrowserMachine.selectors';
import { WORKSPACE_SECTIONS, type WorkspaceSection } from '../../machines/workspaceSections';
import { Icon, piRefresh, piSpinner } from '../common/icons';

const MODE_LABELS: Record<BrowseMode, string> = {
  workspaces: 'Workspaces',
  gamespaces: 'Gamespaces',
};

const SECTION_LABELS: Record<WorkspaceSection, string> = {
  settings: 'Settings',
  templates: 'Templates',
  document: 'Document',
  challenge: 'Challenge',
  files: 'Files',
  play: 'Play',
};

const workspacePath = (id: string, section: WorkspaceSection) =>
  `/topo/${encodeURIComponent(id)}/${section}`;

const playPath = (id: string, slug: string) =>
  `/mojo/${encodeURIComponent(id)}/${encodeURIComponent(slug)}`;

/** The search box; Ctrl+O asks the browser to focus it, and it reports when it has. */
function SearchBox({ browser }: { browser: WorkspaceBrowserActorRef }) {
  const term = useSelector(browser, selectBrowseTerm);
  const focusRequested = useSelector(browser, selectIsSearchFocusRequested);
  const input = useRef<HTMLInputElement>(null);

  // A UI effect: moving the focus is the one thing the machine cannot do for the view.
  useEffect(() => {
    if (!focusRequested) return;
    input.current?.focus();
    browser.send({ type: 'search.focused' });
  }, [focusRequested, browser]);

  return (
    <input
      ref={input}
      type="search"
      className="p-inputtext p-component tp-browser-search"
      aria-label="Search"
      placeholder="Search"
      autoComplete="off"
      value={term}
      onChange={(event) => browser.send({ type: 'search.termChanged', term: event.target.value })}
    />
  );
}

/** Previous / Next, shown when there is more than one page (spec §5 Pager). */
function Pager<T>({ search }: { search: PagedSearchActorRef<T> }) {
  const show = useSelector(search, selectShowPager<T>);
  const canPrevious = useSelector(search, selectCanPrevious<T>);
  const canNext = useSelector(search, selectCanNext<T>);
  if (!show) return null;
  return (
    <div className="tp-pager">
      <button
        type="button"
        className="p-button p-component p-button-text p-button-sm"
        disabled={!canPrevious}
        onClick={() => search.send({ type: 'search.previousRequested' })}
      >
        Previous
      </button>
      <button
        type="button"
        className="p-button p-component p-button-text p-button-sm"
        disabled={!canNext}
        onClick={() => search.send({ type: 'search.nextRequested' })}
      >
        Next
      </button>
    </div>
  );
}

/** One list of the browser: a heading, the cards, an error if the last fetch failed, a pager. */
function SearchList<T extends { id: string }>({
  title,
  empty,
  search,
  renderCard,
}: {
  title: string;
  empty: string;
  search: PagedSearchActorRef<T>;
  renderCard: (item: T) => ReactNode;
}) {
  const items = useSelector(search, selectItems<T>);
  const loading = useSelector(search, selectIsSearchLoading<T>);
  const error = useSelector(search, selectSearchError<T>);
  const headingId = useId();

  return (
    <section className="tp-browser-section" aria-labelledby={headingId}>
      <h3 id={headingId} className="tp-browser-heading">
        {title}
        {loading && <Icon shape={piSpinner} spin className="tp-muted" />}
      </h3>
      {error !== null && (
        <p className="tp-browser-error" role="status">
          {error}
        </p>
      )}
      <ul className="tp-sidebar-list" aria-label={title} aria-busy={loading}>
        {items.map((item) => (
          <li key={item.id} className="tp-browser-card">
            {renderCard(item)}
          </li>
        ))}
        {items.length === 0 && !loading && error === null && (
          <li className="tp-muted tp-small">{empty}</li>
        )}
      </ul>
      <Pager search={search} />
    </section>
  );
}

/** The name opens the settings (Enter, as a link); hover or focus reveals the other sections. */
function MyWorkspaceCard({
  workspace,
  sections,
}: {
  workspace: WorkspaceCard;
  sections: readonly WorkspaceSection[];
}) {
  return (
    <>
      <Link to={workspacePath(workspace.id, 'settings')} className="tp-browser-card-title">
        {workspace.name || workspace.id}
      </Link>
      <div className="tp-browser-card-links">
        {sections.map((section) => (
          <Link key={section} to={workspacePath(workspace.id, section)}>
            {SECTION_LABELS[section]}
          </Link>
        ))}
      </div>
    </>
  );
}

function PlayCard({ workspace }: { workspace: WorkspaceCard }) {
  return (
    <Link to={playPath(workspace.id, workspace.slug)} className="tp-browser-card-title">
      {workspace.name || workspace.id}
    </Link>
  );
}

function GamespaceCardView({ gamespace, now }: { gamespace: GamespaceCard; now: number | null }) {
  const expiresIn = expiresInText(gamespace.expiresAt, now);
  return (
    <>
      <span className="tp-browser-card-title">{gamespace.name || gamespace.id}</span>
      {expiresIn !== null && <span className="tp-muted tp-small">expires in {expiresIn}</span>}
      <Link
        to={playPath(gamespace.workspaceId ?? gamespace.id, gamespace.slug)}
        className="tp-browser-card-action"
      >
        {gamespace.started ? 'Continue' : 'Preview'}
      </Link>
    </>
  );
}

function WorkspaceLists({
  browser,
  uploadEnabled,
}: {
  browser: WorkspaceBrowserActorRef;
  uploadEnabled: boolean;
}) {
  const mine = useSelector(browser, selectMyWorkspacesSearch);
  const play = useSelector(browser, selectPlayWorkspacesSearch);
  const sections = WORKSPACE_SECTIONS.filter((s) => s !== 'files' || uploadEnabled);
  return (
    <>
      {mine && (
        <SearchList
          title="My Workspaces"
          empty="No workspaces to show."
          search={mine}
          renderCard={(workspace) => <MyWorkspaceCard workspace={workspace} sections={sections} />}
        />
      )}
      {play && (
        <SearchList
          title="Play"
          empty="Nothing published to play."
          search={play}
          renderCard={(workspace) => <PlayCard workspace={workspace} />}
        />
      )}
    </>
  );
}

function GamespaceList({ browser }: { browser: WorkspaceBrowserActorRef }) {
  const games = useSelector(browser, selectGamespacesSearch);
  // Ticks every second while the gamespaces are on show: only this list re-renders.
  const now = useSelector(browser, selectBrowserNow);
  if (!games) return null;
  return (
    <SearchList
      title="Active Gamespaces"
      empty="No active gamespaces."
      search={games}
      renderCard={(gamespace) => <GamespaceCardView gamespace={gamespace} now={now} />}
    />
  );
}

function SignedInBrowser({
  browser,
  uploadEnabled,
}: {
  browser: WorkspaceBrowserActorRef;
  uploadEnabled: boolean;
}) {
  const mode = useSelector(browser, selectBrowseMode);
  return (
    <>
      <div className="tp-browser-tools">
        <SearchBox browser={browser} />
        <button
          type="button"
          className="tp-icon-button"
          aria-label="Refresh"
          title="Refresh"
          onClick={() => browser.send({ type: 'search.refreshRequested' })}
        >
          <Icon shape={piRefresh} />
        </button>
      </div>
      <div className="tp-browser-modes" role="group" aria-label="Browse">
        {BROWSE_MODES.map((m) => (
          <button
            key={m}
            type="button"
            className="tp-browser-mode"
            aria-pressed={mode === m}
            onClick={() => browser.send({ type: 'browser.modeRequested', mode: m })}
          >
            {MODE_LABELS[m]}
          </button>
        ))}
      </div>
      {mode === 'workspaces' ? (
        <WorkspaceLists browser={browser} uploadEnabled={uploadEnabled} />
      ) : (
        <GamespaceList browser={browser} />
      )}
    </>
  );
}

/** The workspace browser (spec §2): the sidebar's content while it is open. */
export function WorkspaceBrowser({
  browser,
  uploadEnabled,
}: {
  browser: WorkspaceBrowserActorRef;
  /** The Files section exists only when uploads are enabled. */
  uploadEnabled: boolean;
}) {
  const signedIn = useSelector(browser, selectIsBrowserSignedIn);
  const mode = useSelector(browser, selectBrowseMode);
  return (
    <div className="tp-sidebar-body">
      {/* The heading names what the list below shows: the mode toggle switches both. */}
      <h2 className="tp-sidebar-title">{signedIn ? MODE_LABELS[mode] : MODE_LABELS.workspaces}</h2>
      {signedIn ? (
        <SignedInBrowser browser={browser} uploadEnabled={uploadEnabled} />
      ) : (
        <p className="tp-muted">Sign in to browse workspaces.</p>
      )}
    </div>
  );
}

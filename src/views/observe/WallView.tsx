import { useSelector } from '@xstate/react';
import { memo, useState, type ReactNode } from 'react';
import { isWallSort, teamName, type WallSort } from '../../domain/wall';
import { consoleUrl } from '../../machines/vmControllerRules';
import type { WallActorRef, WallEntry } from '../../machines/wallMachine';
import {
  selectIsPinned,
  selectIsWallFirstLoading,
  selectLastActivity,
  selectTimeLeft,
  selectWallEntry,
  selectWallError,
  selectWallFilter,
  selectWallIds,
  selectWallSort,
  selectWallTotal,
  selectWallWorkspaces,
} from '../../machines/wallMachine.selectors';
import { Spinner } from '../common/Spinner';
import { useTitle } from '../common/useTitle';
import { Icon, piRefresh, piThumbtack } from '../common/icons';
import './wall.css';

/** What the page gives a tile for each running machine: its picture. */
export type ThumbnailSlot = (vm: { id: string; name: string }) => ReactNode;

/** What the page gives a tile whose timeline is open: the gamespace's live event log. */
export type TimelineSlot = (game: { gamespaceId: string; workspaceId: string }) => ReactNode;

/**
 * What the page shows beside the grid: the help queue and the alerts, of the chosen workspace or
 * (null) of every workspace the viewer observes.
 */
export type AsideSlot = (workspaceId: string | null) => ReactNode;

const SORT_LABELS: Record<WallSort, string> = {
  timeLeft: 'Time left',
  score: 'Score',
  lastActivity: 'Last activity',
};

const STATE_LABELS: Record<string, string> = {
  running: 'Running',
  someOff: 'Some machines off',
  allOff: 'Machines off',
  noMachines: 'No machines',
};

const buttonClass = 'p-button p-component p-button-sm';

function Toolbar({ wall }: { wall: WallActorRef }) {
  const filter = useSelector(wall, selectWallFilter);
  const sort = useSelector(wall, selectWallSort);
  const workspaces = useSelector(wall, selectWallWorkspaces);
  const loading = useSelector(wall, (s) => s.hasTag('loading'));
  return (
    <div className="tp-wall-toolbar">
      <label>
        <span>Workspace</span>
        <select
          className="p-inputtext p-component"
          value={filter.workspaceId ?? ''}
          onChange={(e) =>
            wall.send({ type: 'wall.workspaceChosen', workspaceId: e.target.value || null })
          }
        >
          <option value="">All workspaces</option>
          {workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name || w.id}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Filter</span>
        <input
          type="search"
          className="p-inputtext p-component"
          placeholder="Player, workspace or machine"
          value={filter.text}
          onChange={(e) => wall.send({ type: 'wall.textChanged', text: e.target.value })}
        />
      </label>
      <label>
        <span>Sort by</span>
        <select
          className="p-inputtext p-component"
          value={sort}
          onChange={(e) => {
            if (isWallSort(e.target.value))
              wall.send({ type: 'wall.sortChosen', sort: e.target.value });
          }}
        >
          {(Object.keys(SORT_LABELS) as WallSort[]).map((s) => (
            <option key={s} value={s}>
              {SORT_LABELS[s]}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className={`${buttonClass} p-button-outlined`}
        onClick={() => wall.send({ type: 'wall.refreshRequested' })}
      >
        <Icon shape={piRefresh} spin={loading} /> Refresh
      </button>
    </div>
  );
}

/** The countdown alone renders each second: the tile around it does not. */
function TimeLeft({ wall, id }: { wall: WallActorRef; id: string }) {
  return <>{useSelector(wall, (s) => selectTimeLeft(s, id))}</>;
}

function LastActivity({ wall, id }: { wall: WallActorRef; id: string }) {
  return <>{useSelector(wall, (s) => selectLastActivity(s, id))}</>;
}

function Machines({
  entry,
  team,
  thumbnail,
}: {
  entry: WallEntry;
  team: string;
  thumbnail: ThumbnailSlot;
}) {
  if (entry.machines.length === 0) return <p className="tp-muted tp-small">No machines.</p>;
  return (
    <ul className="tp-wall-machines" aria-label="Machines">
      {entry.machines.map((vm) => (
        <li key={vm.id}>
          <a
            className="tp-wall-machine"
            // The console the gamespace browser opens for observers, in a tab of its own.
            href={consoleUrl(
              { id: vm.id, name: `${vm.name}#${entry.gamespaceId}` },
              { fullbleed: false, sessionId: entry.gamespaceId },
            )}
            target="_blank"
            // The console tab signs in with the session this tab hands on to the tab it opens
            // (as the gamespace browser's window.open does); same origin, so the opener is safe.
            rel="opener"
          >
            {/* The picture is for the eye; the link is named by the text after it. */}
            <span aria-hidden="true">
              {vm.state === 'running' ? (
                thumbnail({ id: vm.id, name: vm.name })
              ) : (
                <span className="tp-wall-thumb">
                  <span className="tp-wall-placeholder">Off</span>
                </span>
              )}
            </span>
            <span className="tp-wall-machine-name">{vm.name}</span>
            <span className="tp-visually-hidden">
              {vm.state === 'running' ? '' : ' (off)'}: open the console ({team})
            </span>
          </a>
        </li>
      ))}
    </ul>
  );
}

/** A gamespace's tile; renders again only when its entry or its pin changes. */
const Card = memo(function Card({
  wall,
  id,
  thumbnail,
  timeline,
}: {
  wall: WallActorRef;
  id: string;
  thumbnail: ThumbnailSlot;
  timeline: TimelineSlot | undefined;
}) {
  const entry = useSelector(wall, (s) => selectWallEntry(s, id));
  const pinned = useSelector(wall, (s) => selectIsPinned(s, id));
  const [showTimeline, setShowTimeline] = useState(false);
  if (!entry) return null;
  const team = teamName(entry);
  const headingId = `wall-${id}`;
  const alerts = entry.alerts ?? 0;
  return (
    <li
      className="tp-wall-card"
      aria-labelledby={headingId}
      data-pinned={pinned}
      data-hand={entry.help ? 'raised' : undefined}
      data-alerts={alerts > 0 ? alerts : undefined}
      data-expanded={showTimeline || undefined}
    >
      <div className="tp-wall-card-head">
        <h2 id={headingId} title={team}>
          {team}
        </h2>
        <button
          type="button"
          className="tp-icon-button"
          aria-pressed={pinned}
          aria-label={pinned ? `Unpin ${team}` : `Pin ${team}`}
          title={pinned ? 'Unpin' : 'Pin'}
          onClick={() => wall.send({ type: 'wall.pinToggled', gamespaceId: id })}
        >
          <Icon shape={piThumbtack} />
        </button>
      </div>
      <p className="tp-wall-workspace tp-muted" title={entry.workspaceName}>
        {entry.workspaceName}
      </p>
      <dl className="tp-wall-facts">
        <div>
          <dt>Score</dt>
          <dd>
            {entry.score} / {entry.maxPoints}
          </dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>
            {entry.attempts}
            {entry.maxAttempts > 0 ? ` / ${entry.maxAttempts}` : ''}
          </dd>
        </div>
        <div>
          <dt>Time left</dt>
          <dd className="tp-wall-time">
            <TimeLeft wall={wall} id={id} />
          </dd>
        </div>
        <div>
          <dt>State</dt>
          <dd data-state={entry.state}>{STATE_LABELS[entry.state] ?? entry.state}</dd>
        </div>
        <div className="tp-wall-wide">
          <dt>Last activity</dt>
          <dd>
            <LastActivity wall={wall} id={id} />
          </dd>
        </div>
      </dl>
      {entry.help && (
        <p className="tp-wall-hand">
          <strong>Hand raised</strong>
          {entry.help.claimedByName ? ` (${entry.help.claimedByName} is on it)` : ''}:{' '}
          <span className="tp-wall-hand-message">{entry.help.message}</span>
        </p>
      )}
      {alerts > 0 && (
        <p className="tp-wall-alert">
          <strong>{alerts === 1 ? '1 alert' : `${alerts} alerts`}</strong>: an answer generated for
          another gamespace
        </p>
      )}
      <Machines entry={entry} team={team} thumbnail={thumbnail} />
      {timeline && (
        <>
          <button
            type="button"
            className="p-button p-component p-button-text p-button-sm tp-wall-timeline-toggle"
            aria-expanded={showTimeline}
            onClick={() => setShowTimeline((shown) => !shown)}
          >
            {showTimeline ? 'Hide timeline' : 'Timeline'}
          </button>
          {showTimeline && timeline({ gamespaceId: id, workspaceId: entry.workspaceId })}
        </>
      )}
    </li>
  );
});

function Grid({
  wall,
  thumbnail,
  timeline,
}: {
  wall: WallActorRef;
  thumbnail: ThumbnailSlot;
  timeline: TimelineSlot | undefined;
}) {
  const ids = useSelector(wall, selectWallIds);
  const total = useSelector(wall, selectWallTotal);
  const firstLoading = useSelector(wall, selectIsWallFirstLoading);
  if (firstLoading) return <Spinner label="Loading the wall" />;
  return (
    <>
      <p className="tp-muted tp-small" role="status">
        {ids.length === total
          ? `${total} running ${total === 1 ? 'gamespace' : 'gamespaces'}`
          : `${ids.length} of ${total} running gamespaces`}
      </p>
      {ids.length > 0 && (
        <ul className="tp-wall-grid" aria-label="Running gamespaces">
          {ids.map((id) => (
            <Card key={id} wall={wall} id={id} thumbnail={thumbnail} timeline={timeline} />
          ))}
        </ul>
      )}
    </>
  );
}

/** /observe/wall: every running gamespace the viewer may observe, with its machines' pictures. */
export default function WallView({
  wall,
  thumbnail,
  timeline,
  aside,
}: {
  wall: WallActorRef;
  thumbnail: ThumbnailSlot;
  timeline?: TimelineSlot;
  aside?: AsideSlot;
}) {
  useTitle('Instructor wall');
  const error = useSelector(wall, selectWallError);
  const workspaceId = useSelector(wall, (s) => selectWallFilter(s).workspaceId);
  return (
    <div className="tp-page tp-wall-page">
      <h1>Instructor wall</h1>
      <Toolbar wall={wall} />
      {error && (
        <div className="tp-alert tp-alert-danger" role="alert">
          {error}
        </div>
      )}
      {aside && <div className="tp-wall-aside">{aside(workspaceId ?? null)}</div>}
      <Grid wall={wall} thumbnail={thumbnail} timeline={timeline} />
    </div>
  );
}

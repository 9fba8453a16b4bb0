import { useSelector } from '@xstate/react';
import {
  MAX_ANNOUNCEMENT_CHARS,
  type AdminDashboardActorRef,
  type AdminDashboardContext,
} from '../../machines/adminDashboardMachine';
import {
  selectAnnounceError,
  selectCanAnnounce,
  selectCommit,
  selectDraft,
  selectHypervisor,
  selectHypervisorError,
  selectIsAnnouncing,
  selectIsLoadingHypervisor,
  selectIsJanitorRunning,
  selectIsLoadingLive,
  selectJanitorError,
  selectLive,
  selectLiveError,
  selectReport,
  selectReportDryRun,
  selectSent,
} from '../../machines/adminDashboardMachine.selectors';
import type { WarmPoolsActorRef } from '../../machines/warmPoolsMachine';
import type { WorkspaceArchiveActorRef } from '../../machines/workspaceArchiveMachine';
import { janitorSummary } from '../../domain/janitorReport';
import { WarmPoolsPanel } from './WarmPoolsPanel';
import { WorkspaceArchivePanel } from './WorkspaceArchivePanel';
import { RefreshButton } from './RefreshButton';
import { Icon, piMegaphone, piSearch, piSpinner, piTrash } from '../common/icons';

function Announce({ dashboard }: { dashboard: AdminDashboardActorRef }) {
  const draft = useSelector(dashboard, selectDraft);
  const sent = useSelector(dashboard, selectSent);
  const error = useSelector(dashboard, selectAnnounceError);
  const canSend = useSelector(dashboard, selectCanAnnounce);
  const sending = useSelector(dashboard, selectIsAnnouncing);
  return (
    <section aria-labelledby="tp-announce" className="tp-panel">
      <h3 id="tp-announce">Announce</h3>
      <form
        className="tp-form"
        onSubmit={(e) => {
          e.preventDefault();
          dashboard.send({ type: 'announce.submitted' });
        }}
      >
        <label className="tp-field">
          <span>Message to every connected user</span>
          <textarea
            className="p-inputtextarea p-inputtext p-component"
            rows={3}
            maxLength={MAX_ANNOUNCEMENT_CHARS}
            value={draft}
            onChange={(e) => dashboard.send({ type: 'announce.edited', text: e.target.value })}
          />
        </label>
        <div className="tp-actions">
          <button type="submit" className="p-button p-component p-button-sm" disabled={!canSend}>
            <Icon shape={piMegaphone} />
            <span>{sending ? 'Sending...' : 'Announce'}</span>
          </button>
        </div>
      </form>
      {error && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
      )}
      {sent && !error && (
        <p className="tp-muted" role="status">
          Announced: {sent}
        </p>
      )}
    </section>
  );
}

function Live({ dashboard }: { dashboard: AdminDashboardActorRef }) {
  const live = useSelector(dashboard, selectLive);
  const loading = useSelector(dashboard, selectIsLoadingLive);
  const error = useSelector(dashboard, selectLiveError);
  return (
    <section aria-labelledby="tp-live" className="tp-panel">
      <div className="tp-section-header">
        <h3 id="tp-live">Live connections ({live.length})</h3>
        <RefreshButton
          loading={loading}
          onClick={() => dashboard.send({ type: 'live.refreshRequested' })}
        />
      </div>
      {error && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
      )}
      <table className="tp-table" aria-label="Live connections">
        <thead>
          <tr>
            <th scope="col">User</th>
            <th scope="col">Room</th>
            <th scope="col">Connection</th>
          </tr>
        </thead>
        <tbody>
          {live.map((c) => (
            <tr key={`${c.id} ${c.room ?? ''}`}>
              <td>{c.profileName || c.profileId}</td>
              <td>{c.room}</td>
              <td>
                <code>{c.id.slice(0, 8)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Janitor({ dashboard }: { dashboard: AdminDashboardActorRef }) {
  const report = useSelector(dashboard, selectReport);
  const dryRun = useSelector(dashboard, selectReportDryRun);
  const running = useSelector(dashboard, selectIsJanitorRunning);
  const error = useSelector(dashboard, selectJanitorError);
  return (
    <section aria-labelledby="tp-janitor" className="tp-panel">
      <h3 id="tp-janitor">Janitor</h3>
      <p className="tp-muted">
        Ends expired gamespaces and removes their machines; reports idle and forgotten workspaces,
        and machines that belong to no workspace or gamespace (removed once they have been reported
        for a while). A dry run only reports.
      </p>
      <div className="tp-actions">
        <button
          type="button"
          className="p-button p-component p-button-sm"
          disabled={running}
          onClick={() => dashboard.send({ type: 'janitor.runRequested', dryRun: true })}
        >
          <Icon shape={piSearch} />
          <span>Dry run</span>
        </button>
        <button
          type="button"
          className="p-button p-component p-button-sm p-button-warning"
          disabled={running}
          onClick={() => dashboard.send({ type: 'janitor.runRequested', dryRun: false })}
        >
          <Icon shape={piTrash} />
          <span>Run janitor</span>
        </button>
        {running && <Icon shape={piSpinner} spin label="Running" />}
      </div>
      {error && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
      )}
      {report && report.length === 0 && <p role="status">{janitorSummary(0, dryRun)}</p>}
      {report && report.length > 0 && (
        <table className="tp-table" aria-label="Janitor report">
          <caption className="tp-muted">{janitorSummary(report.length, dryRun)}</caption>
          <thead>
            <tr>
              <th scope="col">Reason</th>
              <th scope="col">Name</th>
              <th scope="col">Owner</th>
              <th scope="col">Last activity</th>
              <th scope="col">Machines</th>
            </tr>
          </thead>
          <tbody>
            {report.map((r) => (
              <tr key={`${r.reason ?? ''} ${r.id}`}>
                <td>{r.reason}</td>
                <td>{r.name}</td>
                <td>{r.ownerName}</td>
                <td>{r.age}</td>
                <td>{r.vmCount}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** What an administrator reads for each driver: where the machines really run. */
const DRIVER_NAMES: Readonly<Record<string, string>> = {
  sim: 'Simulated machines',
  qemu: 'QEMU on this host',
  proxmox: 'Proxmox cluster',
};

/** "3 of 10" against a cap, "3" without one. */
const ofCap = (value: number, cap: number | null, unit = '') =>
  cap === null ? `${value}${unit}` : `${value}${unit} of ${cap}${unit}`;

function HypervisorFigures({
  status,
}: {
  status: NonNullable<AdminDashboardContext['hypervisor']>;
}) {
  const rows: Array<[string, string]> = [
    ['Driver', DRIVER_NAMES[status.kind] ?? status.kind],
    ['Acceleration', status.acceleration],
    ['Running machines', ofCap(status.running, status.maxRunning)],
    ['Memory in use', ofCap(status.memoryMiBInUse, status.maxMemoryMiB, ' MiB')],
    ['Orphans', String(status.orphans)],
  ];
  return (
    <table className="tp-table" aria-label="Hypervisor status">
      <tbody>
        {rows.map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Hypervisor({ dashboard }: { dashboard: AdminDashboardActorRef }) {
  const status = useSelector(dashboard, selectHypervisor);
  const loading = useSelector(dashboard, selectIsLoadingHypervisor);
  const error = useSelector(dashboard, selectHypervisorError);
  return (
    <section aria-labelledby="tp-hypervisor" className="tp-panel">
      <div className="tp-section-header">
        <h3 id="tp-hypervisor">Hypervisor</h3>
        <RefreshButton
          loading={loading}
          label="Refresh hypervisor status"
          onClick={() => dashboard.send({ type: 'hypervisor.refreshRequested' })}
        />
      </div>
      {error && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
      )}
      {status && <HypervisorFigures status={status} />}
      {status && status.orphans > 0 && (
        <p className="tp-muted">
          Orphans are what the hypervisor keeps that no machine needs any more (a QEMU process whose
          machine is gone, a Proxmox base image a save replaced); the janitor removes them.
        </p>
      )}
    </section>
  );
}

/**
 * The admin Dashboard: announce, live connections, janitor, export and import of workspaces, the
 * hypervisor and version (spec §2 admin), and the warm pools (ours, docs/operations.md).
 */
export function AdminDashboardView({
  dashboard,
  archive,
  pools,
}: {
  dashboard: AdminDashboardActorRef;
  archive?: WorkspaceArchiveActorRef;
  pools?: WarmPoolsActorRef;
}) {
  const commit = useSelector(dashboard, selectCommit);
  return (
    <section aria-labelledby="tp-dashboard" className="tp-admin-dashboard">
      <h2 id="tp-dashboard">Dashboard</h2>
      <Announce dashboard={dashboard} />
      <Janitor dashboard={dashboard} />
      {archive && <WorkspaceArchivePanel archive={archive} />}
      <Live dashboard={dashboard} />
      <Hypervisor dashboard={dashboard} />
      {pools && <WarmPoolsPanel pools={pools} />}
      <p className="tp-muted tp-small">Server version: {commit || 'unknown'}</p>
    </section>
  );
}

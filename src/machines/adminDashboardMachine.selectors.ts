import type { AdminDashboardSnapshot } from './adminDashboardMachine';

export const selectDraft = (s: AdminDashboardSnapshot) => s.context.draft;
export const selectSent = (s: AdminDashboardSnapshot) => s.context.sent;
export const selectLive = (s: AdminDashboardSnapshot) => s.context.live;
export const selectReport = (s: AdminDashboardSnapshot) => s.context.report;
export const selectReportDryRun = (s: AdminDashboardSnapshot) => s.context.reportDryRun;
export const selectHypervisor = (s: AdminDashboardSnapshot) => s.context.hypervisor;
export const selectHypervisorError = (s: AdminDashboardSnapshot) => s.context.errors.hypervisor;
export const selectIsLoadingHypervisor = (s: AdminDashboardSnapshot) =>
  s.hasTag('loadingHypervisor');
export const selectCommit = (s: AdminDashboardSnapshot) => s.context.version?.commit ?? null;
export const selectLiveError = (s: AdminDashboardSnapshot) => s.context.errors.live;
export const selectAnnounceError = (s: AdminDashboardSnapshot) => s.context.errors.announce;
export const selectJanitorError = (s: AdminDashboardSnapshot) => s.context.errors.janitor;
export const selectCanAnnounce = (s: AdminDashboardSnapshot) =>
  s.can({ type: 'announce.submitted' });
export const selectIsAnnouncing = (s: AdminDashboardSnapshot) => s.hasTag('announcing');
export const selectIsLoadingLive = (s: AdminDashboardSnapshot) => s.hasTag('loadingLive');
export const selectIsJanitorRunning = (s: AdminDashboardSnapshot) => s.hasTag('janitorRunning');

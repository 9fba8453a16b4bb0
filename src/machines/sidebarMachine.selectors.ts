import type { SidebarSnapshot } from './sidebarMachine';

export const selectIsSidebarExpanded = (snapshot: SidebarSnapshot): boolean =>
  snapshot.hasTag('expanded');

export const selectIsSidebarPinned = (snapshot: SidebarSnapshot): boolean =>
  snapshot.hasTag('pinned');

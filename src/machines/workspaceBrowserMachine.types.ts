// The types of workspaceBrowserMachine.ts (which exports them), kept apart so that the machine's
// file is its setup and chart.

/** The sidebar's modes: its lists of workspaces or of gamespaces. */
export type BrowseMode = 'workspaces' | 'gamespaces';

/** What a workspace card shows and links to. */
export interface WorkspaceCard {
  id: string;
  name: string;
  /** The name made URL-friendly, for play links (/mojo/{id}/{slug}). */
  slug: string;
}

/** What a gamespace card shows and links to. */
export interface GamespaceCard {
  id: string;
  /** Play links go to the workspace when it is known (/mojo/{workspaceId}/{slug}). */
  workspaceId: string | null;
  name: string;
  slug: string;
  /** Started: the link reads 'Continue'; not yet: 'Preview'. */
  started: boolean;
  /** When it expires (epoch ms), or null when the expiry is not set. */
  expiresAt: number | null;
}

export type WorkspaceBrowserEvent =
  /** The user signed in (or the session was found on load). */
  | { type: 'session.started' }
  | { type: 'session.ended' }
  /** The sidebar opened (hover or pin) or closed. */
  | { type: 'browser.shown' }
  | { type: 'browser.hidden' }
  | { type: 'browser.modeRequested'; mode: BrowseMode }
  | { type: 'search.termChanged'; term: string }
  | { type: 'search.refreshRequested' }
  /** Ctrl+O: the search box should take the focus once it is on screen. */
  | { type: 'search.focusRequested' }
  /** The view focused the search box. */
  | { type: 'search.focused' }
  /**
   * The user's workspaces changed: one of them was updated or deleted (hub TOPO.UPDATED /
   * TOPO.DELETED), they gained or lost one (TOPO.ADDED / TOPO.REMOVED on their own channel), or
   * they created, cloned, deleted or joined one in this tab.
   */
  | { type: 'workspaces.changed' }
  /** A second passed; `now` in epoch ms, for the gamespace countdowns. */
  | { type: 'clock.ticked'; now: number };

export interface WorkspaceBrowserInput {
  /** The mode remembered in local settings. */
  mode?: BrowseMode;
}

export interface WorkspaceBrowserContext {
  /** The chosen mode, remembered across sessions and page loads. */
  mode: BrowseMode;
  /** The search box's text; every list of the mode searches it. */
  term: string;
  /** The clock's last tick (epoch ms); null before the first one. */
  now: number | null;
}

import { countdownText } from '../domain/time';
import type {
  BrowseMode,
  GamespaceSearchActorRef,
  WorkspaceBrowserSnapshot,
  WorkspaceSearchActorRef,
} from './workspaceBrowserMachine';

export const selectIsBrowserSignedIn = (snapshot: WorkspaceBrowserSnapshot): boolean =>
  snapshot.matches('signedIn');

export const selectBrowseMode = (snapshot: WorkspaceBrowserSnapshot): BrowseMode =>
  snapshot.context.mode;

export const selectBrowseTerm = (snapshot: WorkspaceBrowserSnapshot): string =>
  snapshot.context.term;

export const selectIsSearchFocusRequested = (snapshot: WorkspaceBrowserSnapshot): boolean =>
  snapshot.hasTag('searchFocusRequested');

/** The clock's last tick (epoch ms), null before the first. */
export const selectBrowserNow = (snapshot: WorkspaceBrowserSnapshot): number | null =>
  snapshot.context.now;

/** The search over the user's own workspaces, while the workspaces mode is on show. */
export const selectMyWorkspacesSearch = (
  snapshot: WorkspaceBrowserSnapshot,
): WorkspaceSearchActorRef | undefined => snapshot.children.myWorkspaces;

/** The search over the workspaces published to the user, while the workspaces mode is on show. */
export const selectPlayWorkspacesSearch = (
  snapshot: WorkspaceBrowserSnapshot,
): WorkspaceSearchActorRef | undefined => snapshot.children.playWorkspaces;

/** The search over the user's active gamespaces, while the gamespaces mode is on show. */
export const selectGamespacesSearch = (
  snapshot: WorkspaceBrowserSnapshot,
): GamespaceSearchActorRef | undefined => snapshot.children.gamespaces;

/**
 * The time left before a gamespace expires (ms), while it is in the future; null when its expiry
 * is not set, already passed, or the clock has not ticked yet.
 */
export const expiresInMs = (expiresAt: number | null, now: number | null): number | null =>
  expiresAt === null || now === null || expiresAt <= now ? null : expiresAt - now;

/** 'expires in {text}' (spec §5 Countdown display: '59s', '12m', '3h', '2d'), or null. */
export const expiresInText = (expiresAt: number | null, now: number | null): string | null => {
  const ms = expiresInMs(expiresAt, now);
  return ms === null ? null : countdownText(ms);
};

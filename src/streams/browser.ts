import { distinctUntilChanged, map, type Observable } from 'rxjs';
import { topoEvents$, type HubEventSource, type HubStreamOptions } from './hub';

export type SessionEvent = { type: 'session.started' } | { type: 'session.ended' };

/** Whether a user is signed in, as session events: one per change (and the current state first). */
export const sessionEvents$ = (authenticated: Observable<boolean>): Observable<SessionEvent> =>
  authenticated.pipe(
    distinctUntilChanged(),
    map((signedIn) => (signedIn ? { type: 'session.started' } : { type: 'session.ended' })),
  );

export type VisibilityEvent = { type: 'browser.shown' } | { type: 'browser.hidden' };

/** Whether the sidebar shows its content, as visibility events: one per change. */
export const visibilityEvents$ = (expanded: Observable<boolean>): Observable<VisibilityEvent> =>
  expanded.pipe(
    distinctUntilChanged(),
    map((shown) => (shown ? { type: 'browser.shown' } : { type: 'browser.hidden' })),
  );

/**
 * `workspaces.changed` whenever the hub reports a workspace updated or deleted (TOPO.UPDATED,
 * TOPO.DELETED; sent to the channels of the workspaces the user has open).
 */
export const workspaceChanges$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<{ type: 'workspaces.changed' }> =>
  topoEvents$(source, options).pipe(map(() => ({ type: 'workspaces.changed' as const })));

import { distinctUntilChanged, map, mergeMap, pairwise, startWith, type Observable } from 'rxjs';
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
 * TOPO.DELETED; sent to the channels of the workspaces the user has open), or one the user gained
 * or lost (TOPO.ADDED, TOPO.DELETED, TOPO.REMOVED, sent to the user's own channel).
 */
export const workspaceChanges$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<{ type: 'workspaces.changed' }> =>
  topoEvents$(source, options).pipe(map(() => ({ type: 'workspaces.changed' as const })));

export type UserChannelRequest =
  | { type: 'hub.listenRequested'; channelId: string }
  | { type: 'hub.leaveRequested'; channelId: string };

/**
 * Listening on the signed-in user's own channel (their id, which the hub lets only them join):
 * the server tells it of workspaces they gain or lose, from their other tabs or from others. One
 * request per change of user: leave the previous user's channel, listen on the new one's. The hub
 * joins the channels it listens on again on every connection.
 */
export const userChannelRequests$ = (
  userIds: Observable<string | null>,
): Observable<UserChannelRequest> =>
  userIds.pipe(
    startWith(null),
    distinctUntilChanged(),
    pairwise(),
    mergeMap(([previous, current]) => [
      ...(previous === null ? [] : [{ type: 'hub.leaveRequested' as const, channelId: previous }]),
      ...(current === null ? [] : [{ type: 'hub.listenRequested' as const, channelId: current }]),
    ]),
  );

import { filter, map, type Observable } from 'rxjs';
import { observeEvents$, type HubEventSource, type HubStreamOptions } from './hub';

/** An answer-sharing alert was recorded in a gamespace of an observed workspace. */
export type AlertRaisedEvent = { type: 'alerts.raised'; gamespaceId: string };

/**
 * The `alert` game events observers hear on the observe channels they listen on
 * (`observe:{workspaceId}`, server/core/observeFeed.ts). The event names the gamespace, not the
 * workspace, and the adapter forwards every channel into one source: a listener on several
 * workspaces hears each one's alerts, and reloads its list for any of them.
 */
export const alertsRaised$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<AlertRaisedEvent> =>
  observeEvents$(source, options).pipe(
    filter((event) => event.type === 'observe.recorded' && event.model.kind === 'alert'),
    map((event) => ({ type: 'alerts.raised', gamespaceId: String(event.model.gamespaceId ?? '') })),
  );

import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import { EMPTY, filter, mergeMap, of, type Observable } from 'rxjs';
import { HelpRequest } from '../api/help';
import {
  observeEvents$,
  type HubEventSource,
  type HubStreamOptions,
  type InvalidHubEvent,
} from './hub';

/** A help request as it changed (ObserveEvent HELP.UPDATED), validated. */
export type HelpUpdatedEvent = { type: 'help.updated'; request: HelpRequest };

const warnInvalid = ({ reason }: InvalidHubEvent) =>
  console.warn(`hub: dropped an invalid help request: ${reason}`);

/**
 * The help requests heard on the hub that `wanted` keeps: the player's page keeps its
 * gamespace's (heard on the gamespace's channel), the queue its workspace's (heard on the
 * observe channel). The adapter forwards every channel's events into one source, so both filter
 * here; a model that is not a HelpRequest is reported and dropped.
 */
export const helpUpdates$ = (
  source: HubEventSource,
  wanted: (request: HelpRequest) => boolean,
  options: HubStreamOptions = {},
): Observable<HelpUpdatedEvent> => {
  const onInvalid = options.onInvalid ?? warnInvalid;
  return observeEvents$(source, options).pipe(
    filter((event) => event.type === 'observe.help'),
    mergeMap((event) =>
      pipe(
        HelpRequest.decode(event.model),
        E.match(
          () => {
            onInvalid({ event: 'ObserveEvent', payload: event.model, reason: 'invalid model' });
            return EMPTY;
          },
          (request) =>
            wanted(request) ? of<HelpUpdatedEvent>({ type: 'help.updated', request }) : EMPTY,
        ),
      ),
    ),
  );
};

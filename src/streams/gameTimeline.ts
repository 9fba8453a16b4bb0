import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import { EMPTY, filter, mergeMap, of, type Observable } from 'rxjs';
import { GameEvent } from '../api/gameEvents';
import {
  observeEvents$,
  type HubEventSource,
  type HubStreamOptions,
  type InvalidHubEvent,
} from './hub';

/** A recorded event of the gamespace whose timeline is shown. */
export type TimelineRecordedEvent = { type: 'timeline.eventRecorded'; event: GameEvent };

const warnInvalid = ({ reason }: InvalidHubEvent) =>
  console.warn(`hub: dropped an invalid ObserveEvent: ${reason}`);

/**
 * The recorded events of one gamespace, from its workspace's observe channel (EVENT.RECORDED).
 * The channel carries the whole workspace's, so other gamespaces' are left out here; a model
 * that is no game event is reported and dropped.
 */
export const gamespaceEvents$ = (
  source: HubEventSource,
  gamespaceId: string,
  options: HubStreamOptions = {},
): Observable<TimelineRecordedEvent> => {
  const onInvalid = options.onInvalid ?? warnInvalid;
  return observeEvents$(source, options).pipe(
    filter((e) => e.type === 'observe.recorded' && e.model.gamespaceId === gamespaceId),
    mergeMap((e) =>
      pipe(
        GameEvent.decode(e.model),
        E.match(
          () => {
            onInvalid({ event: 'ObserveEvent', payload: e.model, reason: 'model: invalid event' });
            return EMPTY;
          },
          (event): Observable<TimelineRecordedEvent> =>
            of({ type: 'timeline.eventRecorded', event }),
        ),
      ),
    ),
  );
};

import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import { EMPTY, filter, mergeMap, of, type Observable } from 'rxjs';
import { Dispatch } from '../api/dispatch';
import {
  dispatchEvents$,
  type HubEventSource,
  type HubStreamOptions,
  type InvalidHubEvent,
} from './hub';

/** What the dispatcher console hears on its gamespace's channel. */
export type DispatchRecordEvent =
  /** DISPATCH.CREATE or DISPATCH.UPDATE: the whole record, validated. */
  | { type: 'dispatch.created' | 'dispatch.updated'; dispatch: Dispatch }
  /** DISPATCH.DELETE: the model is only `{ id, targetGroup }`. */
  | { type: 'dispatch.deleted'; id: string };

const warnInvalid = ({ reason }: InvalidHubEvent) =>
  console.warn(`hub: dropped an invalid DispatchEvent: ${reason}`);

/**
 * The DispatchEvents of one gamespace as console events. The adapter forwards every channel's
 * events into one source, so those of other gamespaces are left out here; a created or updated
 * model that is not a Dispatch is reported and dropped, as the hub streams do.
 */
export const gamespaceDispatches$ = (
  source: HubEventSource,
  gamespaceId: string,
  options: HubStreamOptions = {},
): Observable<DispatchRecordEvent> => {
  const onInvalid = options.onInvalid ?? warnInvalid;
  return dispatchEvents$(source, options).pipe(
    filter((event) => event.model.targetGroup === gamespaceId),
    mergeMap((event): Observable<DispatchRecordEvent> => {
      const type = event.type;
      if (type === 'dispatch.deleted') return of({ type, id: event.model.id });
      return pipe(
        Dispatch.decode(event.model),
        E.match(
          () => {
            onInvalid({ event: 'DispatchEvent', payload: event.model, reason: 'invalid model' });
            return EMPTY;
          },
          (dispatch) => of({ type, dispatch }),
        ),
      );
    }),
  );
};

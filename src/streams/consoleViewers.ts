import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import * as t from 'io-ts';
import { EMPTY, filter, mergeMap, of, type Observable } from 'rxjs';
import { ConsoleViewer } from '../api/console';
import {
  consoleEvents$,
  type HubEventSource,
  type HubStreamOptions,
  type InvalidHubEvent,
} from './hub';

/** Who has the console page's machine open now, as the server last told it. */
export type ConsoleViewersEvent = { type: 'console.viewersChanged'; viewers: ConsoleViewer[] };

const Viewers = t.type({ viewers: t.array(ConsoleViewer) });

const warnInvalid = ({ reason }: InvalidHubEvent) =>
  console.warn(`hub: dropped an invalid ConsoleEvent: ${reason}`);

/**
 * The viewers of one machine's console (CONSOLE.VIEWERS on its gamespace's channel). The adapter
 * forwards every channel's events into one source, so other machines' lists are left out here;
 * a list that is not one is reported and dropped.
 */
export const machineViewers$ = (
  source: HubEventSource,
  vmId: string,
  options: HubStreamOptions = {},
): Observable<ConsoleViewersEvent> => {
  const onInvalid = options.onInvalid ?? warnInvalid;
  return consoleEvents$(source, options).pipe(
    filter((event) => event.model.id === vmId),
    mergeMap((event) =>
      pipe(
        Viewers.decode(event.model),
        E.match(
          () => {
            onInvalid({
              event: 'ConsoleEvent',
              payload: event.model,
              reason: 'model: invalid viewers',
            });
            return EMPTY;
          },
          ({ viewers }): Observable<ConsoleViewersEvent> =>
            of({ type: 'console.viewersChanged', viewers }),
        ),
      ),
    ),
  );
};

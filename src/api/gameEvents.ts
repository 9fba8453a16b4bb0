import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import type { ApiError, HttpClient } from './http';

// A gamespace's event log (GET gamespace/{id}/events, ours; server/core/gameEvents.ts): deploys,
// console opens and closes, files put into machines, clipboard use, submissions with their score,
// extensions and the end. Observers read it within their audience; the replay timeline too.

export const GameEvent = t.intersection([
  t.type({
    id: t.string,
    gamespaceId: t.string,
    /**
     * A kind of src/domain/gameEvents.ts, or one the server records that this SPA does not know yet
     * (help requests, alerts): it is shown by its name rather than failing the whole log.
     */
    kind: t.string,
    /** ISO 8601, UTC. */
    at: t.string,
  }),
  t.partial({
    actorId: t.string,
    actorName: t.string,
    machineId: t.string,
    machineName: t.string,
    detail: t.string,
    score: t.number,
  }),
]);
export type GameEvent = t.TypeOf<typeof GameEvent>;

/** GET gamespace/{id}/events: the gamespace's events, oldest first. */
export const listGameEvents =
  (http: HttpClient) =>
  (gamespaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, GameEvent[]> =>
    http.request(t.array(GameEvent), {
      method: 'GET',
      path: `gamespace/${encodeURIComponent(gamespaceId)}/events`,
      signal,
    });

import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import type { ApiError, HttpClient } from './http';

// A gamespace's event log (GET gamespace/{id}/events, ours; server/core/gameEvents.ts): deploys,
// console opens and closes, files put into machines, clipboard use, submissions with their score,
// extensions and the end. Observers read it within their audience; the replay timeline too.

export const GAME_EVENT_KINDS = [
  'deploy',
  'console.open',
  'console.close',
  'file.put',
  'clipboard.paste',
  'clipboard.copy',
  'submission',
  'extension',
  'complete',
  'alert',
  'help.raise',
  'help.claim',
  'help.answer',
  'help.cancel',
] as const;

export const GameEventKind = t.keyof(
  Object.fromEntries(GAME_EVENT_KINDS.map((kind) => [kind, null])) as Record<
    (typeof GAME_EVENT_KINDS)[number],
    null
  >,
);
export type GameEventKind = t.TypeOf<typeof GameEventKind>;

export const GameEvent = t.intersection([
  t.type({
    id: t.string,
    gamespaceId: t.string,
    kind: GameEventKind,
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

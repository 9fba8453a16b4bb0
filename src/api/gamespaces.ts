import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';
import { Vm } from './vm';

/**
 * A gamespace in a list (wire reference §2.2 Gamespace). Dates are ISO strings, with
 * '0001-01-01T00:00:00+00:00' for a date never set (a gamespace not started yet).
 */
export const Gamespace = t.intersection([
  t.type({ id: t.string }),
  t.partial({
    /** The workspace it was launched from; null once that workspace is deleted. */
    workspaceId: nullable(t.string),
    managerId: nullable(t.string),
    managerName: nullable(t.string),
    name: nullable(t.string),
    slug: nullable(t.string),
    isActive: t.boolean,
    whenCreated: nullable(t.string),
    startTime: nullable(t.string),
    endTime: nullable(t.string),
    expirationTime: nullable(t.string),
  }),
]);
export type Gamespace = t.TypeOf<typeof Gamespace>;

/**
 * The gamespace list's query (wire reference §1.2): `filter` holds 'active' (not ended and not
 * expired) and, for observers, 'all'; `term` applies only with 'all'.
 */
export interface GamespaceSearch {
  term?: string;
  skip?: number;
  take?: number;
  filter?: readonly string[];
}

/** GET gamespaces?term&filter&skip&take. */
export const listGamespaces =
  (http: HttpClient) =>
  (search: GamespaceSearch, signal: AbortSignal): TE.TaskEither<ApiError, Gamespace[]> =>
    http.request(t.array(Gamespace), {
      method: 'GET',
      path: withQuery('gamespaces', { ...search }),
      signal,
    });

/** A question of the gamespace's copy: its weight (a fraction of the whole) and whether found. */
const ObservedQuestion = t.partial({ weight: nullable(t.number), isCorrect: nullable(t.boolean) });

/** A question set of the gamespace's own copy of its variant; `score` is a fraction of the whole. */
const ObservedSection = t.partial({
  name: nullable(t.string),
  score: nullable(t.number),
  questions: nullable(t.array(ObservedQuestion)),
});

/**
 * GET gamespace/{id}/challenge (admins, observers of the audience): the gamespace's whole
 * challenge spec. Only the fields the browser's summary reads are checked; the rest passes
 * through, since the Json tab shows the detail as it came. `variant` (0-based) is our own field.
 */
export const GamespaceChallenge = t.partial({
  score: nullable(t.number),
  maxPoints: nullable(t.number),
  maxAttempts: nullable(t.number),
  variant: nullable(t.number),
  variants: nullable(t.array(t.unknown)),
  submissions: nullable(t.array(t.unknown)),
  challenge: nullable(t.partial({ sections: nullable(t.array(ObservedSection)) })),
});
export type GamespaceChallenge = t.TypeOf<typeof GamespaceChallenge>;

export const getGamespaceChallenge =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, GamespaceChallenge> =>
    http.request(GamespaceChallenge, {
      method: 'GET',
      path: `gamespace/${encodeURIComponent(id)}/challenge`,
      signal,
    });

/** GET vms?filter={gamespace id}: the machines of a gamespace (observers and above). */
export const listGamespaceVms =
  (http: HttpClient) =>
  (gamespaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, Vm[]> =>
    http.request(t.array(Vm), {
      method: 'GET',
      path: withQuery('vms', { filter: gamespaceId }),
      signal,
    });

export const Player = t.partial({
  subjectId: nullable(t.string),
  subjectName: nullable(t.string),
  isManager: nullable(t.boolean),
});
export type Player = t.TypeOf<typeof Player>;

/** GET players/{id}: those who may interact with the gamespace read it (admins too). */
export const listPlayers =
  (http: HttpClient) =>
  (gamespaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, Player[]> =>
    http.request(t.array(Player), {
      method: 'GET',
      path: `players/${encodeURIComponent(gamespaceId)}`,
      signal,
    });

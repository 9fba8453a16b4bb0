import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';

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

import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';

/**
 * Dispatch (wire reference §2.6): a command for a gamespace's agents and, once answered, a
 * host's answer. `whenUpdated` is '0001-01-01…' until an agent answers.
 */
export const Dispatch = t.intersection([
  t.type({ id: t.string, trigger: t.string }),
  t.partial({
    referenceId: nullable(t.string),
    targetGroup: nullable(t.string),
    targetName: nullable(t.string),
    result: nullable(t.string),
    error: nullable(t.string),
    whenUpdated: nullable(t.string),
    whenCreated: nullable(t.string),
  }),
]);
export type Dispatch = t.TypeOf<typeof Dispatch>;

/** NewDispatch as the console sends it: no target name means every listening agent. */
export interface NewDispatch {
  targetGroup: string;
  targetName: string | null;
  trigger: string;
}

/** GET dispatches?gs={gamespace id}: the gamespace's dispatches, oldest first. */
export const listDispatches =
  (http: HttpClient) =>
  (gamespaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, Dispatch[]> =>
    http.request(t.array(Dispatch), {
      method: 'GET',
      path: withQuery('dispatches', { gs: gamespaceId }),
      signal,
    });

/** POST dispatch: DISPATCH.CREATE goes to the gamespace's channel too. */
export const createDispatch =
  (http: HttpClient) =>
  (dispatch: NewDispatch, signal: AbortSignal): TE.TaskEither<ApiError, Dispatch> =>
    http.request(Dispatch, { method: 'POST', path: 'dispatch', body: dispatch, signal });

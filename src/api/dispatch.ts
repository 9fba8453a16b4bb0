import { sequenceS } from 'fp-ts/Apply';
import { pipe } from 'fp-ts/function';
import * as TE from 'fp-ts/TaskEither';
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

/**
 * A machine of the gamespace (or a host an agent named, or null for agents that named none) and
 * how many agents listen on it now (GET dispatches/agents, ours).
 */
export const AgentPresence = t.type({
  name: nullable(t.string),
  isMachine: t.boolean,
  agents: t.number,
});
export type AgentPresence = t.TypeOf<typeof AgentPresence>;

/** What the dispatcher console loads: the log, and who listens (null when it cannot be told). */
export interface DispatchLog {
  entries: Dispatch[];
  agents: AgentPresence[] | null;
}

/**
 * GET dispatches?gs={gamespace id}, the gamespace's dispatches oldest first, with GET
 * dispatches/agents beside it. Who listens is extra: a server without that route (the
 * reference) still gives the log.
 */
export const listDispatches =
  (http: HttpClient) =>
  (gamespaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, DispatchLog> =>
    sequenceS(TE.ApplyPar)({
      entries: http.request(t.array(Dispatch), {
        method: 'GET',
        path: withQuery('dispatches', { gs: gamespaceId }),
        signal,
      }),
      agents: pipe(
        http.request(t.array(AgentPresence), {
          method: 'GET',
          path: withQuery('dispatches/agents', { gs: gamespaceId }),
          signal,
        }),
        TE.orElseW(() => TE.right(null)),
      ),
    });

/** POST dispatch: DISPATCH.CREATE goes to the gamespace's channel too. */
export const createDispatch =
  (http: HttpClient) =>
  (dispatch: NewDispatch, signal: AbortSignal): TE.TaskEither<ApiError, Dispatch> =>
    http.request(Dispatch, { method: 'POST', path: 'dispatch', body: dispatch, signal });

import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import type { ApiError, HttpClient } from './http';

// Help requests (ours; server/core/helpRequests.ts): a player of a running gamespace raises a
// hand, observers of its workspace claim and answer. The same request comes live as the model of
// ObserveEvent HELP.UPDATED (src/streams/help.ts).

export const HelpStatus = t.keyof({ open: null, answered: null, cancelled: null });
export type HelpStatus = t.TypeOf<typeof HelpStatus>;

export const HelpRequest = t.intersection([
  t.type({
    id: t.string,
    gamespaceId: t.string,
    workspaceId: t.string,
    gamespaceName: t.string,
    playerId: t.string,
    playerName: t.string,
    message: t.string,
    status: HelpStatus,
    /** ISO 8601. */
    raisedAt: t.string,
  }),
  t.partial({
    claimedById: t.string,
    claimedByName: t.string,
    claimedAt: t.string,
    answer: t.string,
    answeredById: t.string,
    answeredByName: t.string,
    closedAt: t.string,
  }),
]);
export type HelpRequest = t.TypeOf<typeof HelpRequest>;

const path = (id: string, action: string) => `help/${encodeURIComponent(id)}/${action}`;

/** POST gamespace/{id}/help: raises a hand (or answers the gamespace's open request). */
export const raiseHelp =
  (http: HttpClient) =>
  (
    { gamespaceId, message }: { gamespaceId: string; message: string },
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, HelpRequest> =>
    http.request(HelpRequest, {
      method: 'POST',
      path: `gamespace/${encodeURIComponent(gamespaceId)}/help`,
      body: { message },
      signal,
    });

/** GET gamespace/{id}/help: the gamespace's requests, oldest first. */
export const listGamespaceHelp =
  (http: HttpClient) =>
  (gamespaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, HelpRequest[]> =>
    http.request(t.array(HelpRequest), {
      method: 'GET',
      path: `gamespace/${encodeURIComponent(gamespaceId)}/help`,
      signal,
    });

/** GET help?workspaceId=: a workspace's queue, or (none) every workspace's the caller observes. */
export const listHelpQueue =
  (http: HttpClient) =>
  (workspaceId: string | undefined, signal: AbortSignal): TE.TaskEither<ApiError, HelpRequest[]> =>
    http.request(t.array(HelpRequest), {
      method: 'GET',
      path: withQuery('help', { workspaceId }),
      signal,
    });

/** GET help/workspaces: the workspaces with a running gamespace that the caller observes. */
export const listWatchedWorkspaces =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, string[]> =>
    http.request(t.array(t.string), { method: 'GET', path: 'help/workspaces', signal });

/** POST help/{id}/claim. */
export const claimHelp =
  (http: HttpClient) =>
  ({ id }: { id: string }, signal: AbortSignal): TE.TaskEither<ApiError, HelpRequest> =>
    http.request(HelpRequest, { method: 'POST', path: path(id, 'claim'), signal });

/** POST help/{id}/answer. */
export const answerHelp =
  (http: HttpClient) =>
  ({ id, text }: { id: string; text: string }, signal: AbortSignal) =>
    http.request(HelpRequest, { method: 'POST', path: path(id, 'answer'), body: { text }, signal });

/** POST help/{id}/cancel. */
export const cancelHelp =
  (http: HttpClient) =>
  ({ id }: { id: string }, signal: AbortSignal): TE.TaskEither<ApiError, HelpRequest> =>
    http.request(HelpRequest, { method: 'POST', path: path(id, 'cancel'), signal });

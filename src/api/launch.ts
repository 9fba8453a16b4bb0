import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { NoContent } from './codecs';
import type { ApiError, HttpClient } from './http';

// The launch links' calls (wire reference §5 "One-time tickets", §7 Launchpoint). They run on a
// client that sends no bearer token: the page's browser is signed in by the console cookie only.

/** PUT player/enlist's answer: the guest's gamespace and its one-time ticket. */
export const Enlistment = t.type({ gamespaceId: t.string, token: t.string });
export type Enlistment = t.TypeOf<typeof Enlistment>;

/**
 * POST user/login: with `Authorization: Ticket {ticket}`, or with no Authorization header at all
 * (null), when the `topomojo.mks` cookie the browser holds is the credential. Either way the
 * server sets the cookie anew.
 */
export const signInWithTicket =
  (http: HttpClient) =>
  (ticket: string | null, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, {
      method: 'POST',
      path: 'user/login',
      signal,
      authorization: ticket === null ? '' : `Ticket ${ticket}`,
    });

/** PUT player/enlist {code} (anonymous): joins the invitation's gamespace as a guest. */
export const enlistPlayer =
  (http: HttpClient) =>
  (code: string, signal: AbortSignal): TE.TaskEither<ApiError, Enlistment> =>
    http.request(Enlistment, { method: 'PUT', path: 'player/enlist', body: { code }, signal });

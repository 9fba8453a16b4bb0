import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { nullable, NoContent } from './codecs';
import type { ApiError, HttpClient } from './http';

/**
 * The signed-in user as the server knows it. Only the fields the SPA reads are required; the
 * codec lets the others (limits, dates, service account) through untouched.
 */
export const User = t.intersection([
  t.type({
    id: t.string,
    name: nullable(t.string),
    isAdmin: t.boolean,
    isObserver: t.boolean,
    isCreator: t.boolean,
    isBuilder: t.boolean,
  }),
  t.partial({
    scope: nullable(t.string),
    /** Effective role, lower camel case: 'administrator', 'creator', 'observer', ... */
    role: nullable(t.string),
    appRole: nullable(t.string),
    /** The longest game this user may launch, in minutes; 0: the workspace's duration decides. */
    gamespaceMaxMinutes: nullable(t.number),
    /** How many workspaces the user may manage (creators are not limited). */
    workspaceLimit: nullable(t.number),
  }),
]);
export type User = t.TypeOf<typeof User>;

/**
 * POST user/register: creates or refreshes the user from the identity token. The reference UI
 * sends the OIDC profile as the body; `authorization` is the header of the user being registered,
 * which may not be the session's yet.
 */
export const registerUser =
  (http: HttpClient) =>
  (
    profile: Record<string, unknown>,
    authorization: string,
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, User> =>
    http.request(User, {
      method: 'POST',
      path: 'user/register',
      body: profile,
      authorization,
      signal,
    });

/**
 * POST user/logout: clears the console cookie on the server. Called while the session is being
 * dropped, so the caller passes the departing user's header.
 */
export const logoutUser =
  (http: HttpClient) =>
  (authorization: string | undefined, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, { method: 'POST', path: 'user/logout', authorization, signal });

/** A one-time ticket (30 s, single use) that authenticates a hub connection. */
export const Ticket = t.type({ ticket: t.string });
export type Ticket = t.TypeOf<typeof Ticket>;

/** GET user/ticket: a fresh ticket for every hub connection attempt. */
export const getTicket =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, Ticket> =>
    http.request(Ticket, { method: 'GET', path: 'user/ticket', signal });

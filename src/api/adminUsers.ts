import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { withQuery } from '../domain/query';
import { nullable, NoContent } from './codecs';
import type { ApiError, HttpClient } from './http';
import { User } from './user';

// The admin Users section's calls (wire reference §1.7) and our own local-account routes.

/** A user as the admin reads it: the limits and flags the signed-in user's codec leaves out. */
export const AdminUserDto = t.intersection([
  User,
  t.partial({
    gamespaceLimit: nullable(t.number),
    gamespaceCleanupGraceMinutes: nullable(t.number),
    isRegistrar: nullable(t.boolean),
  }),
]);
export type AdminUserDto = t.TypeOf<typeof AdminUserDto>;

export const ApiKey = t.type({ id: t.string, name: nullable(t.string), whenCreated: t.string });
export type ApiKey = t.TypeOf<typeof ApiKey>;

/** A user's local sign-in with the embedded identity provider; `username` null: none. */
export const LocalAccount = t.type({ username: nullable(t.string), disabled: t.boolean });
export type LocalAccount = t.TypeOf<typeof LocalAccount>;

export interface UserSearch {
  term: string;
  skip: number;
  take: number;
  /** administrator, observer, creator, builder. */
  filter: readonly string[];
}

/** ChangedUser (wire reference §2.6): without an id it adds a user. */
export interface ChangedUser {
  id?: string;
  name: string;
  scope: string;
  role: string;
  workspaceLimit: number;
  gamespaceLimit: number;
  gamespaceMaxMinutes: number;
  gamespaceCleanupGraceMinutes: number;
  isRegistrar: boolean;
}

export const listUsers =
  (http: HttpClient) =>
  (search: UserSearch, signal: AbortSignal): TE.TaskEither<ApiError, AdminUserDto[]> =>
    http.request(t.array(AdminUserDto), {
      method: 'GET',
      path: withQuery('users', { ...search }),
      signal,
    });

export const saveUser =
  (http: HttpClient) =>
  (user: ChangedUser, signal: AbortSignal): TE.TaskEither<ApiError, AdminUserDto> =>
    http.request(AdminUserDto, { method: 'POST', path: 'user', body: user, signal });

export const deleteUser =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, {
      method: 'DELETE',
      path: `user/${encodeURIComponent(id)}`,
      signal,
    });

export const listApiKeys =
  (http: HttpClient) =>
  (userId: string, signal: AbortSignal): TE.TaskEither<ApiError, ApiKey[]> =>
    http.request(t.array(ApiKey), {
      method: 'GET',
      path: `user/${encodeURIComponent(userId)}/keys`,
      signal,
    });

/** The key's value is in this answer only: the server keeps its hash. */
export const createApiKey =
  (http: HttpClient) =>
  (userId: string, signal: AbortSignal): TE.TaskEither<ApiError, { value: string }> =>
    http.request(t.type({ value: t.string }), {
      method: 'POST',
      path: `apikey/${encodeURIComponent(userId)}`,
      body: {},
      signal,
    });

export const deleteApiKey =
  (http: HttpClient) =>
  (keyId: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, {
      method: 'DELETE',
      path: `apikey/${encodeURIComponent(keyId)}`,
      signal,
    });

export const getLocalAccount =
  (http: HttpClient) =>
  (userId: string, signal: AbortSignal): TE.TaskEither<ApiError, LocalAccount> =>
    http.request(LocalAccount, {
      method: 'GET',
      path: `user/${encodeURIComponent(userId)}/account`,
      signal,
    });

export const setLocalPassword =
  (http: HttpClient) =>
  (
    input: { userId: string; password: string; username?: string },
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, LocalAccount> =>
    http.request(LocalAccount, {
      method: 'PUT',
      path: `user/${encodeURIComponent(input.userId)}/password`,
      body: input.username
        ? { password: input.password, username: input.username }
        : { password: input.password },
      signal,
    });

export const setLocalDisabled =
  (http: HttpClient) =>
  (
    input: { userId: string; disabled: boolean },
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, LocalAccount> =>
    http.request(LocalAccount, {
      method: 'PUT',
      path: `user/${encodeURIComponent(input.userId)}/disabled`,
      body: { disabled: input.disabled },
      signal,
    });

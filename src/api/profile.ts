import type * as TE from 'fp-ts/TaskEither';
import { LocalAccount } from './adminUsers';
import type { ApiError, HttpClient } from './http';

// The signed-in user's own calls on its profile page (issue 29). Its keys and whether it has a
// local sign-in use the same routes as the admin Users section (src/api/adminUsers.ts), which
// answer the user itself too.

/** Our own route: the user's own password, with its current one (InvalidOperation WrongPassword). */
export const changeOwnPassword =
  (http: HttpClient) =>
  (
    input: { currentPassword: string; password: string },
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, LocalAccount> =>
    http.request(LocalAccount, { method: 'PUT', path: 'user/password', body: input, signal });

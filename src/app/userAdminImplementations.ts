import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { fromTaskEither } from '../api/actor';
import {
  createApiKey,
  deleteApiKey,
  getLocalAccount,
  listApiKeys,
  listUsers,
  saveUser,
  setLocalDisabled,
  setLocalPassword,
  deleteUser,
  type AdminUserDto,
  type ApiKey,
} from '../api/adminUsers';
import type { HttpClient } from '../api/http';
import type { PageQuery } from '../machines/pagedSearchMachine';
import {
  userAdminMachine,
  userSearchMachine,
  type AdminApiKey,
  type AdminUser,
} from '../machines/userAdminMachine';
import { userAccountMachine } from '../machines/userAccountMachine';
import { userDetailMachine } from '../machines/userDetailMachine';

/** The wire's User as the admin section edits it; `appRole` is the stored role. */
export const toAdminUser = (user: AdminUserDto): AdminUser => ({
  id: user.id,
  name: user.name ?? '',
  scope: user.scope ?? '',
  role: user.appRole ?? user.role ?? 'user',
  workspaceLimit: user.workspaceLimit ?? 0,
  gamespaceLimit: user.gamespaceLimit ?? 0,
  gamespaceMaxMinutes: user.gamespaceMaxMinutes ?? 0,
  gamespaceCleanupGraceMinutes: user.gamespaceCleanupGraceMinutes ?? 0,
  isRegistrar: user.isRegistrar === true,
});

const toKey = (key: ApiKey): AdminApiKey => ({
  id: key.id,
  name: key.name ?? '',
  whenCreated: key.whenCreated,
});

/** The user's API keys, as the section lists them. */
const keysOf = (http: HttpClient) => (id: string, signal: AbortSignal) =>
  pipe(
    listApiKeys(http)(id, signal),
    TE.map((keys) => keys.map(toKey)),
  );

/** The open user's record: its keys and local account loaded, its fields saved, or deleted. */
export function userDetailLogic(http: HttpClient) {
  return userDetailMachine.provide({
    actors: {
      loadUserDetails: fromTaskEither(({ id }: { id: string }, signal) =>
        pipe(
          TE.Do,
          TE.apS('keys', keysOf(http)(id, signal)),
          TE.apS('account', getLocalAccount(http)(id, signal)),
        ),
      ),
      saveUser: fromTaskEither((user: AdminUser, signal) =>
        pipe(saveUser(http)(user, signal), TE.map(toAdminUser)),
      ),
      deleteUser: fromTaskEither(({ id }: { id: string }, signal) => deleteUser(http)(id, signal)),
    },
  });
}

/** The open user's credentials: API keys issued and deleted, the local password and disabled. */
export function userAccountLogic(http: HttpClient) {
  return userAccountMachine.provide({
    actors: {
      createKey: fromTaskEither(({ id }: { id: string }, signal) =>
        pipe(
          createApiKey(http)(id, signal),
          TE.chain(({ value }) =>
            pipe(
              keysOf(http)(id, signal),
              TE.map((keys) => ({ value, keys })),
            ),
          ),
        ),
      ),
      deleteKey: fromTaskEither(({ id, keyId }: { id: string; keyId: string }, signal) =>
        pipe(
          deleteApiKey(http)(keyId, signal),
          TE.chain(() => keysOf(http)(id, signal)),
        ),
      ),
      setPassword: fromTaskEither(
        (input: { id: string; password: string; username: string }, signal) =>
          setLocalPassword(http)(
            { userId: input.id, password: input.password, username: input.username || undefined },
            signal,
          ),
      ),
      setDisabled: fromTaskEither((input: { id: string; disabled: boolean }, signal) =>
        setLocalDisabled(http)({ userId: input.id, disabled: input.disabled }, signal),
      ),
    },
  });
}

/** The admin Users section's machine with its effects: the user and local-account routes. */
export function userAdminLogic(http: HttpClient) {
  return userAdminMachine.provide({
    actors: {
      userSearch: userSearchMachine.provide({
        actors: {
          fetchPage: fromTaskEither((query: PageQuery, signal) =>
            pipe(
              listUsers(http)(query, signal),
              TE.map((users) => users.map(toAdminUser)),
            ),
          ),
        },
      }),
      addUser: fromTaskEither(({ name }: { name: string }, signal) =>
        pipe(
          saveUser(http)(
            {
              name,
              scope: '',
              role: 'user',
              workspaceLimit: 0,
              gamespaceLimit: 0,
              gamespaceMaxMinutes: 0,
              gamespaceCleanupGraceMinutes: 0,
              isRegistrar: false,
            },
            signal,
          ),
          TE.map(toAdminUser),
        ),
      ),
      userDetail: userDetailLogic(http),
      userAccount: userAccountLogic(http),
    },
  });
}

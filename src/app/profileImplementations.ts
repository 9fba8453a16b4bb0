import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { fromPromise } from 'xstate';
import { fromTaskEither } from '../api/actor';
import {
  createApiKey,
  deleteApiKey,
  getLocalAccount,
  listApiKeys,
  type ApiKey,
} from '../api/adminUsers';
import type { HttpClient } from '../api/http';
import type { KeyboardLayout } from '../domain/keyboardLayouts';
import { changeOwnPassword } from '../api/profile';
import { profileMachine, type OwnApiKey } from '../machines/profileMachine';

const toKey = (key: ApiKey): OwnApiKey => ({
  id: key.id,
  name: key.name ?? '',
  whenCreated: key.whenCreated,
});

/** The profile page's machine with its effects: the user's own keys and password. */
export function profileLogic(
  http: HttpClient,
  clipboard: Pick<Clipboard, 'writeText'>,
  rememberLayout: (layout: KeyboardLayout) => void,
) {
  const keysOf = (userId: string, signal: AbortSignal) =>
    pipe(
      listApiKeys(http)(userId, signal),
      TE.map((keys) => keys.map(toKey)),
    );
  return profileMachine.provide({
    actors: {
      loadProfile: fromTaskEither(({ userId }: { userId: string }, signal) =>
        pipe(
          TE.Do,
          TE.apS('keys', keysOf(userId, signal)),
          TE.apS(
            'username',
            pipe(
              getLocalAccount(http)(userId, signal),
              TE.map((account) => account.username),
            ),
          ),
        ),
      ),
      issueKey: fromTaskEither(({ userId }: { userId: string }, signal) =>
        pipe(
          createApiKey(http)(userId, signal),
          TE.chain(({ value }) =>
            pipe(
              keysOf(userId, signal),
              TE.map((keys) => ({ value, keys })),
            ),
          ),
        ),
      ),
      revokeKey: fromTaskEither(({ userId, keyId }: { userId: string; keyId: string }, signal) =>
        pipe(
          deleteApiKey(http)(keyId, signal),
          TE.chain(() => keysOf(userId, signal)),
        ),
      ),
      changePassword: fromTaskEither(
        (input: { currentPassword: string; password: string }, signal) =>
          pipe(
            changeOwnPassword(http)(input, signal),
            TE.map((account) => ({ username: account.username })),
          ),
      ),
      copyToClipboard: fromPromise<void, { text: string }>(({ input }) =>
        clipboard.writeText(input.text),
      ),
    },
    actions: {
      rememberKeyboardLayout: (_, { layout }) => rememberLayout(layout),
    },
  });
}

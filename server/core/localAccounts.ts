import { AccountError, type AccountDirectory, type AccountStatus } from './accountDirectory';
import type { Actor } from './actor';
import { DomainError, forbidden, notFound } from './errors';
import type { ListenerRevoker } from './membership';
import type { UserService } from './users';

// Local sign-ins: the accounts of the embedded identity provider, kept by server/identity, seen
// from the domain. The account's id is the user's id (the `sub` of its tokens). Administrators
// give a user one, set its password or disable it; a user sees whether it has one and changes
// its own password (the profile page, issue 29).

export function createLocalAccountService(options: {
  accounts: AccountDirectory;
  users: Pick<UserService, 'find' | 'setSignInDisabled'>;
  /** The hub: a user whose sign-in is disabled has its live connections closed at once. */
  listeners: ListenerRevoker;
}) {
  const { accounts, users, listeners } = options;

  return {
    /** GET /api/user/{id}/account: administrators, and the user itself. */
    async status(actor: Actor, id: string): Promise<AccountStatus> {
      if (!actor.isAdmin && actor.id !== id) throw forbidden();
      return accounts.status(id);
    },

    /**
     * PUT /api/user/password: the caller's own, once its current password is checked as the
     * sign-in page checks it, so a token left open on someone else's screen is not enough to take
     * the account over.
     */
    async changeOwnPassword(
      actor: Actor,
      currentPassword: string,
      password: string,
    ): Promise<AccountStatus> {
      const { id } = actor;
      const { username } = await accounts.status(id);
      if (username === null) throw new DomainError('InvalidOperation', 'NoLocalAccount');
      const account = await accounts.verify(username, currentPassword);
      if (account?.id !== id) throw new DomainError('InvalidOperation', 'WrongPassword');
      await accounts.setPassword(id, password);
      return accounts.status(id);
    },

    /**
     * PUT /api/user/{id}/password (administrators): sets the password of the user's local
     * account, or gives it one named `username` (its name when absent).
     */
    async setPassword(id: string, password: string, username?: string): Promise<AccountStatus> {
      const user = await users.find(id);
      if (!user) throw notFound();
      const current = await accounts.status(id);
      try {
        if (current.username !== null) await accounts.setPassword(id, password);
        else
          await accounts.create({
            id,
            username: username ?? user.name,
            name: user.name,
            password,
          });
      } catch (error) {
        if (error instanceof AccountError && error.message === 'AccountExists')
          throw new DomainError('ResourceAlreadyExists', 'Username');
        if (error instanceof AccountError) throw new DomainError('InvalidOperation', 'Username');
        throw error;
      }
      return accounts.status(id);
    },

    /**
     * PUT /api/user/{id}/disabled (administrators): not one's own, nor the last administrator's
     * who can sign in (server/core/users.ts). Tokens, tickets and cookies the user already holds
     * are refused from now on (the authenticator reads the account with the user's row); its
     * connections close too.
     */
    async setDisabled(actor: Actor, id: string, disabled: boolean): Promise<AccountStatus> {
      await users.setSignInDisabled(actor, id, disabled);
      if (disabled) listeners.revoke({ subjectId: id });
      return accounts.status(id);
    },
  };
}

export type LocalAccountService = ReturnType<typeof createLocalAccountService>;

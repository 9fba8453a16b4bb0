// The local accounts of the embedded identity provider, as the domain reaches them: a port that
// server/identity implements (server/identity/accounts.ts) and the services are handed.

/** Why the identity provider refused a change to a local account. */
export class AccountError extends Error {
  constructor(message: 'AccountExists' | 'AccountNotFound' | 'InvalidAccount') {
    super(message);
    this.name = 'AccountError';
  }
}

/** What an administrator sees of a user's local account; `username` null when it has none. */
export interface AccountStatus {
  username: string | null;
  disabled: boolean;
}

/**
 * The local accounts as the identity provider keeps them (server/identity/accounts.ts). A change
 * it refuses throws an AccountError.
 */
export interface AccountDirectory {
  status(id: string): Promise<AccountStatus>;
  /** The account these credentials sign in to, or null (never said faster for a wrong one). */
  verify(username: string, password: string): Promise<{ id: string } | null>;
  create(account: { id: string; username: string; name: string; password: string }): Promise<void>;
  setPassword(id: string, password: string): Promise<void>;
  setDisabled(id: string, disabled: boolean): Promise<void>;
}

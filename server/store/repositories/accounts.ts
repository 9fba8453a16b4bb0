import type { Db } from '../db';

// Accounts of either kind: the users the application stores and the local accounts of the
// embedded identity provider. First-run seeding asks whether there is any of either.

export function createAccountRepository(db: Db) {
  return {
    /** Whether a user or a local account of the embedded identity provider is stored. */
    async any(): Promise<boolean> {
      const user = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
      if (user) return true;
      const account = await db
        .selectFrom('identityAccounts')
        .select('id')
        .limit(1)
        .executeTakeFirst();
      return !!account;
    },
  };
}

export type AccountRepository = ReturnType<typeof createAccountRepository>;

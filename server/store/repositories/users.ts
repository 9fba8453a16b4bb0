import { sql } from 'kysely';
import type { Store } from '../db';
import type { UserTable } from '../schema';
import { contains, startsWith } from './search';

// Users as stored: every authenticated request reads its user's row, administrators search and
// change them. It takes the store rather than the bare connection for `rowLookup`, the prepared
// lookup by id that the per-request read goes through.

/** What a user search selects (GET /api/users). */
export interface UserQuery {
  /** Already lowercase: in the name or the start of the id; an exact name sorts first. */
  term: string;
  /** Role numbers, any of them, as the user's own role or the identity provider's. */
  roles: number[];
  serviceAccountsOnly: boolean;
}

export function createUserRepository(store: Pick<Store, 'db' | 'rowLookup'>) {
  const { db } = store;
  const byId = store.rowLookup('users', 'id');
  const withAccount = store.rowLookup('users', 'id', {
    table: 'identityAccounts',
    column: 'disabled',
    as: 'accountDisabled',
  });

  return {
    find: byId,

    /**
     * The caller's row, read on every request, and in the same query whether an administrator
     * disabled the user's local sign-in (`accountDisabled` 1; null when it has no local account).
     */
    findWithAccount: withAccount,

    /** Whether the local account `id` is disabled: for a subject that has no user row yet. */
    async accountDisabled(id: string): Promise<boolean> {
      const row = await db
        .selectFrom('identityAccounts')
        .select('disabled')
        .where('id', '=', id)
        .executeTakeFirst();
      return !!row?.disabled;
    },

    findByServiceAccount(clientId: string): Promise<UserTable | undefined> {
      return db
        .selectFrom('users')
        .selectAll()
        .where('serviceAccountClientId', '=', clientId)
        .executeTakeFirst();
    },

    async count(): Promise<number> {
      const { n } = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(n);
    },

    /**
     * Users other than `exceptId` who hold `role` and can sign in. They hold it as their own role,
     * or as the role the identity provider last assigned them unless their own role is
     * `overriding` (disabled). They can sign in unless their local account is disabled; with
     * `localAccountRequired` (the embedded identity provider, the only way in) only with one.
     */
    async countSigningInHolding(
      role: number,
      options: { exceptId: string; overriding: number; localAccountRequired: boolean },
    ): Promise<number> {
      const { n } = await db
        .selectFrom('users')
        .leftJoin('identityAccounts', 'identityAccounts.id', 'users.id')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('users.id', '<>', options.exceptId)
        .where((eb) =>
          eb.or([
            eb('users.role', '=', role),
            eb.and([
              eb('users.lastIdpAssignedRole', '=', role),
              eb('users.role', '<>', options.overriding),
            ]),
          ]),
        )
        .where((eb) =>
          options.localAccountRequired
            ? eb('identityAccounts.disabled', '=', 0)
            : eb.or([
                eb('identityAccounts.id', 'is', null),
                eb('identityAccounts.disabled', '=', 0),
              ]),
        )
        .executeTakeFirstOrThrow();
      return Number(n);
    },

    /** The users a query selects, by name; only the page `page` of them when given. */
    search(query: UserQuery, page: { skip: number; take: number } | null): Promise<UserTable[]> {
      const { term, roles } = query;
      let q = db.selectFrom('users').selectAll();
      if (term) {
        q = q.where((eb) => eb.or([contains('name', term), startsWith('id', term)]));
      }
      if (roles.length) {
        q = q.where((eb) =>
          eb.or([eb('role', 'in', roles), eb('lastIdpAssignedRole', 'in', roles)]),
        );
      }
      if (query.serviceAccountsOnly) q = q.where('serviceAccountClientId', 'is not', null);
      if (term) q = q.orderBy(sql`case when lower(${sql.ref('name')}) = ${term} then 0 else 1 end`);
      q = q.orderBy('name').orderBy('id');
      return page ? q.limit(page.take).offset(page.skip).execute() : q.execute();
    },

    /** Every user's scope that is not empty. */
    async scopes(): Promise<string[]> {
      const rows = await db.selectFrom('users').select('scope').where('scope', '<>', '').execute();
      return rows.map((r) => r.scope);
    },

    async insert(row: UserTable): Promise<void> {
      await db.insertInto('users').values(row).execute();
    },

    /** Adds the user unless its id is stored already (then nothing changes). */
    async insertIfAbsent(row: UserTable): Promise<void> {
      await db
        .insertInto('users')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    },

    async update(id: string, changes: Partial<UserTable>): Promise<void> {
      await db.updateTable('users').set(changes).where('id', '=', id).execute();
    },

    /** The user with its API keys and favorites, together. */
    async remove(id: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        for (const table of [
          'workspaceFavorites',
          'gamespaceFavorites',
          'templateFavorites',
        ] as const) {
          await tx.deleteFrom(table).where('userId', '=', id).execute();
        }
        await tx.deleteFrom('apiKeys').where('userId', '=', id).execute();
        await tx.deleteFrom('users').where('id', '=', id).execute();
      });
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;

import type { Db } from '../db';
import type { ApiKeyTable, UserTable } from '../schema';

// Users' API keys, stored by the SHA-256 of their value.

export function createApiKeyRepository(db: Db) {
  return {
    /** The user's keys, oldest first, without their hashes. */
    ofUser(userId: string): Promise<Array<Pick<ApiKeyTable, 'id' | 'name' | 'whenCreated'>>> {
      return db
        .selectFrom('apiKeys')
        .select(['id', 'name', 'whenCreated'])
        .where('userId', '=', userId)
        .orderBy('whenCreated')
        .orderBy('id')
        .execute();
    },

    /** Whose key this is (revoking one's own), or undefined when there is no such key. */
    async userOf(id: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('apiKeys')
        .select('userId')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.userId;
    },

    /** The user whose key has this hash (authentication). */
    ownerOf(hash: string): Promise<UserTable | undefined> {
      return db
        .selectFrom('apiKeys')
        .innerJoin('users', 'users.id', 'apiKeys.userId')
        .selectAll('users')
        .where('apiKeys.hash', '=', hash)
        .executeTakeFirst();
    },

    async insert(row: ApiKeyTable): Promise<void> {
      await db.insertInto('apiKeys').values(row).execute();
    },

    /** False when there was no such key. */
    async remove(id: string): Promise<boolean> {
      const deleted = await db.deleteFrom('apiKeys').where('id', '=', id).executeTakeFirst();
      return Number(deleted.numDeletedRows) > 0;
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;

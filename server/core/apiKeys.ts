import type { ApiKeyRepository } from '../store/repositories/apiKeys';
import type { UserRepository } from '../store/repositories/users';
import { isoDate } from './dto';
import { notFound } from './errors';
import { newApiKey, newId, sha256Hex } from './ids';

// A user's API keys (wire reference §1.7, §5). Only the SHA-256 of a key is stored: its plain
// text is answered once, when it is made. The authenticator looks a key up by its hash on every
// request (server/auth/authenticate.ts), so a deleted key stops working with the next request.

/** ApiKey (wire reference §2.6). */
export interface ApiKeyDto {
  id: string;
  name: string;
  whenCreated: string;
}

/** ApiKey names are stored in a varchar(64). */
const NAME_MAX = 64;

export interface ApiKeyRepositories {
  users: Pick<UserRepository, 'find'>;
  apiKeys: ApiKeyRepository;
}

export function createApiKeys({ users, apiKeys }: ApiKeyRepositories) {
  async function assertUser(userId: string) {
    if (!(await users.find(userId))) throw notFound();
  }

  return {
    /** GET /api/user/{id}/keys: the user's keys, oldest first, without their values. */
    async list(userId: string): Promise<ApiKeyDto[]> {
      await assertUser(userId);
      const rows = await apiKeys.ofUser(userId);
      return rows.map((k) => ({ id: k.id, name: k.name, whenCreated: isoDate(k.whenCreated) }));
    },

    /**
     * POST /api/apikey/{id}: a new key for the user, named after who issued it (the list shows
     * which administrator gave out which key). Answers the key itself, the only time it is seen.
     */
    async create(userId: string, issuedBy: string): Promise<{ value: string }> {
      await assertUser(userId);
      const value = newApiKey();
      await apiKeys.insert({
        id: newId(),
        userId,
        name: issuedBy.slice(0, NAME_MAX),
        hash: sha256Hex(value),
        whenCreated: Date.now(),
      });
      return { value };
    },

    /** DELETE /api/apikey/{keyId}. */
    async remove(keyId: string): Promise<void> {
      if (!(await apiKeys.remove(keyId))) throw notFound();
    },
  };
}

export type ApiKeys = ReturnType<typeof createApiKeys>;

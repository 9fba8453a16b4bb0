import type { Clock } from '../clock';
import type { ApiKeyRepository } from '../store/repositories/apiKeys';
import type { UserRepository } from '../store/repositories/users';
import { isoDate } from './dto';
import { forbidden, notFound } from './errors';
import { newApiKey, newId, sha256Hex } from './ids';
import type { Actor } from './actor';

// A user's API keys (wire reference §1.7, §5). Only the SHA-256 of a key is stored: its plain
// text is answered once, when it is made. The authenticator looks a key up by its hash on every
// request (server/auth/authenticate.ts), so a deleted key stops working with the next request.
//
// Who may manage a user's keys goes past the reference, whose three key routes are AdminOnly:
// administrators (with any credential the route accepts, as there), and the user itself on its
// profile page (issue 29), but only signed in interactively. A key never lists, mints or revokes
// keys of its own user: whoever holds a copy of it could otherwise keep access after it is revoked.

/** Administrators, or the user itself with the access token of an interactive sign-in. */
export function mayManageKeysOf(actor: Actor, userId: string): boolean {
  return actor.isAdmin || (actor.id === userId && actor.via === 'jwt');
}

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

export function createApiKeys({ users, apiKeys }: ApiKeyRepositories, clock: Clock) {
  async function assertUser(userId: string) {
    if (!(await users.find(userId))) throw notFound();
  }

  return {
    /** GET /api/user/{id}/keys: the user's keys, oldest first, without their values. */
    async list(actor: Actor, userId: string): Promise<ApiKeyDto[]> {
      if (!mayManageKeysOf(actor, userId)) throw forbidden();
      await assertUser(userId);
      const rows = await apiKeys.ofUser(userId);
      return rows.map((k) => ({ id: k.id, name: k.name, whenCreated: isoDate(k.whenCreated) }));
    },

    /**
     * POST /api/apikey/{id}: a new key for the user, named after who issued it (the list shows
     * which administrator gave out which key). Answers the key itself, the only time it is seen.
     */
    async create(actor: Actor, userId: string): Promise<{ value: string }> {
      if (!mayManageKeysOf(actor, userId)) throw forbidden();
      await assertUser(userId);
      const issuedBy = actor.name;
      const value = newApiKey();
      await apiKeys.insert({
        id: newId(),
        userId,
        name: issuedBy.slice(0, NAME_MAX),
        hash: sha256Hex(value),
        whenCreated: clock.now(),
      });
      return { value };
    },

    /** DELETE /api/apikey/{keyId}: any key for administrators, one's own for its user. */
    async remove(actor: Actor, keyId: string): Promise<void> {
      // Refused before the key is looked up: without the right, whether it exists stays unsaid.
      if (!actor.isAdmin && actor.via !== 'jwt') throw forbidden();
      const owner = await apiKeys.userOf(keyId);
      if (owner === undefined) throw notFound();
      if (!mayManageKeysOf(actor, owner)) throw forbidden();
      if (!(await apiKeys.remove(keyId))) throw notFound();
    },
  };
}

export type ApiKeys = ReturnType<typeof createApiKeys>;

import type { Cache } from '../cache';
import { DomainError } from '../errors';
import { newToken } from '../ids';

// Gamespace invitation codes (wire reference §4.7): kept in the distributed cache, so a code made
// on one server is redeemed on another, for 30 minutes; a new code revokes the previous one.

export const INVITATION_TTL_MS = 30 * 60_000;

const codeKey = (code: string) => `gsi:${code}`;
const gamespaceKey = (gamespaceId: string) => `in:${gamespaceId}`;

export function createInvitations(cache: Cache) {
  return {
    async create(gamespaceId: string): Promise<string> {
      const previous = await cache.get(gamespaceKey(gamespaceId));
      if (previous) await cache.delete(codeKey(previous));
      const code = newToken();
      await cache.set(codeKey(code), gamespaceId, INVITATION_TTL_MS);
      await cache.set(gamespaceKey(gamespaceId), code, INVITATION_TTL_MS);
      return code;
    },

    /** The gamespace a code invites to, or InvalidInvitation (unknown, revoked or expired). */
    async resolve(code: string): Promise<string> {
      const gamespaceId = code ? await cache.get(codeKey(code)) : null;
      if (!gamespaceId) throw new DomainError('InvalidInvitation');
      return gamespaceId;
    },
  };
}

export type Invitations = ReturnType<typeof createInvitations>;

import type { Clock } from '../clock';
import type { FavoriteRepository } from '../store/repositories/favorites';
import { newId } from './ids';

// A user's favorites of one kind (workspaces, gamespaces, templates): the same rules for each,
// oldest first, adding twice keeps one.

export function createFavorites(favorites: FavoriteRepository, clock: Clock) {
  return {
    /** The user's favorite ids, oldest first. */
    list: (userId: string): Promise<string[]> => favorites.targetsOf(userId),

    /** Adds one; a favorite already there stays as it is. */
    async add(userId: string, targetId: string): Promise<void> {
      await favorites.add({ id: newId(), userId, targetId, whenCreated: clock.now() });
    },

    remove: (userId: string, targetId: string): Promise<void> => favorites.remove(userId, targetId),
  };
}

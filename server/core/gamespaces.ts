import type { Db } from '../store/db';
import type { GamespaceTable } from '../store/schema';
import { hasAnyToken, isoDate, slug } from './dto';
import { contains, normalizeTerm, startsWith, type Paging } from './fields';
import type { Actor } from './users';

// Gamespaces: the list of wire reference §1.2. Registration, play and grading come with the
// play issue; this is what the sidebar and the observer dashboard read.

/** isActive = started && !ended && !expired (wire reference §2.2). */
export function isActive(
  g: Pick<GamespaceTable, 'startTime' | 'endTime' | 'expirationTime'>,
  now: number,
) {
  return g.startTime > 0 && g.endTime <= 0 && g.expirationTime > now;
}

/** The Gamespace list item (wire reference §2.2); `players` is not loaded here, as there. */
export function gamespaceDto(g: GamespaceTable, now: number) {
  return {
    id: g.id,
    workspaceId: g.workspaceId,
    managerId: g.managerId,
    managerName: g.managerName,
    audience: null,
    name: g.name,
    slug: slug(g.name),
    isActive: isActive(g, now),
    players: [],
    whenCreated: isoDate(g.whenCreated),
    startTime: isoDate(g.startTime),
    endTime: isoDate(g.endTime),
    expirationTime: isoDate(g.expirationTime),
  };
}

export interface GamespaceSearch extends Paging {
  term?: string;
  filter: string[];
}

export function createGamespaceService(db: Db, now: () => number = () => Date.now()) {
  return {
    /**
     * `all` takes effect for observers and above (observers see gamespaces of workspaces whose
     * audience matches their scope, admins everything) and only then is `term` applied; anyone
     * else sees the gamespaces they manage or play in. `active` = not ended and not expired.
     */
    async list(actor: Actor, search: GamespaceSearch) {
      const t = now();
      const all = search.filter.includes('all') && actor.isObserver;
      let query = db.selectFrom('gamespaces as g').selectAll('g');
      if (search.filter.includes('active')) {
        query = query.where('g.endTime', '<=', 0).where('g.expirationTime', '>', t);
      }
      if (all) {
        const term = normalizeTerm(search.term);
        if (term) {
          query = query.where((eb) =>
            eb.or([
              contains('g.name', term),
              contains('g.managerName', term),
              startsWith('g.id', term),
            ]),
          );
        }
      } else {
        query = query.where((eb) =>
          eb.or([
            eb('g.managerId', '=', actor.id),
            eb.exists(
              eb
                .selectFrom('players as p')
                .select('p.subjectId')
                .whereRef('p.gamespaceId', '=', 'g.id')
                .where('p.subjectId', '=', actor.id),
            ),
          ]),
        );
      }
      let rows = await query.orderBy('g.whenCreated', 'desc').execute();
      if (all && !actor.isAdmin) {
        const audiences = new Map(
          (await db.selectFrom('workspaces').select(['id', 'audience']).execute()).map((w) => [
            w.id,
            w.audience,
          ]),
        );
        rows = rows.filter((g) =>
          hasAnyToken(audiences.get(g.workspaceId ?? '') ?? '', `${actor.scope} everyone`),
        );
      }
      return rows.slice(search.skip, search.skip + search.take).map((g) => gamespaceDto(g, t));
    },
  };
}

export type GamespaceService = ReturnType<typeof createGamespaceService>;

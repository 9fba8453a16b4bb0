import type { FastifyInstance } from 'fastify';
import { paging } from '../../core/fields';
import type { GamespaceService } from '../../core/gamespaces';
import { actorOf } from '../auth';
import { caseInsensitiveQuery } from '../workspace/query';
import { searchProperties } from '../search';

const searchQuery = { type: 'object', properties: searchProperties } as const;

export async function gamespaceRoutes(
  app: FastifyInstance,
  options: { gamespaces: GamespaceService },
) {
  caseInsensitiveQuery(app);

  app.get<{
    Querystring: { term?: string; skip?: number; take?: number; filter?: string[] };
  }>('/api/gamespaces', { schema: { querystring: searchQuery } }, async (request) => {
    const { term, filter } = request.query;
    const filters = (filter ?? []).map((f) => f.toLowerCase());
    return options.gamespaces.list(actorOf(request), {
      term,
      filter: filters,
      ...paging(request.query),
    });
  });
}

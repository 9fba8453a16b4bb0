import type { FastifyInstance } from 'fastify';
import { paging } from '../../core/fields';
import type { GamespaceService } from '../../core/gamespaces';
import { actorOf } from '../auth';
import { caseInsensitiveQuery } from '../workspace/query';

const searchQuery = {
  type: 'object',
  properties: {
    term: { type: 'string' },
    skip: { type: 'integer', minimum: 0 },
    take: { type: 'integer', minimum: 0 },
    sort: { type: 'string' },
    filter: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
  },
} as const;

export async function gamespaceRoutes(
  app: FastifyInstance,
  options: { gamespaces: GamespaceService },
) {
  caseInsensitiveQuery(app);

  app.get<{
    Querystring: { term?: string; skip?: number; take?: number; filter?: string | string[] };
  }>('/api/gamespaces', { schema: { querystring: searchQuery } }, async (request) => {
    const { term, filter } = request.query;
    const filters = (Array.isArray(filter) ? filter : filter ? [filter] : []).map((f) =>
      f.toLowerCase(),
    );
    return options.gamespaces.list(actorOf(request), {
      term,
      filter: filters,
      ...paging(request.query),
    });
  });
}

import type { FastifyInstance } from 'fastify';

/**
 * Query keys are case-insensitive on the wire (wire reference §0: `?Term=` works as `?term=`).
 * The authoring routes' keys are all lowercase, so keys are lowercased before validation;
 * repeated keys in any case are merged.
 */
export function lowercaseQuery(query: unknown): Record<string, unknown> {
  if (!query || typeof query !== 'object') return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    const k = key.toLowerCase();
    const previous = out[k];
    out[k] = previous === undefined ? value : [previous, value].flat();
  }
  return out;
}

/** Adds the lowercasing to every route of the (encapsulated) plugin. */
export function caseInsensitiveQuery(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    request.query = lowercaseQuery(request.query);
  });
}

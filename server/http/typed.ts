import type { FastifyInstance } from 'fastify';
import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';

// Route schemas are the handlers' types: with this provider a route's `request.params`,
// `request.query` and `request.body` are inferred from its `schema` (the `as const` JSON schemas
// in the schemas.ts files), and what a handler returns is checked against its response schemas.
// A schema and the code that reads it cannot drift apart without the typecheck failing.

export function typed(app: FastifyInstance) {
  return app.withTypeProvider<JsonSchemaToTsProvider>();
}

export type TypedApp = ReturnType<typeof typed>;

import fp from 'fastify-plugin';
import { registerOpenApi } from '../http/openapi';

// The API's description (`/api/openapi.json`, the page at `/api`): registered before the API's
// routes, so that it sees them all.

export const openApiPlugin = fp<{ version: string }>(
  async (fastify, { version }) => {
    await registerOpenApi(fastify, { version });
  },
  { name: 'openapi' },
);

import fp from 'fastify-plugin';
import { openStore, type Store } from '../store/db';
import { createApiKeyRepository, type ApiKeyRepository } from '../store/repositories/apiKeys';
import {
  createGamespaceRepository,
  type GamespaceRepository,
} from '../store/repositories/gamespaces';

// The store (SQLite or PostgreSQL, migrated as it opens) and the repositories that plugins read
// themselves; each service builds its own from `store.db`. Registered first, so closed last:
// whatever closes before it may still write.

export interface Repositories {
  /** Whose API key a request carries (authentication). */
  apiKeys: ApiKeyRepository;
  /** Grader keys (authentication), and whether an agent's gamespace still exists (the hub). */
  gamespaces: GamespaceRepository;
}

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    repositories: Repositories;
  }
}

export const storePlugin = fp(
  async (fastify) => {
    const { databaseUrl, databaseSchema } = fastify.config;
    const store = await openStore({ url: databaseUrl, schema: databaseSchema });
    fastify.addHook('onClose', () => store.close());
    fastify.decorate('store', store);
    fastify.decorate('repositories', {
      apiKeys: createApiKeyRepository(store.db),
      gamespaces: createGamespaceRepository(store.db),
    });
  },
  { name: 'store', dependencies: ['settings'] },
);

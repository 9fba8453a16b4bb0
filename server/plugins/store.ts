import fp from 'fastify-plugin';
import { openStore, type Store } from '../store/db';

// The store (SQLite or PostgreSQL, migrated as it opens); the repositories plugin builds every
// repository from it. Registered first, so closed last: whatever closes before it may still write.

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
  }
}

export const storePlugin = fp(
  async (fastify) => {
    const { databaseUrl, databaseSchema } = fastify.config;
    const store = await openStore({ url: databaseUrl, schema: databaseSchema });
    fastify.addHook('onClose', () => store.close());
    fastify.decorate('store', store);
  },
  { name: 'store', dependencies: ['settings'] },
);

import { join } from 'node:path';
import fp from 'fastify-plugin';
import { usesEmbeddedIdentity } from '../config';
import { seedFirstRun, type SeedResult } from '../core/seed';
import { removeStaleStaging } from '../core/staging';
import { seedStockTemplates } from '../core/stockTemplates';
import { docsDirOf, userDefaults } from './services';

// Start-up work on the data: the first run's accounts (embedded identity provider only), the
// stock templates, and the uploads a killed process left half-written.

declare module 'fastify' {
  interface FastifyInstance {
    /** The accounts made on the first start with an empty database; null otherwise. */
    seeded: SeedResult | null;
  }
}

export const seedPlugin = fp(
  async (fastify) => {
    const { config, store } = fastify;
    const seeded = usesEmbeddedIdentity(config)
      ? await seedFirstRun({
          db: store.db,
          users: fastify.services.users,
          defaults: userDefaults(config),
          dataDir: config.dataDir,
          knownPassword: config.seedPassword,
          url: config.publicUrl,
        })
      : null;
    await seedStockTemplates(store.db);
    for (const root of [join(config.dataDir, 'isos'), docsDirOf(config)]) {
      await removeStaleStaging(root);
    }
    fastify.decorate('seeded', seeded);
  },
  { name: 'seed', dependencies: ['settings', 'store', 'services'] },
);

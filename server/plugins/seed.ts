import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fp from 'fastify-plugin';
import { usesEmbeddedIdentity } from '../config';
import type { RoleName } from '../core/roles';
import { removeStaleStaging } from '../core/staging';
import { seedStockTemplates } from '../core/stockTemplates';
import type { UserService } from '../core/users';
import { AccountError, createAccount, generatePassword, hashPassword } from '../identity';
import type { Db } from '../store/db';
import { docsDirOf } from './services';

// Start-up work on the data: the first run's accounts (embedded identity provider only), the
// stock templates, and the uploads a killed process left half-written.

// First start with an empty database and the embedded identity provider: one account per role
// so a newcomer can sign in at once. Passwords are generated (or TOPOPLAY_SEED_PASSWORD for
// tests), printed once, and written to data/initial-credentials.txt readable by the owner only.

export const SEEDED_ACCOUNTS: ReadonlyArray<{ username: string; name: string; role: RoleName }> = [
  { username: 'admin', name: 'Administrator', role: 'administrator' },
  { username: 'creator', name: 'Creator', role: 'creator' },
  { username: 'observer', name: 'Observer', role: 'observer' },
  { username: 'player', name: 'Player', role: 'user' },
];

export const CREDENTIALS_FILE = 'initial-credentials.txt';

export interface SeedResult {
  accounts: Array<{ username: string; password: string; role: RoleName }>;
  file: string;
}

export async function seedFirstRun(options: {
  db: Db;
  users: Pick<UserService, 'anyStored' | 'addSeeded'>;
  dataDir: string;
  knownPassword?: string;
  url: string;
}): Promise<SeedResult | null> {
  const { db } = options;
  if (await options.users.anyStored()) return null;

  const accounts: SeedResult['accounts'] = [];
  // A known password (tests) is the same for every account: hashed once, not once per account.
  const knownHash = options.knownPassword ? await hashPassword(options.knownPassword) : undefined;
  for (const [index, seed] of SEEDED_ACCOUNTS.entries()) {
    const password = options.knownPassword || generatePassword();
    let id: string;
    try {
      ({ id } = await createAccount(db, {
        username: seed.username,
        name: seed.name,
        password,
        passwordHash: knownHash,
      }));
    } catch (error) {
      // Replicas started at once on an empty database all find no accounts; the first to create
      // the first account seeds, and the others start without seeding.
      if (index === 0 && error instanceof AccountError && error.message === 'AccountExists')
        return null;
      throw error;
    }
    await options.users.addSeeded({ id, name: seed.name, role: seed.role });
    accounts.push({ username: seed.username, password, role: seed.role });
  }

  await mkdir(options.dataDir, { recursive: true });
  const file = join(options.dataDir, CREDENTIALS_FILE);
  const lines = [
    `Topoplay first-run accounts for ${options.url}`,
    'Sign in with these, then keep this file safe or delete it.',
    '',
    ...accounts.map((a) => `${a.username.padEnd(10)} ${a.password.padEnd(28)} ${a.role}`),
    '',
  ];
  await writeFile(file, lines.join('\n'), { mode: 0o600 });
  await chmod(file, 0o600);
  return { accounts, file };
}

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
          dataDir: config.dataDir,
          knownPassword: config.seedPassword,
          url: config.publicUrl,
        })
      : null;
    await seedStockTemplates(fastify.repositories.stockTemplates, fastify.clock);
    for (const root of [join(config.dataDir, 'isos'), docsDirOf(config)]) {
      await removeStaleStaging(root, fastify.clock.now());
    }
    fastify.decorate('seeded', seeded);
  },
  { name: 'seed', dependencies: ['settings', 'store', 'repositories', 'services'] },
);

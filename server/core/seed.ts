import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../store/db';
import { createAccountRepository } from '../store/repositories/accounts';
import { AccountError, createAccount, generatePassword } from '../identity';
import { ROLE_NUMBERS, type RoleName } from './roles';
import type { UserDefaults, UserService } from './users';

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
  users: UserService;
  defaults: UserDefaults;
  dataDir: string;
  knownPassword?: string;
  url: string;
}): Promise<SeedResult | null> {
  const { db } = options;
  if (await createAccountRepository(db).any()) return null;

  const accounts: SeedResult['accounts'] = [];
  for (const [index, seed] of SEEDED_ACCOUNTS.entries()) {
    const password = options.knownPassword || generatePassword();
    let id: string;
    try {
      ({ id } = await createAccount(db, { username: seed.username, name: seed.name, password }));
    } catch (error) {
      // Replicas started at once on an empty database all find no accounts; the first to create
      // the first account seeds, and the others start without seeding.
      if (index === 0 && error instanceof AccountError && error.message === 'AccountExists')
        return null;
      throw error;
    }
    await options.users.upsertSeeded({
      id,
      name: seed.name,
      scope: '',
      workspaceLimit: options.defaults.workspaceLimit,
      gamespaceLimit: options.defaults.gamespaceLimit,
      gamespaceMaxMinutes: 0,
      gamespaceCleanupGraceMinutes: 0,
      role: ROLE_NUMBERS[seed.role],
      lastIdpAssignedRole: null,
      serviceAccountClientId: null,
      registrar: 0,
      whenCreated: Date.now(),
    });
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

import type { Store } from '../db';
import { createAccountRepository } from './accounts';
import { createAlertRepository } from './alerts';
import { createApiKeyRepository } from './apiKeys';
import { createArchiveRepository } from './archives';
import { createChallengeRepository } from './challenges';
import { createDispatchRepository } from './dispatches';
import { createDocumentRepository } from './documents';
import { createFavoriteRepository } from './favorites';
import { createGameEventRepository } from './gameEvents';
import { createGamespaceRepository } from './gamespaces';
import { createHelpRequestRepository } from './helpRequests';
import { createMembershipRepository } from './membership';
import { createPlayerRepository } from './players';
import { createPoolRepository } from './pools';
import { createRecordingRepository } from './recordings';
import { createStockTemplateRepository } from './stockTemplates';
import { createTemplateRepository } from './templates';
import { createUserRepository } from './users';
import { createWorkspaceRepository } from './workspaces';

// Every repository, built once from the store by the repositories plugin and handed to the
// services that read and write through it: server/core runs no query of its own.

export function createRepositories(store: Pick<Store, 'db' | 'rowLookup'>) {
  const { db } = store;
  return {
    /** The embedded identity provider's local accounts. */
    accounts: createAccountRepository(db),
    /** Answer-sharing alerts, and the other gamespaces' answers they are found among. */
    alerts: createAlertRepository(db),
    /** API keys, and whose key a request carries (authentication). */
    apiKeys: createApiKeyRepository(db),
    /** Workspaces as export and import move them. */
    archives: createArchiveRepository(db),
    challenges: createChallengeRepository(db),
    dispatches: createDispatchRepository(db),
    /** The log of a document's collaborative updates. */
    documents: createDocumentRepository(db),
    /** Grader keys (authentication), and whether an agent's gamespace still exists (the hub). */
    gamespaces: createGamespaceRepository(db),
    /** Gamespaces' event logs (deploys, consoles, submissions, ...). */
    gameEvents: createGameEventRepository(db),
    gamespaceFavorites: createFavoriteRepository(db, 'gamespaceFavorites'),
    /** Players' help requests and the observers' queue. */
    helpRequests: createHelpRequestRepository(db),
    membership: createMembershipRepository(db),
    players: createPlayerRepository(db),
    /** Warm pools: settings, pooled machine sets, scheduled launches. */
    pools: createPoolRepository(db),
    /** Console recordings' rows (their streams are files: server/console/recordings.ts). */
    recordings: createRecordingRepository(db),
    stockTemplates: createStockTemplateRepository(db),
    templates: createTemplateRepository(db),
    users: createUserRepository(store),
    workspaces: createWorkspaceRepository(db),
    workspaceFavorites: createFavoriteRepository(db, 'workspaceFavorites'),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;

import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { usesEmbeddedIdentity, type Config } from '../config';
import { createArchiveService } from '../core/archives';
import { createChallengeService } from '../core/challenges';
import { createDispatchService } from '../core/dispatches';
import { createDocumentService, type DocumentAccess } from '../core/documents';
import type { Publisher } from '../core/fields';
import { createGameEventReader } from '../core/gameEventLog';
import { createGamespaceService, gameState } from '../core/gamespaces';
import { createAnswerAlerts } from '../core/answerAlerts';
import { createGradingService } from '../core/grading';
import { createImageService } from '../core/images';
import { createIsoStore } from '../core/isos';
import { createLocalAccountService } from '../core/localAccounts';
import type { ListenerRevoker } from '../core/membership';
import { createMachineRemoval, oneAtATime } from '../core/play/removal';
import { createPlayService } from '../core/play/service';
import { createTemplateAvailability } from '../core/templateAvailability';
import { createTemplateService } from '../core/templates';
import type { UserDefaults } from '../core/actor';
import { createUserService } from '../core/users';
import { createVmService, type VmPublisher } from '../core/vms';
import { createWallService } from '../core/wall';
import { createConsoleRecordings } from '../console/recordings';
import { untagged } from '../hypervisor';
import { accountDirectory } from '../identity/accounts';
import { createWorkspaceService } from '../core/workspaces';

// The core services (server/core), one of each, wired to one another and to the store, the
// cache and the driver. They publish to hub clients through the hub, which the hub plugin
// (registered next: it asks these services who may listen) decorates before the server takes
// any request.

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

/** The limits of a user whose own are not set. */
export const userDefaults = (config: Config): UserDefaults => ({
  workspaceLimit: config.defaultWorkspaceLimit,
  gamespaceLimit: config.defaultGamespaceLimit,
});

/** Markdown documents and their images, under the data folder. */
export const docsDirOf = (config: Config): string => join(config.dataDir, 'docs');

function createServices(fastify: FastifyInstance) {
  // `clock` is the one buildApp was given: every service reads the time from it, so a test that
  // moves it on moves them all.
  const { config, store, repositories, cache, driver, stateCache, clock, gameEvents } = fastify;
  const { db } = store;
  const docsDir = docsDirOf(config);
  const publisher: Publisher = {
    publish: (group, event, payload) => fastify.hub.toGroup(group).send(event, payload),
  };
  // VmEvents have their own port: the authoring services' Publisher does not carry them.
  const vmPublisher: VmPublisher = {
    publish: (group, event, payload) => fastify.hub.toGroup(group).send(event, payload),
  };
  const listeners: ListenerRevoker = { revoke: (target) => fastify.hub.revoke(target) };

  // The embedded identity provider's local accounts, which administrators manage through the API.
  const accounts = accountDirectory(db);
  const users = createUserService(
    repositories,
    store.watchWrites,
    userDefaults(config),
    { localAccountsOnly: usesEmbeddedIdentity(config), accounts },
    { clock },
  );
  // Console recordings (server/console/recordings.ts): the console route records through it,
  // the console ticket tells the player, the janitor expires them, a deleted gamespace takes its.
  const recordings = createConsoleRecordings({
    repositories,
    settings: config.recording,
    clock,
    log: fastify.log,
  });
  fastify.addHook('onClose', () => recordings.settled());
  const vms = createVmService(repositories, {
    driver,
    publisher: vmPublisher,
    consoleTickets: fastify.consoleTickets,
    clock,
    recorded: recordings.isRecorded,
  });
  // Documents and images are the workspace service's to authorize, and go with a workspace.
  const documentAccess: DocumentAccess = {
    exists: (id) => workspaces.exists(id),
    canEdit: (actor, id) => workspaces.canEdit(actor, id),
  };
  const documents = createDocumentService(repositories.documents, {
    docsDir,
    access: documentAccess,
    publisher: {
      publish: (group, payload) => fastify.hub.toGroup(group).send('DocumentEvent', payload),
    },
    clock,
  });
  const images = createImageService({ docsDir, access: documentAccess });
  const workspaces = createWorkspaceService(repositories, {
    publisher,
    listeners,
    machines: vms.workspaceMachines,
    files: [documents, images],
    docsDir,
    clock,
  });
  const templates = createTemplateService(repositories, {
    publisher,
    machines: vms.templateMachines,
    clock,
    // The lists templates are chosen from mark those the hypervisor cannot run.
    availability: createTemplateAvailability({
      driver,
      find: (id) => repositories.templates.find(id),
      log: fastify.log,
    }),
  });
  // A completed or solved gamespace's machines go in the background right away; closing waits
  // for the removals under way, before the driver and the store close.
  const deleteMachines = oneAtATime(vms.workspaceMachines.gamespaceEnded);
  const removal = createMachineRemoval(repositories.gamespaces, {
    deleteMachines,
    log: fastify.log,
    clock,
  });
  // Expired games' machines go within seconds, as part of the janitor's work: not at all with
  // JANITOR_ENABLED false, where an administrator runs the janitor.
  const stopExpiryWatch = config.janitor.enabled ? removal.watchExpiry() : () => {};
  fastify.addHook('onClose', async () => {
    stopExpiryWatch();
    await removal.settled();
  });
  // Playing (wire reference §4.2, §4.5): launches deploy through the driver; machines are
  // removed through the VM service, which tells the gamespace's group.
  const playService = createPlayService(repositories, {
    driver,
    cache,
    publisher,
    listeners,
    vmPublisher,
    deleteMachines,
    machinesEnded: removal.ended,
    docsDir,
    stateCache,
    clock,
    // Launches claim a warm pool's ready set when there is one (core/pools).
    pools: fastify.pools.claims,
    // Deploys, extensions and ends go into the gamespace's event log.
    gameEvents,
  });
  const play: typeof playService = {
    ...playService,
    async remove(actor, id) {
      await playService.remove(actor, id);
      // Only a gamespace that was there is removed: `id` is its id.
      await recordings.removeGamespace(String(id));
    },
  };
  const gameEventReader = createGameEventReader(repositories, gameEvents);
  // Ours: submissions of another gamespace's generated answer, or of a canary, told to observers.
  const alerts = createAnswerAlerts({
    repositories,
    gameEvents,
    clock,
    log: fastify.log,
    mayRead: gameEventReader.mayRead,
  });
  // Grading (wire reference §4.4) answers GameState and tells the gamespace's group.
  const grading = createGradingService({
    repositories,
    publisher,
    gameState: (row) => gameState(row, { repositories, driver, docsDir, now: clock.now() }),
    ended: removal.ended,
    clock,
    // Submissions and their score go into the gamespace's event log.
    gameEvents,
    alerts,
  });
  // The dispatcher (wire reference §4.12): commands to in-lab agents, told to the gamespace.
  const dispatches = createDispatchService(repositories, {
    publisher: {
      publish: (group, event, payload) => fastify.hub.toGroup(group).send(event, payload),
    },
    clock,
    agents: (gamespaceId) => fastify.hub.agentsOf(gamespaceId),
    machines: async (gamespaceId) =>
      (await driver.machinesOf(gamespaceId)).map((vm) => untagged(vm.name)),
  });
  // ISO files: uploads into the data folder's isos/, listed for templates to mount.
  const isos = createIsoStore(repositories, {
    dataDir: config.dataDir,
    cache,
    maxBytes: config.uploadMaxBytes,
    freeMarginBytes: config.uploadFreeMarginBytes,
    xorriso: config.xorriso,
    canEdit: (actor, id) => workspaces.canEdit(actor, id),
    workspaceExists: (id) => workspaces.exists(id),
    mirror: fastify.driver,
    clock,
  });

  return {
    users,
    accounts: createLocalAccountService({ accounts, users, listeners }),
    /** Workspaces exported and imported as zips. */
    archives: createArchiveService(repositories.archives, {
      dataDir: config.dataDir,
      docsDir,
      clock,
    }),
    /** Ends listening on the hub for those whose right to it may have ended. */
    listeners,
    vms,
    documents,
    images,
    workspaces,
    templates,
    challenges: createChallengeService(repositories.challenges, workspaces, clock),
    gamespaces: createGamespaceService(repositories, clock),
    play,
    grading,
    /** Who reads a gamespace's event log (GET /api/gamespace/{id}/events). */
    gameEventReader,
    /** Answer-sharing alerts (GET /api/alerts). */
    alerts,
    /** The instructor wall (GET /api/wall). */
    wall: createWallService({ repositories, driver, clock }),
    dispatches,
    isos,
    recordings,
  };
}

export type Services = ReturnType<typeof createServices>;

export const servicesPlugin = fp(
  async (fastify) => {
    const services = createServices(fastify);
    fastify.decorate('services', services);
    // Recordings a stopped server left open are closed as far as they were written.
    await services.recordings.recover();
  },
  {
    name: 'services',
    dependencies: [
      'settings',
      'store',
      'repositories',
      'gameEvents',
      'cache',
      'hypervisor',
      'pools',
    ],
  },
);

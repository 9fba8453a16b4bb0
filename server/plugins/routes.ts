import fp from 'fastify-plugin';
import { readCredentials } from '../auth/authenticate';
import { recordingRoutes } from '../console/recordingRoutes';
import { consoleRoutes } from '../console/routes';
import { createConsoleViewers } from '../console/viewers';
import { createDiskImageStore } from '../core/diskImages';
import { consoleEventRecorder } from '../core/gameEventLog';
import { adminDiskImageRoutes } from '../http/admin/diskImageRoutes';
import { adminExportRoutes } from '../http/admin/exportRoutes';
import { adminPoolRoutes } from '../http/admin/poolRoutes';
import { adminRoutes } from '../http/admin/routes';
import { alertRoutes } from '../http/alert/routes';
import { challengeRoutes } from '../http/challenge/routes';
import { dispatchRoutes } from '../http/dispatch/routes';
import { documentRoutes } from '../http/document/routes';
import { fileRoutes } from '../http/file/routes';
import { gameEventRoutes } from '../http/gamespace/eventRoutes';
import { gradingRoutes } from '../http/gamespace/gradingRoutes';
import { resultRoutes } from '../http/results/routes';
import { createResultService } from '../core/results';
import { createResultRepository } from '../store/repositories/results';
import { helpRoutes } from '../http/help/routes';
import { createHelpService } from '../core/helpRequests';
import { gamespaceRoutes } from '../http/gamespace/routes';
import { templateRoutes } from '../http/template/routes';
import { accountRoutes } from '../http/user/accountRoutes';
import { userRoutes } from '../http/user/routes';
import { guestFileRoutes } from '../http/vm/files';
import { vmRoutes } from '../http/vm/routes';
import { vmClipboardRoutes } from '../http/vm/clipboardRoutes';
import { vmThumbnailRoutes } from '../http/vm/thumbnailRoutes';
import { createThumbnails } from '../console/thumbnails';
import { wallRoutes } from '../http/wall/routes';
import { createVmClipboard } from '../core/vmClipboard';
import { createGuestFileService } from '../core/guestFiles';
import { workspaceIsoRoutes } from '../http/workspace/isoRoutes';
import { workspaceRoutes } from '../http/workspace/routes';
import { hubRoutes } from '../hub/routes';
import { userDefaults } from './services';

// The API (wire reference §1–§5), one plugin per resource folder under server/http, each given
// the services it calls; the hub's endpoint and the consoles this server serves with them.

export const routesPlugin = fp<{ version: string }>(
  async (fastify, { version }) => {
    const { config, services, hub, authenticator, cache, driver } = fastify;
    await fastify.register(userRoutes, {
      users: services.users,
      listeners: services.listeners,
      authenticator,
      defaults: userDefaults(config),
      cookieMinutes: config.mksCookieMinutes,
      commit: config.commit,
      version,
    });
    await fastify.register(accountRoutes, { accounts: services.accounts });
    await fastify.register(workspaceRoutes, { workspaces: services.workspaces });
    await fastify.register(challengeRoutes, { challenges: services.challenges });
    await fastify.register(templateRoutes, { templates: services.templates });
    await fastify.register(gamespaceRoutes, {
      gamespaces: services.gamespaces,
      play: services.play,
    });
    await fastify.register(hubRoutes, { hub, authenticator, cache });
    await fastify.register(gradingRoutes, { grading: services.grading });
    await fastify.register(gameEventRoutes, { events: services.gameEventReader });
    await fastify.register(alertRoutes, { alerts: services.alerts });
    // Help requests: players raise a hand, observers of the audience claim and answer.
    await fastify.register(helpRoutes, {
      help: createHelpService({
        repositories: fastify.repositories,
        mayObserve: services.gameEventReader.mayRead,
        events: fastify.gameEvents,
        publisher: {
          publish: (channel, payload) => hub.toGroup(channel).send('ObserveEvent', payload),
        },
        clock: fastify.clock,
      }),
    });
    // The instructor wall (core/wall.ts).
    await fastify.register(wallRoutes, { wall: services.wall });
    await fastify.register(dispatchRoutes, { dispatches: services.dispatches });
    // The results table of a workspace and a player's own history (core/results.ts).
    await fastify.register(resultRoutes, {
      results: createResultService({
        repositories: fastify.repositories,
        results: createResultRepository(fastify.store.db),
        clock: fastify.clock,
      }),
    });
    await fastify.register(adminRoutes, {
      hub,
      janitor: fastify.janitor,
      errorLog: fastify.errorLog,
      driver,
    });
    await fastify.register(adminExportRoutes, { archives: services.archives });
    // Warm pools of launches (core/pools).
    await fastify.register(adminPoolRoutes, { pools: fastify.pools });
    // Disk images imported into the qemu driver's images folder (issue 31).
    const diskImages = createDiskImageStore({
      imagesDir: config.qemu.imagesDir,
      maxBytes: config.uploadMaxBytes,
      clock: fastify.clock,
      templates: () =>
        fastify.repositories.templates.search({
          term: '',
          publishedOnly: false,
          skip: 0,
          take: Number.MAX_SAFE_INTEGER,
        }),
    });
    await diskImages.removeStale();
    await fastify.register(adminDiskImageRoutes, { diskImages });
    // Who has each machine's console open, told to its gamespace (server/console/viewers.ts).
    const consoleViewers = createConsoleViewers({
      publish: (channel, payload) => fastify.hub.toGroup(channel).send('ConsoleEvent', payload),
    });
    await fastify.register(vmRoutes, {
      vms: services.vms,
      workspaces: services.workspaces,
      consoleViewers,
    });
    // Clipboard use, each one a `clipboard.copy` or `clipboard.paste` event of its gamespace.
    await fastify.register(vmClipboardRoutes, {
      clipboard: createVmClipboard({
        driver,
        mayOpenConsole: (actor, id) => services.vms.mayOpenConsole(actor, id),
        mayControlConsole: (actor, id) => services.vms.mayControlConsole(actor, id),
        isGamespace: async (tag) => (await fastify.repositories.gamespaces.find(tag)) !== undefined,
        events: fastify.gameEvents,
        log: fastify.log,
      }),
    });
    // Files into machines from their consoles, each one a `file.put` event of its gamespace.
    await fastify.register(guestFileRoutes, {
      files: createGuestFileService({
        driver,
        vms: services.vms,
        gamespaces: fastify.repositories.gamespaces,
        events: fastify.gameEvents,
      }),
    });
    const eventRecorder = consoleEventRecorder(
      fastify.repositories,
      fastify.gameEvents,
      fastify.log,
    );
    await fastify.register(consoleRoutes, {
      driver,
      tickets: fastify.consoleTickets,
      limits: config.console,
      recordings: services.recordings,
      onRefusedTicket: (request) => fastify.credentialRefused(request),
      viewers: {
        async viewerOf(request) {
          const creds = readCredentials(request.headers, {});
          return creds.cookie
            ? authenticator.authenticate({ cookie: creds.cookie }, ['cookie'])
            : null;
        },
        actorOf: (subject) => authenticator.actorForSubject(subject),
        mayOpen: (viewer, machineId) => services.vms.consoleAccess(viewer, machineId),
      },
      // Console opens and closes of a gamespace's machines go into its event log, and to the
      // gamespace's players as who is on the machine's console.
      sessions: {
        opened(session) {
          eventRecorder.opened(session);
          consoleViewers.opened(session);
        },
        closed(session) {
          eventRecorder.closed(session);
          consoleViewers.closed(session);
        },
      },
    });
    // The instructor's wall: thumbnails of running machines from the server's own console
    // captures, one per machine however many watch, ended when nobody watches.
    const thumbnails = createThumbnails({ driver, clock: fastify.clock, log: fastify.log });
    fastify.addHook('onClose', async () => thumbnails.close());
    await fastify.register(vmThumbnailRoutes, {
      thumbnails,
      driver,
      clock: fastify.clock,
      gamespaceOf: (tag) => fastify.repositories.gamespaces.find(tag),
      mayWatch: (actor, game) => services.gameEventReader.mayRead(actor, game),
    });
    // Console recordings, for observers and administrators (server/console/recordings.ts).
    await fastify.register(recordingRoutes, { recordings: services.recordings });
    await fastify.register(fileRoutes, { isos: services.isos });
    await fastify.register(workspaceIsoRoutes, { isos: services.isos });
    await fastify.register(documentRoutes, {
      documents: services.documents,
      images: services.images,
    });
  },
  {
    name: 'routes',
    encapsulate: true,
    dependencies: [
      'settings',
      'cache',
      'hypervisor',
      'services',
      'hub',
      'auth',
      'multipart',
      'janitor',
      'openapi',
    ],
  },
);

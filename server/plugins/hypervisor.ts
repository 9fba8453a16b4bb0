import fp from 'fastify-plugin';
import { createConsoleTickets, type ConsoleTicketStore } from '../console/tickets';
import { createDriver, type HypervisorDriver } from '../hypervisor';

// The hypervisor driver (HYPERVISOR), with the one-time tickets of the consoles this server
// serves itself. Its tasks run on the settings' clock.

declare module 'fastify' {
  interface FastifyInstance {
    driver: HypervisorDriver;
    consoleTickets: ConsoleTicketStore;
  }
}

export const hypervisorPlugin = fp(
  async (fastify) => {
    const { config } = fastify;
    const consoleTickets = createConsoleTickets(fastify.cache);
    const driver = createDriver(config, {
      db: fastify.store.db,
      dataDir: config.dataDir,
      console: consoleTickets,
      log: fastify.log,
      clock: fastify.clock,
    });
    fastify.addHook('onClose', () => driver.close());
    fastify.decorate('driver', driver);
    fastify.decorate('consoleTickets', consoleTickets);
  },
  { name: 'hypervisor', dependencies: ['settings', 'store', 'cache'] },
);

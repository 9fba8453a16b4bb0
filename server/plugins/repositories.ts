import fp from 'fastify-plugin';
import { createRepositories, type Repositories } from '../store/repositories';

// Every repository, built once from the store: the services are handed the ones they read and
// write through, and plugins (authentication, the hub, metrics) read them here. Nothing else
// queries the database.

declare module 'fastify' {
  interface FastifyInstance {
    repositories: Repositories;
  }
}

export const repositoriesPlugin = fp(
  async (fastify) => {
    fastify.decorate('repositories', createRepositories(fastify.store));
  },
  { name: 'repositories', dependencies: ['store'] },
);

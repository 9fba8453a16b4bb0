import fp from 'fastify-plugin';
import { createRepositories, type Repositories } from '../store/repositories';

// Every repository, built once from the store: the services plugin hands each service the ones
// it reads and writes through, and plugins (authentication, the hub, metrics, the janitor, the
// seed) take theirs from here.

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

import type { FastifyInstance } from 'fastify';
import type { Hub } from '../../hub/hub';
import { actorOf } from '../auth';

const liveSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      room: { type: 'string' },
      profileId: { type: 'string' },
      profileName: { type: 'string' },
    },
  },
} as const;

export async function adminRoutes(app: FastifyInstance, options: { hub: Hub }): Promise<void> {
  const { hub } = options;

  // Hub connections on every server process: one row per connection and room it listens in.
  app.get(
    '/api/admin/live',
    { config: { auth: 'admin' }, schema: { response: { 200: liveSchema } } },
    async () => hub.live(),
  );

  // A message to every connected client (text/plain, or a JSON string).
  app.post<{ Body: string | undefined }>(
    '/api/admin/announce',
    {
      config: { auth: 'admin' },
      schema: { body: { type: 'string' }, response: { 200: { type: 'boolean' } } },
    },
    async (request) => {
      const actor = actorOf(request);
      hub.toAll().send('GlobalEvent', {
        action: 'GLOBAL.ANNOUNCE',
        actor: { id: actor.id, name: actor.name },
        model: request.body ?? '',
      });
      return true;
    },
  );
}

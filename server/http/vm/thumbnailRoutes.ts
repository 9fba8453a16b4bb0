import type { FastifyInstance } from 'fastify';
import type { Thumbnails } from '../../console/thumbnails';
import type { Actor } from '../../core/actor';
import { notFound, forbidden } from '../../core/errors';
import { isOver } from '../../core/gamespaces';
import { tagOf, type HypervisorDriver } from '../../hypervisor';
import type { Clock } from '../../clock';
import { actorOf } from '../auth';
import { emptySchema, errorResponses } from '../schemas';
import { typed } from '../typed';
import { idParams } from './schemas';

// GET /api/vm/{id}/thumbnail (ours): a small PNG of a running machine's screen, for the
// instructor's wall. It is an observer's view: administrators read every machine's, observers
// those of gamespaces whose workspace's audience reaches their scope (the gamespace browser's
// rule, the event log's readers), while the gamespace runs; everyone else, its players included,
// gets 403. Pictures come from the server's own console capture (server/console/thumbnails.ts),
// shared by every watcher. Answers:
// - 200 image/png with ETag and `Cache-Control: private, no-cache`;
// - 304 when If-None-Match names the current picture's ETag;
// - 204 when there is no picture: the machine is not running, its capture has just started and
//   had no screen within a moment (FIRST_PICTURE_WAIT_MS), or the driver serves no consoles;
// - 503 with Retry-After when this server captures the most machines it allows;
// - an unknown machine as the other vm routes answer it: 403 to non-admins, 400
//   ResourceNotFound to administrators.

/** Seconds a client refused over the cap should wait: captures end after that long idle. */
export const THUMBNAIL_RETRY_AFTER_SECONDS = 15;
export const THUMBNAIL_CACHE_CONTROL = 'private, no-cache';

/** Whether an If-None-Match header names the entity tag (weak comparison, RFC 9110 §13.1.2). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}

export interface ThumbnailRouteOptions {
  thumbnails: Thumbnails;
  driver: Pick<HypervisorDriver, 'load'>;
  clock: Clock;
  /** The gamespace of an isolation tag, if the tag is one. */
  gamespaceOf(
    tag: string,
  ): Promise<{ workspaceId: string | null; endTime: number; expirationTime: number } | undefined>;
  /** Whether the actor may watch the gamespace (the event log's readers: gameEventLog.ts). */
  mayWatch(actor: Actor, gamespace: { workspaceId: string | null }): Promise<boolean>;
}

export async function vmThumbnailRoutes(fastify: FastifyInstance, options: ThumbnailRouteOptions) {
  const app = typed(fastify);
  const { thumbnails, driver } = options;

  /** Refuses an actor who may not watch the tag's machines now. */
  const authorize = async (actor: Actor, tag: string) => {
    if (actor.isAdmin) return;
    const game = await options.gamespaceOf(tag);
    if (!game || isOver(game, options.clock.now())) throw forbidden();
    if (!(await options.mayWatch(actor, game))) throw forbidden();
  };

  app.get(
    '/api/vm/:id/thumbnail',
    {
      schema: {
        description:
          "A small PNG of the running machine's screen, from the server's own console capture " +
          '(one per machine, shared by every watcher, closed when nobody asked for 15 s). ' +
          'Administrators, and observers of the workspace audience while the gamespace runs. ' +
          'Send If-None-Match with the last ETag: 304 when the screen has not changed.',
        params: idParams,
        response: {
          200: {
            description: 'The thumbnail, with ETag and Cache-Control: private, no-cache',
            content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
          },
          204: {
            ...emptySchema,
            description:
              'No picture: the machine is not running, or its capture has just started; ask again',
          },
          304: { ...emptySchema, description: 'If-None-Match names the current picture' },
          503: {
            type: 'object',
            required: ['message'],
            properties: { message: { type: 'string' } },
            description:
              'ThumbnailCapacity: this server captures the most machines it allows; Retry-After',
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const machine = await driver.load(request.params.id);
      await authorize(actor, machine ? tagOf(machine.name) : request.params.id);
      if (!machine) throw notFound();
      reply.header('cache-control', THUMBNAIL_CACHE_CONTROL);
      if (machine.status !== 'deployed' || machine.state !== 'running') {
        return reply.code(204).send();
      }
      const answer = await thumbnails.thumbnail(machine.id);
      if ('refused' in answer) {
        request.log.info({ machineId: machine.id }, answer.refused);
        return reply
          .code(503)
          .header('retry-after', String(THUMBNAIL_RETRY_AFTER_SECONDS))
          .send({ message: 'ThumbnailCapacity' });
      }
      if ('none' in answer) return reply.code(204).send();
      const { png, etag } = answer.picture;
      reply.header('etag', etag);
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.code(200).type('image/png').send(png);
    },
  );
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { paging } from '../../core/fields';
import type { GamespaceService, GameState } from '../../core/gamespaces';
import type { PlayService } from '../../core/play/service';
import { actorOf } from '../auth';
import { caseInsensitiveQuery } from '../workspace/query';
import { searchProperties } from '../search';
import {
  anonymousErrorResponses,
  bodyErrorResponses,
  doneResponses,
  errorResponses,
  notFoundResponse,
  stringListSchema,
} from '../schemas';
import {
  changedGamespaceBody,
  codeParams,
  enlisteeBody,
  enlistmentSchema,
  gamespaceSchema,
  gameStateSchema,
  idParams,
  joinCodeSchema,
  playerParams,
  playerSchema,
  registrationBody,
} from './schemas';
import { typed } from '../typed';

// Gamespace routes (wire reference §1.2): the list, launching and playing a workspace, players,
// invitations and favorites. The rules live in the play service: an unknown id is 400
// ResourceNotFound before authorization, an actor who may not act gets 403 with an empty body.
// Routes of the AnyUser policy also accept a one-time ticket and the console cookie, as there.

const searchQuery = { type: 'object', properties: searchProperties } as const;

const anyUser = { auth: 'anyUser' } as const;
const stateResponse = { 200: gameStateSchema, ...errorResponses } as const;
const changed = { ...doneResponses, ...bodyErrorResponses } as const;

/** `{scheme}://{host}` of the request, which the launchpoint and grader addresses use. */
const originOf = (request: FastifyRequest) => ({
  origin: `${request.protocol}://${request.host}`,
});

export async function gamespaceRoutes(
  fastify: FastifyInstance,
  options: { gamespaces: GamespaceService; play: PlayService },
) {
  const app = typed(fastify);
  const { play } = options;
  // Each kept state serialized once for the callers who may manage it, once for the others.
  const serialized = new WeakMap<GameState, Partial<Record<'manager' | 'other', string>>>();
  caseInsensitiveQuery(app);

  app.get(
    '/api/gamespaces',
    {
      schema: {
        querystring: searchQuery,
        response: { 200: { type: 'array', items: gamespaceSchema }, ...errorResponses },
      },
    },
    async (request) => {
      const { term, filter } = request.query;
      const filters = (filter ?? []).map((f) => f.toLowerCase());
      return options.gamespaces.list(actorOf(request), {
        term,
        filter: filters,
        ...paging(request.query),
      });
    },
  );

  app.get(
    '/api/preview/:id',
    { schema: { params: idParams, response: stateResponse } },
    async (request) => play.preview(actorOf(request), request.params.id),
  );

  app.get(
    '/api/gamespace/:id',
    { config: anyUser, schema: { params: idParams, response: stateResponse } },
    async (request, reply) => {
      const { state, canManage } = await play.load(actorOf(request), request.params.id);
      // A kept state (see stateCache.ts) is serialized once per kind of caller, by the route's
      // own serializer.
      const forms = serialized.get(state) ?? {};
      const form = canManage ? 'manager' : 'other';
      let json = forms[form];
      if (json === undefined) {
        json = reply.serialize({ ...state, canManage }) as string;
        serialized.set(state, { ...forms, [form]: json });
      }
      return reply.type('application/json; charset=utf-8').send(json);
    },
  );

  app.post(
    '/api/gamespace',
    {
      schema: {
        body: registrationBody,
        response: { ...stateResponse, ...bodyErrorResponses },
      },
    },
    async (request) => play.register(actorOf(request), request.body, originOf(request)),
  );

  app.put(
    '/api/gamespace',
    { config: anyUser, schema: { body: changedGamespaceBody, response: changed } },
    async (request, reply) => {
      await play.update(actorOf(request), request.body);
      return reply.code(200).send('');
    },
  );

  for (const action of ['start', 'stop', 'complete'] as const) {
    app.post(
      `/api/gamespace/:id/${action}`,
      { config: anyUser, schema: { params: idParams, response: stateResponse } },
      async (request) => play[action](actorOf(request), request.params.id),
    );
  }

  app.delete(
    '/api/gamespace/:id',
    { schema: { params: idParams, response: doneResponses } },
    async (request, reply) => {
      await play.remove(actorOf(request), request.params.id);
      return reply.code(200).send('');
    },
  );

  app.post(
    '/api/gamespace/:id/invite',
    {
      config: anyUser,
      schema: { params: idParams, response: { 200: joinCodeSchema, ...errorResponses } },
    },
    async (request) => play.invite(actorOf(request), request.params.id),
  );

  app.post(
    '/api/player/:code',
    { schema: { params: codeParams, response: doneResponses } },
    async (request, reply) => {
      await play.join(actorOf(request), request.params.code);
      return reply.code(200).send('');
    },
  );

  app.put(
    '/api/player/enlist',
    {
      config: { auth: 'anonymous' },
      schema: {
        body: enlisteeBody,
        response: { 200: enlistmentSchema, ...anonymousErrorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => play.enlist(request.body ?? {}),
  );

  app.get(
    '/api/players/:id',
    {
      schema: {
        params: idParams,
        response: { 200: { type: 'array', items: playerSchema }, ...errorResponses },
      },
    },
    async (request) => play.players(actorOf(request), request.params.id),
  );

  app.delete(
    '/api/gamespace/:id/player/:subjectId',
    { schema: { params: playerParams, response: doneResponses } },
    async (request, reply) => {
      await play.removePlayer(actorOf(request), request.params.id, request.params.subjectId);
      return reply.code(200).send('');
    },
  );

  app.get(
    '/api/gamespace-favorites',
    { schema: { response: { 200: stringListSchema, ...errorResponses } } },
    async (request) => play.favorites(actorOf(request)),
  );

  app.put(
    '/api/gamespace-favorite/:id',
    { schema: { params: idParams, response: { ...doneResponses, ...notFoundResponse } } },
    async (request, reply) => {
      const found = await play.favorite(actorOf(request), request.params.id);
      return reply.code(found ? 200 : 404).send('');
    },
  );

  app.delete(
    '/api/gamespace-favorite/:id',
    { schema: { params: idParams, response: doneResponses } },
    async (request, reply) => {
      await play.unfavorite(actorOf(request), request.params.id);
      return reply.code(200).send('');
    },
  );
}

import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../tests/server/manualClock';
import { createThumbnails, type Thumbnails } from '../../console/thumbnails';
import { actorFrom, type Actor } from '../../core/actor';
import { createGameEventReader, NO_GAME_EVENTS } from '../../core/gameEventLog';
import type { ConsoleViewer, Machine } from '../../hypervisor';
import { createSimConsoles } from '../../hypervisor/sim/console/consoles';
import { registerErrorHandling } from '../errors';
import { matchesEtag, THUMBNAIL_RETRY_AFTER_SECONDS, vmThumbnailRoutes } from './thumbnailRoutes';

// GET /api/vm/{id}/thumbnail's answers through Fastify's inject: who may watch (the event log's
// readers over fake repositories), a machine that is off, the cap, 304. The driver is a fake at
// its boundary (a map of machines) with the sim's consoles; the caller's actor is set in a hook
// as the auth plugin would.

const DEFAULTS = { workspaceLimit: 0, gamespaceLimit: 0 };
const admin = actorFrom(null, { id: 'admin', name: 'Admin' }, 'administrator', DEFAULTS);
const observerIn: Actor = {
  ...actorFrom(null, { id: 'obs', name: 'Obs' }, 'observer', DEFAULTS),
  scope: 'alpha',
};
const observerOut: Actor = { ...observerIn, id: 'obs2', scope: 'beta' };
const player = actorFrom(null, { id: 'p', name: 'P' }, 'user', DEFAULTS);

function machine(id: string, tag: string, state: Machine['state'] = 'running'): Machine {
  return {
    id,
    name: `kali#${tag}`,
    host: 'sim',
    path: '',
    reference: '',
    diskPath: '',
    stats: '',
    status: 'deployed',
    tags: null,
    state,
    question: null,
    task: null,
    isTemplate: false,
    nics: [],
  };
}

let app: FastifyInstance | null = null;
let thumbnails: Thumbnails | null = null;

afterEach(async () => {
  thumbnails?.close();
  await app?.close();
  app = null;
});

async function setUp(options: { maxCaptures?: number } = {}) {
  const clock = createManualClock();
  const machines = new Map<string, Machine>([
    ['m1', machine('m1', 'g1')],
    ['m2', machine('m2', 'g1')],
    ['off', machine('off', 'g1', 'off')],
    ['m3', machine('m3', 'over')],
  ]);
  const games = new Map([
    ['g1', { id: 'g1', workspaceId: 'w1', endTime: 0, expirationTime: 0 }],
    ['over', { id: 'over', workspaceId: 'w1', endTime: clock.now() - 1, expirationTime: 0 }],
  ]);
  const consoles = createSimConsoles({
    load: async (id) => machines.get(id) ?? null,
    subscribe: () => () => {},
    clock,
  });
  const opened: string[] = [];
  const driver = {
    load: async (id: string) => machines.get(id) ?? null,
    openConsole(id: string, viewer: ConsoleViewer) {
      opened.push(id);
      return consoles.open(id, viewer);
    },
  };
  const repositories = {
    gamespaces: { find: async (id: string) => games.get(id) },
    workspaces: { find: async (id: string) => (id === 'w1' ? { audience: 'alpha' } : undefined) },
  } as unknown as Parameters<typeof createGameEventReader>[0];
  const reader = createGameEventReader(repositories, NO_GAME_EVENTS);
  thumbnails = createThumbnails({ driver, clock, ...options });
  const server = Fastify();
  app = server;
  registerErrorHandling(server);
  let actor: Actor = admin;
  server.addHook('onRequest', async (request) => {
    request.actor = actor;
  });
  await server.register(vmThumbnailRoutes, {
    thumbnails,
    driver,
    clock,
    gamespaceOf: async (tag) => games.get(tag),
    mayWatch: (who, game) => reader.mayRead(who, game),
  });
  const get = (id: string, as: Actor = admin, headers: Record<string, string> = {}) => {
    actor = as;
    return server.inject({ method: 'GET', url: `/api/vm/${id}/thumbnail`, headers });
  };
  return { get, opened };
}

describe('GET /api/vm/{id}/thumbnail', () => {
  it('answers a PNG with its ETag, then 304 for it', async () => {
    const { get } = await setUp();
    const first = await get('m1');
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('image/png');
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect(first.rawPayload.subarray(1, 4).toString('latin1')).toBe('PNG');
    const etag = String(first.headers.etag);
    const again = await get('m1', admin, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.headers.etag).toBe(etag);
    expect(again.rawPayload.length).toBe(0);
    expect((await get('m1', admin, { 'if-none-match': '"other"' })).statusCode).toBe(200);
  });

  it('lets administrators and observers of the audience watch, and no one else', async () => {
    const { get } = await setUp();
    expect((await get('m1', observerIn)).statusCode).toBe(200);
    expect((await get('m1', observerOut)).statusCode).toBe(403);
    expect((await get('m1', player)).statusCode).toBe(403);
    // A gamespace that is over: administrators only.
    expect((await get('m3', observerIn)).statusCode).toBe(403);
    expect((await get('m3', admin)).statusCode).toBe(200);
  });

  it('answers an unknown machine 403 to observers, ResourceNotFound to administrators', async () => {
    const { get, opened } = await setUp();
    expect((await get('nope', observerIn)).statusCode).toBe(403);
    const reply = await get('nope', admin);
    expect(reply.statusCode).toBe(400);
    expect(reply.json()).toEqual({ message: 'ResourceNotFound' });
    expect(opened).toEqual([]);
  });

  it('answers 204 for a machine that is not running, and captures nothing', async () => {
    const { get, opened } = await setUp();
    const reply = await get('off', observerIn);
    expect(reply.statusCode).toBe(204);
    expect(reply.headers.etag).toBeUndefined();
    expect(opened).toEqual([]);
  });

  it('refuses a capture over the cap with 503 and Retry-After', async () => {
    const { get } = await setUp({ maxCaptures: 1 });
    expect((await get('m1')).statusCode).toBe(200);
    const refused = await get('m2');
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe(String(THUMBNAIL_RETRY_AFTER_SECONDS));
    expect(refused.json()).toEqual({ message: 'ThumbnailCapacity' });
    // The machine already captured is still served.
    expect((await get('m1')).statusCode).toBe(200);
  });
});

describe('matchesEtag', () => {
  it('compares entity tags weakly, in lists, and takes *', () => {
    expect(matchesEtag('"a"', '"a"')).toBe(true);
    expect(matchesEtag('W/"a"', '"a"')).toBe(true);
    expect(matchesEtag('"b", "a"', '"a"')).toBe(true);
    expect(matchesEtag('*', '"a"')).toBe(true);
    expect(matchesEtag('"b"', '"a"')).toBe(false);
    expect(matchesEtag(undefined, '"a"')).toBe(false);
    expect(matchesEtag('a', '"a"')).toBe(false);
  });
});

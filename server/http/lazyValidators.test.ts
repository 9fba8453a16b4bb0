import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { keepAjvHeaderNames, lazyValidators } from './lazyValidators';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

// The same routes on a server with Fastify's own (eager) validators and on one with the lazy ones.
function server(lazy: boolean, extraRoutes?: (app: FastifyInstance) => void): FastifyInstance {
  const app = Fastify(
    lazy ? { schemaController: { compilersFactory: { buildValidator: lazyValidators() } } } : {},
  );
  if (lazy) keepAjvHeaderNames(app);
  apps.push(app);
  app.post(
    '/items/:id/:page',
    {
      schema: {
        params: {
          type: 'object',
          properties: { id: { type: 'string', pattern: '^[a-z]+$' }, page: { type: 'integer' } },
          required: ['id', 'page'],
        },
        querystring: {
          type: 'object',
          properties: {
            tags: { type: 'array', items: { type: 'string' } },
            limit: { type: 'integer', minimum: 1, default: 10 },
            when: { type: 'string', format: 'date-time' },
          },
          additionalProperties: false,
        },
        headers: {
          type: 'object',
          properties: { 'X-Client-Version': { type: 'integer', minimum: 2 } },
          required: ['X-Client-Version'],
        },
        body: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 8 },
            count: { type: 'number', default: 1 },
            flag: { type: 'boolean' },
            email: { type: 'string', format: 'email' },
          },
          required: ['name'],
          additionalProperties: false,
        },
      },
    },
    async (request) => ({
      params: request.params,
      query: request.query,
      version: request.headers['x-client-version'],
      body: request.body,
    }),
  );
  // A root value ajv replaces (a lone number becomes an array) needs the request as its parent.
  app.post(
    '/list',
    { schema: { body: { type: 'array', items: { type: 'integer' } } } },
    async (request) => ({ body: request.body }),
  );
  extraRoutes?.(app);
  return app;
}

type Case = {
  url: string;
  headers?: Record<string, string>;
  body?: string | object;
};

const send = (app: FastifyInstance, request: Case) =>
  app.inject({
    method: 'POST',
    url: request.url,
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { payload: request.body }),
  });

const ok: Case = {
  url: '/items/abc/3?tags=x&limit=5',
  headers: { 'x-client-version': '4' },
  body: { name: 'n' },
};
const cases: Record<string, Case> = {
  valid: ok,
  coerced: {
    url: '/items/abc/7?tags=one&tags=two&when=2026-01-02T03:04:05Z&extra=gone',
    headers: { 'X-Client-Version': '3' },
    body: { name: 'abc', count: '2.5', flag: 'true', extra: 'removed' },
  },
  'bad param': { ...ok, url: '/items/ABC/3' },
  'param of the wrong type': { ...ok, url: '/items/abc/three' },
  'bad query': { ...ok, url: '/items/abc/3?limit=0' },
  'bad format in query': { ...ok, url: '/items/abc/3?when=yesterday' },
  'missing header': { ...ok, headers: {} },
  'header too small': { ...ok, headers: { 'x-client-version': '1' } },
  'body missing a field': { ...ok, body: { count: 1 } },
  'body too long': { ...ok, body: { name: 'far too long a name' } },
  'body of the wrong type': { ...ok, body: { name: 'n', flag: 'maybe' } },
  'bad format in body': { ...ok, body: { name: 'n', email: 'nobody' } },
  'body not an object': { ...ok, body: [1, 2] },
  'root value coerced': {
    url: '/list',
    headers: { 'content-type': 'application/json' },
    body: '7',
  },
  'root value not coerced': {
    url: '/list',
    headers: { 'content-type': 'application/json' },
    body: '"x"',
  },
};

describe('lazyValidators', () => {
  for (const [name, request] of Object.entries(cases)) {
    it(`answers as Fastify's own validators do: ${name}`, async () => {
      const answers = await Promise.all(
        [false, true].map(async (lazy) => {
          const response = await send(server(lazy), request);
          return { status: response.statusCode, body: response.body };
        }),
      );
      expect(answers[1]).toEqual(answers[0]);
      if (name === 'root value coerced') expect(answers[0]?.body).toBe('{"body":[7]}');
      if (['valid', 'coerced', 'root value coerced'].includes(name)) {
        expect(answers[0]?.status).toBe(200);
      } else expect(answers[0]?.status).toBe(400);
    });
  }

  it('coerces, fills defaults and drops extra properties as before', async () => {
    const response = await send(server(true), cases.coerced as Case);
    expect(response.json()).toEqual({
      params: { id: 'abc', page: 7 },
      query: { tags: ['one', 'two'], limit: 10, when: '2026-01-02T03:04:05Z' },
      version: 3,
      body: { name: 'abc', count: 2.5, flag: true },
    });
  });

  it('compiles a schema on its first use, not at start', async () => {
    const broken = (app: FastifyInstance) =>
      app.post(
        '/broken',
        { schema: { body: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } } },
        async () => ({ reached: true }),
      );
    await expect(server(false, broken).ready()).rejects.toThrow();
    const app = server(true, broken);
    await app.ready();
    // Other routes are unaffected; the broken schema fails only when a request needs it.
    expect((await send(app, ok)).statusCode).toBe(200);
    const response = await send(app, { url: '/broken', body: { a: 1 } });
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('reached');
  });

  it('exposes the errors and schemaEnv of the validator it builds', async () => {
    const selector = lazyValidators();
    const compile = selector({}, { customOptions: {}, plugins: [] });
    const validate = compile({
      schema: { type: 'object', properties: { n: { type: 'integer' } } },
      httpPart: 'body',
    });
    expect(validate({ n: 1 })).toBe(true);
    expect(validate({ n: 'x' })).toBe(false);
    expect(validate.errors?.[0]?.message).toBe('must be integer');
    expect(validate({ n: 2 })).toBe(true);
    expect(validate.errors).toBeNull();
    expect(validate.schemaEnv).toBeDefined();
  });
});

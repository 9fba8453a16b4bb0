import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBodyHandling } from '../../../server/http/body';
import { registerErrorHandling } from '../../../server/http/errors';
import { testEngines } from '../databases';
import { startTestServer, type TestServer } from '../harness';
import { gameboard, moodle, send, type Json } from './wire';

// Calls that carry no body, sent as Gameboard's generated .NET client and the Moodle plugin send
// them: `Content-Type: application/json` with an empty body. The reference (ASP.NET) binds that
// as no body and answers as usual; so must we, on every route that reads none, while a route
// that needs a body still says so.

const CHALLENGE = {
  text: 'Find the flag.',
  variants: [
    {
      text: 'The one variant',
      sections: [{ name: 'Only', text: '', questions: [{ text: 'Flag?', answer: 'green' }] }],
    },
  ],
};

describe.each(testEngines())('clients sending empty bodies on %s', (engine) => {
  let server: TestServer;
  let gb: ReturnType<typeof gameboard>;
  let md: ReturnType<typeof moodle>;
  let workspaceId = '';
  let playerId = '';

  /** A gamespace registered for the player, as Gameboard registers a challenge. */
  async function register(): Promise<Json> {
    const res = await gb.call('POST', '/api/gamespace', {
      ResourceId: workspaceId,
      GraderKey: 'gameboard-grader-key',
      GraderUrl: 'https://gameboard.example/api/challenge/grade',
      Variant: 0,
      PlayerCount: 1,
      MaxAttempts: 3,
      MaxMinutes: 60,
      Points: 100,
      AllowReset: true,
      AllowPreview: false,
      StartGamespace: false,
      ExpirationTime: new Date(Date.now() + 3_600_000).toISOString(),
      Players: [{ SubjectId: playerId, SubjectName: 'player' }],
    });
    expect(res.status, res.text).toBe(200);
    return res.body;
  }

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    playerId = await server.userId('player');
    gb = gameboard(server.url, await server.apiKeyFor('admin'));
    md = moodle(server.url, await server.apiKeyFor('admin'));
    const author = gameboard(server.url, await server.apiKeyFor('creator'));
    const ws = await author.call('POST', '/api/workspace', { Name: 'Empty bodies', Audience: '' });
    expect(ws.status, ws.text).toBe(200);
    workspaceId = ws.body.id;
    const challenge = await author.call('PUT', `/api/challenge/${workspaceId}`, CHALLENGE);
    expect(challenge.status, challenge.text).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it("answers Gameboard's body-less start, stop, invite, audit, regrade and complete", async () => {
    const { id } = await register();

    const started = await gb.empty('POST', `/api/gamespace/${id}/start`);
    expect(started.status, started.text).toBe(200);
    expect(started.body).toMatchObject({ id, isActive: true });

    const stopped = await gb.empty('POST', `/api/gamespace/${id}/stop`);
    expect(stopped.status, stopped.text).toBe(200);
    expect(stopped.body).toMatchObject({ id, isActive: true });

    const invite = await gb.empty('POST', `/api/gamespace/${id}/invite`);
    expect(invite.status, invite.text).toBe(200);
    expect(invite.body).toEqual({ id, code: expect.any(String) });

    const graded = await gb.call('POST', '/api/gamespace/grade', {
      Id: id,
      SectionIndex: 0,
      Questions: [{ Answer: 'green' }],
    });
    expect(graded.status, graded.text).toBe(200);

    const audit = await gb.empty('POST', `/api/gamespace/${id}/audit`);
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body).toHaveLength(1);

    const regraded = await gb.empty('POST', `/api/gamespace/${id}/regrade`);
    expect(regraded.status, regraded.text).toBe(200);
    expect(regraded.body).toMatchObject({ id, challenge: { score: 100 } });

    const completed = await gb.empty('POST', `/api/gamespace/${id}/complete`);
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body).toMatchObject({ id, isActive: false });
  });

  it("answers the Moodle plugin's body-less invite and complete, and its patch-typed extend", async () => {
    const launched = await md.postJson('/api/gamespace', {
      resourceId: workspaceId,
      startGamespace: true,
      allowPreview: false,
      allowReset: false,
      maxAttempts: 1,
      maxMinutes: 30,
      points: 10,
      variant: 0,
      players: [{ subjectId: playerId, subjectName: 'player' }],
    });
    expect(launched.status, launched.text).toBe(200);
    const id = launched.body.id as string;

    const invite = await md.post(`/api/gamespace/${id}/invite`);
    expect(invite.status, invite.text).toBe(200);
    expect(invite.body).toEqual({ id, code: expect.any(String) });

    const expirationTime = new Date(Date.now() + 7_200_000).toISOString();
    const extended = await md.put('/api/gamespace', JSON.stringify({ id, expirationTime }));
    expect(extended.status, extended.text).toBe(200);

    const completed = await md.post(`/api/gamespace/${id}/complete`);
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body).toMatchObject({ id, isActive: false });
  });

  it('still names a required body as missing, whatever the JSON type says', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'application/json-patch+json']) {
      const res = await send(server.url, 'PUT', '/api/vm', {
        'x-api-key': await server.apiKeyFor('admin'),
        'Content-Type': contentType,
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('A non-empty request body is required.');
    }
  });
});

describe('an empty JSON body on any route', () => {
  // The rule is the body parser's, not any one route's: three routes that stand for every kind.
  const app = Fastify();
  registerBodyHandling(app, {
    bodyTimeoutMs: 60_000,
    idleTimeoutMs: 60_000,
    uploadMinBytesPerSecond: 0,
  });
  registerErrorHandling(app);
  const echo = async (request: { body: unknown }) => ({ body: request.body ?? 'none' });
  app.post('/api/reads-none', echo);
  app.post(
    '/api/optional',
    { schema: { body: { type: 'object', properties: { note: { type: 'string' } } } } },
    echo,
  );
  app.post(
    '/api/required',
    {
      schema: {
        body: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      },
    },
    echo,
  );
  afterAll(() => app.close());

  const types = [
    'application/json; charset=utf-8',
    'application/json',
    'application/json-patch+json',
  ];
  const empty = (url: string, contentType: string, chunked = false) =>
    app.inject({
      method: 'POST',
      url,
      headers: chunked
        ? { 'content-type': contentType, 'transfer-encoding': 'chunked' }
        : { 'content-type': contentType, 'content-length': '0' },
      payload: '',
    });

  it.each(types)('gives no body to a route that reads none (%s)', async (contentType) => {
    for (const chunked of [false, true]) {
      const res = await empty('/api/reads-none', contentType, chunked);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ body: 'none' });
    }
  });

  it.each(types)('gives `{}` where every property is optional (%s)', async (contentType) => {
    const res = await empty('/api/optional', contentType);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ body: {} });
    // No content type at all (a bare POST from a script) is the same absence of a body.
    const bare = await app.inject({ method: 'POST', url: '/api/optional' });
    expect(bare.json()).toEqual({ body: {} });
  });

  it.each(types)('names a required body as missing (%s)', async (contentType) => {
    const res = await empty('/api/required', contentType);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      status: 400,
      errors: { '': ['A non-empty request body is required.'] },
      message: 'A non-empty request body is required.',
    });
  });

  it('still refuses JSON that is not JSON, whitespace included', async () => {
    for (const payload of [' ', '{']) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/reads-none',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ message: 'InvalidOperation' });
    }
  });
});

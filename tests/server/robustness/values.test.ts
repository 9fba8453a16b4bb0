import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { signIn } from '../oidc';

// Values a database cannot store (issue 12): PostgreSQL refuses a NUL character in text and a
// number past its column's range, where SQLite stores both. Either way the request carried the
// value, so the answer is a 400 naming the problem, never a 500.

describe.each(testEngines())('values the database cannot store, on %s', (engine) => {
  let server: TestServer;
  let token = '';

  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    server = await startTestServer({ engine });
    token = (await signIn(server.url, 'admin', SEED_PASSWORD)).accessToken;
  });
  afterAll(async () => server?.close());

  it('answers an id holding a NUL character without a server error', async () => {
    for (const [method, path] of [
      ['GET', '/preview/%00'],
      ['GET', '/workspace/%00/templates'],
      ['GET', '/template/%00/siblings'],
      ['DELETE', '/gamespace/%00'],
      ['POST', '/gamespace/%00/complete'],
    ] as const) {
      const res = await send(method, path);
      expect(res.status, `${method} ${path}: ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(500);
    }
  });

  it('answers text holding a NUL character, and numbers past a column, with a 400', async () => {
    const created = await send('POST', '/workspace', { name: 'Values' });
    expect(created.status).toBe(200);
    const { id } = JSON.parse(created.text) as { id: string };
    for (const change of [
      { name: 'nul\u0000name' },
      { name: 'ok', durationMinutes: 2 ** 40 },
      { name: 'ok', description: 'nul\u0000' },
    ]) {
      const res = await send('PUT', '/workspace', { id, ...change });
      expect(res.status, `${JSON.stringify(change)}: ${res.text}`).toBeLessThan(500);
    }
    const nul = await send('PUT', '/workspace', { id, name: 'nul\u0000name' });
    if (engine === 'postgres') {
      expect(nul.status).toBe(400);
      expect(JSON.parse(nul.text).errors.value[0]).toMatch(/cannot be stored/);
    }
  });
});

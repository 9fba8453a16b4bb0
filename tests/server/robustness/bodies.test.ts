import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_CHARS } from '../../../server/core/documents';
import {
  ANONYMOUS_BODY_LIMIT,
  DEFAULT_BODY_LIMIT,
  MAX_JSON_DEPTH,
} from '../../../server/http/body';
import { testEngines } from '../databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { signIn } from '../oidc';

// Request bodies (issue 12, "JSON bodies"): a size limit per route, small for routes anyone may
// call; JSON nested past a depth refused with 400 before it is parsed; and documents, which are
// the large bodies, still taken whole.

interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** `depth` arrays inside one another. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe.each(testEngines())('request bodies on %s', (engine) => {
  let server: TestServer;
  let token = '';

  async function send(
    method: string,
    path: string,
    body: string,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed };
  }
  const signedIn = () => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    server = await startTestServer({ engine });
    token = (await signIn(server.url, 'creator', SEED_PASSWORD)).accessToken;
  });
  afterAll(async () => server?.close());

  describe('size', () => {
    /** A JSON body of exactly `bytes` bytes. */
    const json = (bytes: number) => JSON.stringify({ padding: 'x'.repeat(bytes - 14) });

    it('refuses a body over the anonymous limit on a route anyone may call', async () => {
      const res = await send('POST', '/hub/negotiate', json(ANONYMOUS_BODY_LIMIT + 1));
      expect(res).toEqual({ status: 413, body: { message: 'PayloadTooLarge' } });
      // Under the limit, the route answers for itself (no ticket: 401).
      expect((await send('POST', '/hub/negotiate', json(1024))).status).toBe(401);
    });

    it('refuses a body over the anonymous limit for a path that no route answers', async () => {
      const res = await send('POST', '/nowhere', json(ANONYMOUS_BODY_LIMIT + 1));
      expect(res).toEqual({ status: 413, body: { message: 'PayloadTooLarge' } });
    });

    it('refuses a body over the default limit on a signed-in route', async () => {
      const big = JSON.stringify({ name: 'big', padding: 'x'.repeat(DEFAULT_BODY_LIMIT) });
      const res = await send('POST', '/api/workspace', big, signedIn());
      expect(res).toEqual({ status: 413, body: { message: 'PayloadTooLarge' } });
      const fits = JSON.stringify({ name: 'fits', padding: 'x'.repeat(DEFAULT_BODY_LIMIT / 2) });
      expect((await send('POST', '/api/workspace', fits, signedIn())).status).toBe(200);
    });

    it('takes a guide of the longest length, whatever its characters', async () => {
      const created = await send('POST', '/api/workspace', '{"name":"Guide"}', signedIn());
      const id = created.body.id as string;
      // Three bytes each in UTF-8: three times the default limit.
      const text = '€'.repeat(MAX_DOCUMENT_CHARS);
      const res = await send('PUT', `/api/document/${id}`, text, {
        ...signedIn(),
        'content-type': 'text/plain; charset=utf-8',
      });
      expect(res.status).toBe(200);
      const saved = await fetch(`${server.url}/api/document/${id}`, { headers: signedIn() });
      expect((await saved.text()).length).toBe(MAX_DOCUMENT_CHARS);
    });
  });

  describe('nesting', () => {
    const workspaceWith = (extra: string) => `{"name":"nested","extra":${extra}}`;

    it(`takes JSON nested ${MAX_JSON_DEPTH} levels deep`, async () => {
      // The body's own object is the first level.
      const res = await send(
        'POST',
        '/api/workspace',
        workspaceWith(nested(MAX_JSON_DEPTH - 1)),
        signedIn(),
      );
      expect(res.status).toBe(200);
    });

    it('refuses JSON nested one level deeper with 400', async () => {
      const res = await send(
        'POST',
        '/api/workspace',
        workspaceWith(nested(MAX_JSON_DEPTH)),
        signedIn(),
      );
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^InvalidOperation JSON nested deeper than/);
    });

    it('refuses JSON nested a hundred thousand levels deep with 400, not 500', async () => {
      for (const type of ['application/json', 'application/json-patch+json']) {
        const res = await send('POST', '/api/workspace', workspaceWith(nested(100_000)), {
          ...signedIn(),
          'content-type': type,
        });
        expect(res.status, type).toBe(400);
      }
      // Brackets inside strings are text, not nesting.
      const text = JSON.stringify(nested(100_000));
      expect((await send('POST', '/api/workspace', workspaceWith(text), signedIn())).status).toBe(
        200,
      );
    });

    it('still reads property names in any case, deep inside the body', async () => {
      const body = JSON.stringify({ Name: 'Cased', Description: 'kept' });
      const res = await send('POST', '/api/workspace', body, signedIn());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: 'Cased', description: 'kept' });
    });
  });
});

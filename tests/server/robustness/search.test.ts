import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TAKE } from '../../../server/core/fields';
import { INT32_MAX } from '../../../server/http/search';
import { testEngines } from '../databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { signIn } from '../oidc';

// Paging numbers of the common Search query (issue 12): the reference binds skip and take to
// 32-bit integers, so a larger one is a 400 problem there and here, never a database error.

const LISTS = ['/api/workspaces', '/api/templates', '/api/gamespaces', '/api/users'];
const HUGE = '99999999999999999999';
// Past a double's range: the validator coerces it to Infinity, which its `maximum` lets through.
const INFINITE = '9'.repeat(400);

describe.each(testEngines())('search paging on %s', (engine) => {
  let server: TestServer;
  let token = '';

  const get = async (path: string) => {
    const res = await fetch(`${server.url}${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    server = await startTestServer({ engine });
    // An administrator's workspace and template lists are database queries with the paging in
    // them, which is where an unbounded offset failed.
    token = (await signIn(server.url, 'admin', SEED_PASSWORD)).accessToken;
  });
  afterAll(async () => server?.close());

  it.each(LISTS)('answers %s with 400 for a skip or take past 32 bits', async (list) => {
    for (const key of ['skip', 'take', 'Skip']) {
      for (const value of [HUGE, String(INT32_MAX + 1), INFINITE]) {
        const res = await get(`${list}?${key}=${value}`);
        expect(res.status, `${key}=${value.slice(0, 24)}`).toBe(400);
        expect(res.body.errors).toHaveProperty(key.toLowerCase());
      }
    }
  });

  it.each(LISTS)('pages %s with the largest skip', async (list) => {
    const res = await get(`${list}?skip=${INT32_MAX}`);
    expect(res).toEqual({ status: 200, body: [] });
  });

  it('keeps the reference’s MaximumTakeExceeded above the service’s maximum', async () => {
    const res = await get(`/api/workspaces?take=${MAX_TAKE + 1}`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/MaximumTakeExceeded/);
    expect((await get(`/api/workspaces?take=${MAX_TAKE}`)).status).toBe(200);
  });
});

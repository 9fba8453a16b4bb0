import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testEngines } from './databases';
import { startTestServer, type TestServer } from './harness';

// GET /api/admin/log (wire reference §0, §1.8): the unexpected errors this process answered
// with 500, for administrators only, after `since`.

describe.each(testEngines())('admin log on %s', (engine) => {
  let server: TestServer;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer({ engine });
    for (const u of ['admin', 'player']) keys[u] = await server.apiKeyFor(u);
  });
  afterAll(() => server?.close());

  const get = async (path: string, key = keys.admin!) => {
    const res = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': key } });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : null };
  };

  it('is refused to anyone but an administrator', async () => {
    expect(await get('/api/admin/log', keys.player!)).toMatchObject({ status: 403, text: '' });
    const anonymous = await fetch(`${server.url}/api/admin/log`);
    expect(anonymous.status).toBe(401);
  });

  it('lists an unexpected failure, answered 500 without internals, with its time and request id', async () => {
    const before = Date.now() - 1;
    const failure = vi
      .spyOn(server.app.vms, 'list')
      .mockRejectedValueOnce(new Error('the datastore went away'));
    const failed = await fetch(`${server.url}/api/vms`, {
      headers: { 'x-api-key': keys.admin!, 'x-request-id': 'probe-500' },
    });
    failure.mockRestore();
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ message: 'Error' });

    const log = await get(`/api/admin/log?since=${new Date(before).toISOString()}`);
    expect(log.status).toBe(200);
    expect(log.body).toEqual([
      {
        timestamp: expect.any(String),
        level: 'error',
        message: 'the datastore went away',
        stackTrace: expect.stringContaining('the datastore went away'),
        requestId: 'probe-500',
      },
    ]);
    expect(Date.parse(log.body[0].timestamp)).toBeGreaterThan(before);

    // Later than the entry: nothing; the key in any case, and epoch milliseconds, work too.
    const after = Date.parse(log.body[0].timestamp);
    expect((await get(`/api/admin/log?Since=${after}`)).body).toEqual([]);
    expect((await get('/api/admin/log')).body).toHaveLength(1);
  });

  it('does not list refusals and validation failures, which are not server errors', async () => {
    await get('/api/admin/log', keys.player!);
    await get('/api/vm/not-a-machine');
    expect((await get('/api/admin/log')).body).toHaveLength(1);
  });

  it('answers 400 for a since that is not a date', async () => {
    const res = await get('/api/admin/log?since=yesterday-ish');
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveProperty('since');
  });
});

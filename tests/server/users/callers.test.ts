import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_NUMBERS } from '../../../server/core/roles';
import { CALLER_CACHE_MS } from '../../../server/core/callerCache';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { signIn } from '../oidc';

// The caller's row is kept for CALLER_CACHE_MS between requests (server/core/callerCache.ts):
// a change written through this server counts at once, whatever code wrote it; one written by
// another process counts within CALLER_CACHE_MS.

describe('the callers’ rows kept between requests', () => {
  let server: TestServer;
  let token = '';
  let playerId = '';
  let role = 0;

  const me = () =>
    fetch(`${server.url}/api/user`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    server = await startTestServer();
    ({ accessToken: token } = await signIn(server.url, 'player', SEED_PASSWORD));
    expect(
      (
        await fetch(`${server.url}/api/user/register`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(200);
    playerId = await server.userId('player');
    ({ role } = await server.app.store.db
      .selectFrom('users')
      .select('role')
      .where('id', '=', playerId)
      .executeTakeFirstOrThrow());
  });
  afterAll(() => server.close());

  const setRole = (value: number) =>
    server.app.store.db
      .updateTable('users')
      .set({ role: value })
      .where('id', '=', playerId)
      .execute();

  it('counts a change written through this server at once', async () => {
    expect((await me()).status).toBe(200);
    await setRole(ROLE_NUMBERS.disabled);
    try {
      const res = await me();
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ message: 'UserDisabled' });
    } finally {
      await setRole(role);
    }
    expect((await me()).status).toBe(200);
  });

  it('counts a local sign-in disabled through this server at once', async () => {
    expect((await me()).status).toBe(200);
    const db = server.app.store.db;
    await db
      .updateTable('identityAccounts')
      .set({ disabled: 1 })
      .where('id', '=', playerId)
      .execute();
    try {
      expect((await me()).status).toBe(400);
    } finally {
      await db
        .updateTable('identityAccounts')
        .set({ disabled: 0 })
        .where('id', '=', playerId)
        .execute();
    }
    expect((await me()).status).toBe(200);
  });

  it('counts a change written by another process within CALLER_CACHE_MS', async () => {
    // Another server process on the same database: its own connection, unseen by this one.
    const other = new Database(server.app.config.databaseUrl);
    const write = (value: number) =>
      other.prepare('update users set role = ? where id = ?').run(value, playerId);
    try {
      expect((await me()).status).toBe(200);
      write(ROLE_NUMBERS.disabled);
      const written = Date.now();
      let status = (await me()).status;
      while (status === 200) {
        expect(Date.now() - written).toBeLessThan(CALLER_CACHE_MS + 2_000);
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = (await me()).status;
      }
      expect(status).toBe(400);
    } finally {
      write(role);
      other.close();
    }
  });
});

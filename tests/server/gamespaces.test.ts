import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/core/ids';
import { withQuery } from '../../src/domain/query';
import { testEngines } from './databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { signIn } from './oidc';

// GET /api/gamespaces (wire reference §1.2). The gamespaces here are written straight to the
// store, each with the manager, players and times that the list's filters are tested on.

describe.each(testEngines())('gamespace list on %s', (engine) => {
  let server: TestServer;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer({ engine });
    for (const u of ['admin', 'observer', 'player', 'creator']) {
      tokens[u] = (await signIn(server.url, u, SEED_PASSWORD)).accessToken;
    }
    const db = server.app.store.db;
    const now = Date.now();
    const workspace = async (name: string, audience: string) => {
      const id = newId();
      await db
        .insertInto('workspaces')
        .values({
          id,
          name,
          description: '',
          tags: '',
          author: '',
          audience,
          shareCode: '',
          templateScope: '',
          isPublished: 0,
          templateLimit: 3,
          hostAffinity: 0,
          useUplinkSwitch: 0,
          durationMinutes: 0,
          launchCount: 0,
          lastActivity: now,
          challenge: '',
          whenCreated: now,
        })
        .execute();
      return id;
    };
    const open = await workspace('Open Lab', 'everyone');
    const closed = await workspace('Closed Lab', 'secret-team');
    const gamespace = async (
      key: string,
      workspaceId: string,
      manager: string,
      created: number,
      ended = false,
    ) => {
      const id = newId();
      ids[key] = id;
      await db
        .insertInto('gamespaces')
        .values({
          id,
          name: key,
          managerId: await server.userId(manager),
          managerName: manager,
          graderKey: '',
          whenCreated: created,
          startTime: created,
          endTime: ended ? now : 0,
          expirationTime: now + 3_600_000,
          cleanupGraceMinutes: 0,
          cleaned: 0,
          allowReset: 1,
          challenge: '',
          workspaceId,
          variant: 0,
          playerCount: 1,
        })
        .execute();
    };
    await gamespace('player-open', open, 'player', now - 3000);
    await gamespace('creator-closed', closed, 'creator', now - 2000);
    await gamespace('player-ended', open, 'player', now - 1000, true);
  });
  afterAll(async () => server?.close());

  // Queries are built as the SPA builds them: empty values left out, arrays as repeated keys.
  const list = async (who: string, params: Record<string, unknown> = {}) => {
    const res = await fetch(withQuery(`${server.url}/api/gamespaces`, params), {
      headers: { authorization: `Bearer ${tokens[who]}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Array<{
      name: string;
      isActive: boolean;
      audience: null;
      endTime: string;
    }>;
  };

  it('shows a player only the gamespaces it manages or plays, newest first', async () => {
    expect((await list('player')).map((g) => g.name)).toEqual(['player-ended', 'player-open']);
  });

  it('filters active gamespaces: not ended and not expired', async () => {
    const active = await list('player', { filter: ['active'], term: '' });
    expect(active.map((g) => g.name)).toEqual(['player-open']);
    expect(active[0]).toMatchObject({
      isActive: true,
      audience: null,
      endTime: '0001-01-01T00:00:00+00:00',
    });
  });

  it('ignores all for a user who is not an observer', async () => {
    expect((await list('player', { filter: ['all'] })).map((g) => g.name)).not.toContain(
      'creator-closed',
    );
  });

  it('gives observers every gamespace whose workspace audience matches their scope', async () => {
    const names = (await list('observer', { filter: ['all', 'active'] })).map((g) => g.name);
    expect(names).toEqual(['player-open']);
  });

  it('lists only ended or expired gamespaces with inactive, within the observer audience', async () => {
    const names = async (who: string) =>
      (await list(who, { filter: ['all', 'inactive'] })).map((g) => g.name);
    expect(await names('observer')).toEqual(['player-ended']);
    expect(await names('admin')).toEqual(['player-ended']);
    expect(await names('player')).toEqual(['player-ended']);
  });

  it('gives admins everything with all, and applies the term only then', async () => {
    expect((await list('admin', { filter: ['all'] })).map((g) => g.name)).toEqual([
      'player-ended',
      'creator-closed',
      'player-open',
    ]);
    expect((await list('admin', { filter: ['all'], term: 'CLOSED' })).map((g) => g.name)).toEqual([
      'creator-closed',
    ]);
    expect(
      (await list('admin', { filter: ['all'], term: ids['player-open']?.slice(0, 8) })).map(
        (g) => g.name,
      ),
    ).toEqual(['player-open']);
    expect(await list('admin', { term: 'closed' })).toEqual([]);
  });

  it('pages with skip and take', async () => {
    expect((await list('admin', { filter: ['all'], skip: 1, take: 1 })).map((g) => g.name)).toEqual(
      ['creator-closed'],
    );
  });

  it('requires authentication', async () => {
    expect((await fetch(`${server.url}/api/gamespaces`)).status).toBe(401);
  });
});

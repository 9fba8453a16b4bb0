import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_NUMBERS } from '../../server/core/roles';
import { apiRequest, type Json, type Reply } from './api';
import { testEngines } from './databases';
import { startTestServer, type TestServer } from './harness';
import { apiKey } from './hubClients';

// Results over HTTP: a workspace's results table (JSON and CSV) for administrators and observers
// of its audience, refused to its workers and to observers it does not reach; a caller's own
// games, never anyone else's.

const CHALLENGE = {
  text: 'Find the flags.',
  maxPoints: 100,
  maxAttempts: 3,
  transforms: [],
  variants: [
    {
      text: '',
      iso: null,
      sections: [
        {
          name: 'Recon',
          text: '',
          questions: [
            { text: 'The flag?', answer: 'forty-two', weight: 30, grader: 'match' },
            { text: 'The colour?', answer: 'blue', weight: 30, grader: 'match' },
          ],
        },
        {
          name: 'Exploit',
          text: '',
          questions: [{ text: 'The key?', answer: 'k', weight: 40, grader: 'match' }],
        },
      ],
    },
  ],
};

/** A player's name that a spreadsheet would run as a formula, with a quote and a comma. */
const FORMULA_NAME = '=HYPERLINK("http://evil","x"), Bob';

describe.each(testEngines())('results on %s', (engine) => {
  let server: TestServer;
  const headers: Record<string, Record<string, string>> = {};
  let workspaceId = '';
  let played: Json;
  let adminGame: Json;

  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers[who]!, method, path, body);
  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    const db = server.app.store.db;
    for (const who of ['admin', 'creator', 'observer', 'player']) {
      headers[who] = apiKey(await server.apiKeyFor(who));
    }
    const playerId = await server.userId('player');
    await db.updateTable('users').set({ gamespaceLimit: 0 }).where('id', '=', playerId).execute();
    const ws = await ok(call('creator', 'POST', '/workspace', { name: 'Red, Lab', audience: 'x' }));
    workspaceId = ws.id;
    await ok(call('creator', 'PUT', `/challenge/${workspaceId}`, CHALLENGE));
    await db
      .updateTable('workspaces')
      .set({ audience: 'everyone' })
      .where('id', '=', workspaceId)
      .execute();
    played = await ok(
      call('player', 'POST', '/gamespace', { resourceId: workspaceId, startGamespace: true }),
    );
    await ok(
      call('player', 'POST', '/gamespace/grade', {
        id: played.id,
        sectionIndex: 0,
        questions: [{ answer: 'forty-two' }, { answer: 'red' }],
      }),
    );
    adminGame = await ok(
      call('admin', 'POST', '/gamespace', { resourceId: workspaceId, startGamespace: true }),
    );
    // The admin's game is a team: the admin and a guest whose name is a formula.
    await db
      .insertInto('players')
      .values({
        gamespaceId: adminGame.id,
        subjectId: 'guest-1',
        subjectName: FORMULA_NAME,
        permission: 0,
      })
      .execute();
    // From here the audience is "alpha": the observer's scope reaches it, the creator's (an
    // observer too, of no scope, and the workspace's manager) does not.
    await db
      .updateTable('workspaces')
      .set({ audience: 'alpha' })
      .where('id', '=', workspaceId)
      .execute();
    await db
      .updateTable('users')
      .set({ scope: 'alpha', role: ROLE_NUMBERS.observer })
      .where('id', '=', await server.userId('observer'))
      .execute();
  }, 90_000);
  afterAll(() => server?.close());

  it('answers every gamespace with its players, times, score per set and attempts', async () => {
    const results = await ok(call('observer', 'GET', `/workspace/${workspaceId}/results`));
    expect(results).toMatchObject({ workspaceId, workspaceName: 'Red, Lab' });
    expect(results.games.map((g: Json) => g.gamespaceId)).toEqual([adminGame.id, played.id]);
    const mine = results.games[1];
    expect(mine).toMatchObject({
      name: 'Red, Lab',
      managerName: 'Player',
      players: [{ name: 'Player', isManager: true }],
      isTeam: false,
      isRunning: true,
      endTime: '0001-01-01T00:00:00+00:00',
      score: 30,
      maxPoints: 100,
      attempts: 1,
      maxAttempts: 3,
      questionSets: [
        { name: 'Recon', score: 30, maxScore: 60, attempts: 1 },
        { name: 'Exploit', score: 0, maxScore: 40, attempts: 0 },
      ],
    });
    expect(Date.parse(mine.startTime)).toBeGreaterThan(0);
    expect(mine.secondsUsed).toBeGreaterThanOrEqual(0);
    expect(results.games[0]).toMatchObject({ isTeam: true, score: 0 });
    expect(results.games[0].players.map((p: Json) => p.name).sort()).toEqual(
      [FORMULA_NAME, 'Administrator'].sort(),
    );
    // The grader key is nowhere in it.
    expect(JSON.stringify(results)).not.toMatch(/graderKey/);
  });

  it('counts the time used up to the end once a game has ended', async () => {
    await ok(call('player', 'POST', `/gamespace/${played.id}/complete`));
    const results = await ok(call('admin', 'GET', `/workspace/${workspaceId}/results`));
    const ended = results.games.find((g: Json) => g.gamespaceId === played.id);
    expect(ended.isRunning).toBe(false);
    expect(Date.parse(ended.endTime)).toBeGreaterThanOrEqual(Date.parse(ended.startTime));
    expect(ended.secondsUsed).toBe(
      Math.floor((Date.parse(ended.endTime) - Date.parse(ended.startTime)) / 1000),
    );
  });

  it('exports the results as CSV, its cells escaped and formulas kept as text', async () => {
    const res = await fetch(`${server.url}/api/workspace/${workspaceId}/results.csv`, {
      headers: headers.observer,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="red-lab-results-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const text = await res.text();
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(
      'gamespace,workspace,players,team,manager,started,ended,seconds used,running,score,' +
        'max points,attempts,max attempts,set 1 name,set 1 score,set 1 attempts,' +
        'set 2 name,set 2 score,set 2 attempts',
    );
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    // The workspace's name has a comma: quoted. The guest's name starts with '=' and holds
    // quotes and a comma: an apostrophe first, quotes doubled, the whole cell quoted.
    const names = [FORMULA_NAME, 'Administrator'].sort().join('; ');
    const escaped = `"'${names.replaceAll('"', '""')}"`;
    expect(lines[1]).toContain(`${adminGame.id},"Red, Lab",${escaped},true,Administrator,`);
    expect(lines[2]).toMatch(
      new RegExp(
        `^${played.id},"Red, Lab",Player,false,Player,[^,]+,[^,]+,\\d+,false,30,100,1,3,Recon,30,1,Exploit,0,0$`,
      ),
    );
  });

  it('refuses the workspace results to its workers, players and observers out of its audience', async () => {
    for (const path of [
      `/workspace/${workspaceId}/results`,
      `/workspace/${workspaceId}/results.csv`,
    ]) {
      expect((await call('admin', 'GET', path)).status).toBe(200);
      expect((await call('observer', 'GET', path)).status).toBe(200);
      // The creator manages the workspace and is an observer whose scope it does not reach.
      expect(await call('creator', 'GET', path)).toMatchObject({ status: 403, text: '' });
      expect(await call('player', 'GET', path)).toMatchObject({ status: 403, text: '' });
      expect((await apiRequest(server.url, {}, 'GET', path)).status).toBe(401);
    }
    expect(await call('admin', 'GET', '/workspace/nope/results')).toMatchObject({
      status: 400,
      body: { message: 'ResourceNotFound' },
    });
  });

  it("answers the caller's own games only, ended ones included", async () => {
    const mine = await ok(call('player', 'GET', '/my/results'));
    expect(mine.map((g: Json) => g.gamespaceId)).toEqual([played.id]);
    expect(mine[0]).toMatchObject({ name: 'Red, Lab', score: 30, isRunning: false });
    const admins = await ok(call('admin', 'GET', '/my/results'));
    expect(admins.map((g: Json) => g.gamespaceId)).toEqual([adminGame.id]);
    // An observer who played nothing sees nothing, however far the audience reaches.
    expect(await ok(call('observer', 'GET', '/my/results'))).toEqual([]);
  });
});

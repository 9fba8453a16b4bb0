import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROLE_NUMBERS } from '../../server/core/roles';
import { apiRequest, type Json, type Reply } from './api';
import { testEngines } from './databases';
import { startTestServer, type TestServer } from './harness';
import { apiKey } from './hubClients';

// The instructor's wall over HTTP (GET /api/wall): every running gamespace the caller may
// observe, administrators all of them, observers those of audiences their scope reaches, anyone
// else refused; each with its players, workspace, score, attempts, times, latest activity and
// machines. Ended gamespaces are not on it.

const CHALLENGE = {
  text: 'Find the flag.',
  transforms: [],
  variants: [
    {
      text: '',
      iso: null,
      sections: [
        {
          name: 'Only',
          text: '',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [
            { text: 'The flag?', answer: 'forty-two', weight: 50, grader: 'match' },
            { text: 'The colour?', answer: 'blue', weight: 50, grader: 'match' },
          ],
        },
      ],
    },
  ],
};

describe.each(testEngines())('the instructor wall on %s', (engine) => {
  let server: TestServer;
  const headers: Record<string, Record<string, string>> = {};
  /** Lab: audience alpha, which the observer's scope reaches. Other: beta, which it does not. */
  let lab = '';
  let other = '';
  /** The player's and the administrator's gamespaces of Lab, the administrator's of Other. */
  let played: Json;
  let adminLab: Json;
  let adminOther: Json;
  /** The creator's gamespace of Lab, ended. */
  let ended: Json;

  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers[who]!, method, path, body);
  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const wallOf = async (who: string, query = ''): Promise<Json[]> =>
    ok(call(who, 'GET', `/wall${query}`));
  const idsOf = (entries: Json[]) => entries.map((e: Json) => e.gamespaceId as string).sort();

  async function workspace(name: string): Promise<string> {
    const ws = await ok(call('creator', 'POST', '/workspace', { name, audience: 'everyone' }));
    const stock = (await ok(call('creator', 'GET', '/templates?term=linux-server'))) as Json[];
    const parent = stock.find((t) => t.name === 'linux-server');
    await ok(call('creator', 'POST', '/template', { templateId: parent.id, workspaceId: ws.id }));
    await ok(call('creator', 'PUT', `/challenge/${ws.id}`, CHALLENGE));
    return ws.id as string;
  }

  const launch = (who: string, resourceId: string) =>
    ok(call(who, 'POST', '/gamespace', { resourceId, startGamespace: true }));

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    const db = server.app.store.db;
    for (const who of ['admin', 'creator', 'observer', 'player']) {
      headers[who] = apiKey(await server.apiKeyFor(who));
    }
    for (const who of ['player', 'creator', 'admin']) {
      await db
        .updateTable('users')
        .set({ gamespaceLimit: 0 })
        .where('id', '=', await server.userId(who))
        .execute();
    }
    lab = await workspace('Lab');
    other = await workspace('Other');
    played = await launch('player', lab);
    adminLab = await launch('admin', lab);
    adminOther = await launch('admin', other);
    ended = await launch('creator', lab);
    await ok(call('creator', 'POST', `/gamespace/${ended.id}/complete`));
    await db.updateTable('workspaces').set({ audience: 'alpha' }).where('id', '=', lab).execute();
    await db.updateTable('workspaces').set({ audience: 'beta' }).where('id', '=', other).execute();
    await db
      .updateTable('users')
      .set({ scope: 'alpha', role: ROLE_NUMBERS.observer })
      .where('id', '=', await server.userId('observer'))
      .execute();
  }, 90_000);
  afterAll(() => server?.close());

  it('shows administrators every running gamespace and no ended one', async () => {
    expect(idsOf(await wallOf('admin'))).toEqual([played.id, adminLab.id, adminOther.id].sort());
  });

  it('shows observers the gamespaces of audiences their scope reaches, and no others', async () => {
    expect(idsOf(await wallOf('observer'))).toEqual([played.id, adminLab.id].sort());
    // The creator is an observer too, of no scope: alpha and beta reach no one of it.
    expect(await wallOf('creator')).toEqual([]);
  });

  it('refuses players and callers without credentials', async () => {
    expect(await call('player', 'GET', '/wall')).toMatchObject({ status: 403, text: '' });
    expect((await apiRequest(server.url, {}, 'GET', '/wall')).status).toBe(401);
  });

  it("keeps to one workspace's gamespaces when asked", async () => {
    expect(idsOf(await wallOf('admin', `?workspaceId=${other}`))).toEqual([adminOther.id]);
    // An observer asking for a workspace out of reach gets nothing of it.
    expect(await wallOf('observer', `?workspaceId=${other}`)).toEqual([]);
  });

  it('tells of players, workspace, times, score, attempts, machines and activity', async () => {
    const entry = (await wallOf('observer')).find((e) => e.gamespaceId === played.id);
    expect(entry).toMatchObject({
      workspaceId: lab,
      workspaceName: 'Lab',
      players: [{ id: await server.userId('player'), name: 'Player' }],
      startTime: played.startTime,
      expirationTime: played.expirationTime,
      score: 0,
      maxPoints: 100,
      attempts: 0,
      state: 'running',
      machines: [{ id: played.vms[0].id, name: 'linux-server', state: 'running' }],
    });
    // The launch's deploy is its first game event.
    expect(Date.parse(entry!.lastActivity)).toBeGreaterThan(0);
  });

  it('follows a submission and a machine turned off', async () => {
    const before = (await wallOf('admin')).find((e) => e.gamespaceId === played.id)!;
    await ok(
      call('player', 'POST', '/gamespace/grade', {
        id: played.id,
        sectionIndex: 0,
        questions: [{ answer: 'forty-two' }, { answer: 'red' }],
      }),
    );
    await ok(call('admin', 'PUT', '/vm', { id: played.vms[0].id, type: 'stop' }));
    await vi.waitFor(async () => {
      const after = (await wallOf('admin')).find((e) => e.gamespaceId === played.id)!;
      expect(after).toMatchObject({
        score: 50,
        attempts: 1,
        state: 'allOff',
        machines: [{ state: 'off' }],
      });
      expect(Date.parse(after.lastActivity)).toBeGreaterThanOrEqual(
        Date.parse(before.lastActivity),
      );
      expect(after.lastActivity).not.toBe(before.lastActivity);
    });
  });
  it('shows a raised hand with who is on it, and how many alerts a gamespace raised', async () => {
    const entryOf = async () =>
      (await wallOf('observer')).find((e) => e.gamespaceId === played.id)!;
    expect(await entryOf()).toMatchObject({ help: null, alerts: 0 });
    const raised = await ok(
      call('player', 'POST', `/gamespace/${played.id}/help`, { message: 'Stuck on the flag' }),
    );
    expect(await entryOf()).toMatchObject({
      help: { id: raised.id, message: 'Stuck on the flag', claimedByName: null },
    });
    await ok(call('observer', 'POST', `/help/${raised.id}/claim`));
    expect((await entryOf()).help).toMatchObject({ claimedByName: 'Observer' });
    await ok(call('observer', 'POST', `/help/${raised.id}/answer`, { text: 'Look in /etc.' }));
    expect((await entryOf()).help).toBeNull();

    // As the answer-sharing check stores them (server/core/answerAlerts.ts).
    const alert = {
      at: Date.now(),
      workspaceId: lab,
      kind: 'shared',
      gamespaceId: played.id,
      otherGamespaceId: adminLab.id,
      sectionIndex: 0,
      sectionName: 'Only',
      questionIndex: 0,
      questionText: 'The flag?',
      submitterNames: 'Player',
      ownerNames: 'Administrator',
      answer: 'x',
    };
    await server.app.store.db
      .insertInto('alerts')
      .values([
        { ...alert, id: 'alert-1' },
        { ...alert, id: 'alert-2' },
      ])
      .execute();
    expect(await entryOf()).toMatchObject({ alerts: 2 });
    const others = (await wallOf('admin')).filter((e) => e.gamespaceId !== played.id);
    expect(others.map((e) => e.alerts)).toEqual(others.map(() => 0));
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  emptyChallengeSpec,
  newQuestion,
  newSection,
  type ChallengeSpec,
  type VariantSpec,
} from '../../src/domain/challenge';
import { ROLE_NUMBERS } from '../../server/core/roles';
import { apiRequest, type Json, type Reply } from './api';
import { testEngines } from './databases';
import { startTestServer, type TestServer } from './harness';
import { apiKey, connect } from './hubClients';
import {
  insertGamespace,
  insertWorkspace,
  storedSpec,
  type InsertedGamespace,
} from './gradingFixtures';

// Answer-sharing alerts (server/core/answerAlerts.ts, GET /api/alerts): a submission graded
// wrong that is another gamespace's generated answer to the question, or one of its canaries,
// is stored as an alert and told to the workspace's observers as an `alert` game event. The
// player's grading, score and answer are exactly those of any wrong answer, and nothing of the
// alert reaches the player.

/** One set, as registration leaves it: the flag is this gamespace's, the word everyone's. */
function variantWith(flag: string): VariantSpec {
  return {
    text: '',
    iso: null,
    sections: [
      {
        ...newSection(),
        name: 'Recon',
        questions: [
          {
            ...newQuestion(),
            text: 'The flag?',
            answer: flag,
            weight: 0.5,
            canaries: ['flag{decoy}'],
          },
          { ...newQuestion(), text: 'First word?', answer: 'alpha', weight: 0.5 },
        ],
      },
    ],
  };
}

const specWith = (flag: string): ChallengeSpec => ({
  ...emptyChallengeSpec(),
  maxPoints: 100,
  variants: [variantWith('flag{##flag##}')],
  challenge: variantWith(flag),
});

describe.each(testEngines())('answer-sharing alerts on %s', (engine) => {
  let server: TestServer;
  const headers: Record<string, Record<string, string>> = {};
  let workspaceId = '';
  let red: InsertedGamespace;
  let blue: InsertedGamespace;
  let green: InsertedGamespace;
  let named: (flag: string, team: string, whenCreated?: number) => Promise<InsertedGamespace>;

  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers[who]!, method, path, body);
  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const grade = (g: InsertedGamespace, ...answers: string[]) =>
    ok(
      call('player', 'POST', '/gamespace/grade', {
        id: g.id,
        sectionIndex: 0,
        questions: answers.map((answer) => ({ answer })),
      }),
    );
  const alertsOf = (who: string, query = `?workspaceId=${workspaceId}`) =>
    call(who, 'GET', `/alerts${query}`);

  beforeAll(async () => {
    server = await startTestServer({ engine });
    const db = server.app.store.db;
    for (const who of ['admin', 'creator', 'observer', 'player']) {
      headers[who] = apiKey(await server.apiKeyFor(who));
    }
    const playerId = await server.userId('player');
    // The observer's scope reaches the audience "alpha"; the creator (an observer of no scope)
    // does not.
    await db
      .updateTable('users')
      .set({ scope: 'alpha', role: ROLE_NUMBERS.observer })
      .where('id', '=', await server.userId('observer'))
      .execute();
    workspaceId = await insertWorkspace(db, 'alpha', specWith('flag{##flag##}'));
    named = async (flag, team, whenCreated = Date.now()) => {
      const g = await insertGamespace(db, {
        workspaceId,
        managerId: playerId,
        spec: specWith(flag),
        row: { whenCreated },
      });
      await db
        .updateTable('players')
        .set({ subjectName: team })
        .where('gamespaceId', '=', g.id)
        .execute();
      return g;
    };
    red = await named('flag{a1b2c3d4}', 'Team Red', 1_000);
    blue = await named('flag{e5f6a7b8}', 'Team Blue', 2_000);
    green = await named('flag{c9d0e1f2}', 'Team Green', 3_000);
  });
  afterAll(() => server?.close());

  it("alerts observers when a gamespace submits another's generated answer, and tells its player nothing", async () => {
    const watcher = await connect(server.url, headers.observer!);
    const player = await connect(server.url, headers.player!);
    try {
      await watcher.connection.invoke('Listen', `observe:${workspaceId}`);
      await player.connection.invoke('Listen', blue.id);
      // Blue submits red's flag (another case: the grader ignores case); green a wrong one.
      const answered = await grade(blue, 'FLAG{A1B2C3D4}', 'beta');
      const control = await grade(green, 'flag{00000000}', 'beta');

      // What blue is answered is what any wrong answer gets.
      const shape = (state: Json) => ({
        ...state.challenge,
        questions: state.challenge.questions.map((q: Json) => ({ ...q, answer: undefined })),
      });
      expect(shape(answered)).toEqual(shape(control));
      expect(answered.challenge).toMatchObject({ score: 0, attempts: 1 });
      // Its own answer comes back in its question, as any submission's (wire reference §4.4);
      // nothing names red nor an alert.
      expect(JSON.stringify(answered)).not.toMatch(/alert|canar|Team Red/i);
      expect(JSON.stringify(answered)).not.toContain(red.id);
      expect((await storedSpec(server.app.store.db, blue.id)).score).toBe(0);

      const told = await watcher.next(
        (e) => e.name === 'ObserveEvent' && e.payload.model.kind === 'alert',
      );
      const sentence =
        'Team Blue submitted the answer generated for Team Red — Question 1 of Set 1 (Recon)';
      expect(told.payload.model).toMatchObject({ gamespaceId: blue.id, detail: sentence });

      const alerts = await ok(alertsOf('observer'));
      expect(alerts).toEqual([
        {
          id: expect.any(String),
          at: expect.any(String),
          workspaceId,
          kind: 'shared',
          gamespaceId: blue.id,
          otherGamespaceId: red.id,
          question: { sectionIndex: 0, sectionName: 'Recon', questionIndex: 0, text: 'The flag?' },
          submitterNames: 'Team Blue',
          ownerNames: 'Team Red',
          answer: 'FLAG{A1B2C3D4}',
          text: sentence,
        },
      ]);
      const events = (await ok(call('admin', 'GET', `/gamespace/${blue.id}/events`))) as Json[];
      expect(events.filter((e) => e.kind === 'alert')).toHaveLength(1);

      // Blue's player heard the game's update and nothing else: no alert, no observe event.
      await player.next((e) => e.name === 'GameEvent' && e.payload.action === 'GAME.UPDATE');
      expect(player.events.filter((e) => e.name === 'ObserveEvent')).toEqual([]);
      expect(JSON.stringify(player.events)).not.toMatch(/alert|Team Red/i);
      // The player may read neither the alerts nor the event log.
      expect(await alertsOf('player')).toMatchObject({ status: 403, text: '' });
      expect((await call('player', 'GET', `/gamespace/${blue.id}/events`)).status).toBe(403);
    } finally {
      await Promise.all([watcher.stop(), player.stop()]);
    }
  });

  it('never alerts for an answer the submitter shares legitimately', async () => {
    // Twin was generated red's flag (a transform's collision), and the word is every
    // gamespace's: both are right for twin, and no alert.
    const twin = await named('flag{a1b2c3d4}', 'Team Twin', 4_000);
    const answered = await grade(twin, 'flag{a1b2c3d4}', 'alpha');
    expect(answered.challenge.score).toBe(100);
    // Green's wrong word is nobody's answer.
    await grade(green, 'flag{11111111}', 'gamma');
    // Alerts are stored before the game event that tells of them: once green's submission is
    // in its log, any alert of it would be listed.
    await vi.waitFor(async () => {
      const events = (await ok(call('admin', 'GET', `/gamespace/${green.id}/events`))) as Json[];
      expect(events.filter((e) => e.kind === 'submission')).toHaveLength(2);
    });
    const alerts = (await ok(alertsOf('admin'))) as Json[];
    expect(alerts.filter((a) => a.gamespaceId === twin.id || a.gamespaceId === green.id)).toEqual(
      [],
    );
    // A flag two others were generated: one alert, naming the first made and counting the rest.
    await grade(green, 'flag{a1b2c3d4}', 'epsilon');
    const shared = await vi.waitFor(async () => {
      const found = ((await ok(alertsOf('admin'))) as Json[]).find(
        (a) => a.gamespaceId === green.id,
      );
      expect(found).toBeDefined();
      return found;
    });
    expect(shared).toMatchObject({ otherGamespaceId: red.id, ownerNames: 'Team Red and 1 more' });
  });

  it('alerts on a canary answer, naming no other gamespace', async () => {
    await grade(blue, ' flag{DECOY} ', 'delta');
    const canary = await vi.waitFor(async () => {
      const alerts = (await ok(alertsOf('admin'))) as Json[];
      const found = alerts.find((a) => a.kind === 'canary');
      expect(found).toBeDefined();
      return found;
    });
    expect(canary).toMatchObject({
      gamespaceId: blue.id,
      otherGamespaceId: null,
      ownerNames: '',
      answer: ' flag{DECOY} ',
      text: 'Team Blue submitted a canary answer — Question 1 of Set 1 (Recon)',
    });
    expect((await storedSpec(server.app.store.db, blue.id)).score).toBe(0);
  });

  it("keeps a question's canaries when the challenge is saved, and shows them to no player", async () => {
    const spec = specWith('flag{##flag##}');
    await ok(call('admin', 'PUT', `/challenge/${workspaceId}`, spec));
    const read = await ok(call('admin', 'GET', `/challenge/${workspaceId}`));
    expect(read.variants[0].sections[0].questions[0].canaries).toEqual(['flag{decoy}']);
    // A question without canaries is written as the reference writes it.
    expect(read.variants[0].sections[0].questions[1]).not.toHaveProperty('canaries');
    // The player's game state and progress (Gameboard's view) carry no canary.
    const state = await ok(call('player', 'GET', `/gamespace/${blue.id}`));
    const progress = await ok(call('player', 'GET', `/gamespace/${blue.id}/challenge/progress`));
    expect(state.challenge.questions).toHaveLength(2);
    expect(progress.variant.sections[0].questions).toHaveLength(2);
    expect(JSON.stringify([state, progress])).not.toMatch(/decoy|canar/i);
    // Observers, who see the answers, see them.
    const observed = await ok(call('observer', 'GET', `/gamespace/${blue.id}/challenge`));
    expect(observed.challenge.sections[0].questions[0].canaries).toEqual(['flag{decoy}']);
  });

  it('lets administrators and observers of the audience read alerts, and refuses everyone else', async () => {
    expect((await alertsOf('admin')).status).toBe(200);
    expect((await alertsOf('observer')).status).toBe(200);
    expect(await alertsOf('creator')).toMatchObject({ status: 403, text: '' });
    expect(await alertsOf('player')).toMatchObject({ status: 403, text: '' });
    // A grader key (the gamespace's own agent) is refused too.
    const agent = await apiRequest(server.url, apiKey(blue.graderKey), 'GET', '/alerts');
    expect(agent.status).toBe(403);
    expect((await apiRequest(server.url, {}, 'GET', '/alerts')).status).toBe(401);
    // Every workspace's: an observer gets those of the audience, not of a workspace beyond it.
    const db = server.app.store.db;
    const beyond = await insertWorkspace(db, 'beta', specWith('flag{##flag##}'));
    const playerId = await server.userId('player');
    const a = await insertGamespace(db, {
      workspaceId: beyond,
      managerId: playerId,
      spec: specWith('flag{aaaa}'),
    });
    const b = await insertGamespace(db, {
      workspaceId: beyond,
      managerId: playerId,
      spec: specWith('flag{bbbb}'),
    });
    await grade(b, 'flag{aaaa}', 'x');
    await vi.waitFor(async () => {
      const all = (await ok(alertsOf('admin', ''))) as Json[];
      expect(all.some((x) => x.gamespaceId === b.id && x.otherGamespaceId === a.id)).toBe(true);
    });
    const observed = (await ok(alertsOf('observer', ''))) as Json[];
    expect(observed.length).toBeGreaterThan(0);
    expect(observed.every((x) => x.workspaceId === workspaceId)).toBe(true);
    expect(await alertsOf('observer', `?workspaceId=${beyond}`)).toMatchObject({ status: 403 });
    // An observer whose scope reaches no workspace reads an empty list.
    expect(await ok(alertsOf('creator', ''))).toEqual([]);
    // Nor may the observer beyond the audience listen on the workspace's observe channel.
    const outsider = await connect(server.url, headers.creator!);
    try {
      await expect(outsider.connection.invoke('Listen', `observe:${workspaceId}`)).rejects.toThrow(
        'ActionForbidden',
      );
    } finally {
      await outsider.stop();
    }
  });
});

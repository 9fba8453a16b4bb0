import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../server/store/db';
import { newId } from '../../server/core/ids';
import { testEngines } from './databases';
import { freePort, SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { apiKey, connect, type Client } from './hubClients';
import {
  gamespaceSpec,
  insertGamespace,
  insertWorkspace,
  storedSpec,
  type InsertedGamespace,
} from './gradingFixtures';

// Grading, challenge progress, regrade and audit over HTTP (wire reference §1.2, §4.4), on every
// store engine: who may call each route, what is stored, what the caller and the group are told.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The real server as its own process (`node --import tsx server/main.ts`) on a shared store. */
async function spawnServer(
  database: { url: string; schema?: string },
  dataDir: string,
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      TOPOPLAY_URL: url,
      TOPOPLAY_DATA: dataDir,
      TOPOPLAY_SPA: join(dataDir, 'no-spa'),
      TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
      DATABASE_URL: database.url,
      ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}),
      JANITOR_ENABLED: 'false',
      LOG_LEVEL: 'error',
      REDIS_URL: '',
    },
    stdio: 'ignore',
  });
  // Up once it answers; a process that exits first never will.
  const died = new Promise<never>((_, reject) =>
    child.once('exit', () => reject(new Error('server did not start'))),
  );
  died.catch(() => {});
  const up = () =>
    fetch(`${url}/api/health/version`).then(
      (r) => r.ok,
      () => false,
    );
  await Promise.race([
    // Under a full CI run (a load average near 20) transpiling the server takes tens of seconds.
    vi.waitFor(async () => expect(await up()).toBe(true), { timeout: 90_000, interval: 100 }),
    died,
  ]);
  return { url, child };
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

const submitTo = (url: string, gs: InsertedGamespace, answer: string) =>
  fetch(`${url}/api/gamespace/grade`, {
    method: 'POST',
    headers: { 'x-api-key': gs.graderKey, 'content-type': 'application/json' },
    body: JSON.stringify({ id: gs.id, sectionIndex: 0, questions: [{ answer }, { answer }] }),
  });

describe.each(testEngines())('grading on %s', (engine) => {
  let server: TestServer;
  const keys: Record<string, string> = {};
  let playerId = '';
  let secretWs = '';
  let openWs = '';

  beforeAll(async () => {
    server = await startTestServer({ engine });
    for (const u of ['admin', 'observer', 'player', 'creator']) keys[u] = await server.apiKeyFor(u);
    playerId = await server.userId('player');
    const db = server.app.store.db;
    secretWs = await insertWorkspace(db, 'secret-team', gamespaceSpec());
    openWs = await insertWorkspace(db, 'everyone', gamespaceSpec());
  });
  afterAll(() => server?.close());

  const gamespace = (options: Partial<Parameters<typeof insertGamespace>[1]> = {}) =>
    insertGamespace(server.app.store.db, {
      workspaceId: secretWs,
      managerId: playerId,
      ...options,
    });

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : null, text };
  };
  const grade = (key: string, id: string, sectionIndex: number, ...answers: string[]) =>
    call('POST', '/api/gamespace/grade', key, {
      id,
      sectionIndex,
      questions: answers.map((answer) => ({ answer })),
    });

  it('stores a submission, answers GameState with the submitted answers and tells the group', async () => {
    const gs = await gamespace();
    let hub: Client | null = null;
    try {
      hub = await connect(server.url, apiKey(keys.player!));
      await hub.connection.invoke('Listen', gs.id);
      const res = await grade(keys.player!, gs.id, 0, 'Alpha', 'green');
      expect(res.status).toBe(200);
      expect(res.body!.id).toBe(gs.id);
      expect(res.body!.challenge).toMatchObject({ attempts: 1, score: 25, maxPoints: 100 });
      expect(res.body!.challenge.questions.map((x: Json) => x.answer)).toEqual(['Alpha', 'green']);
      expect(res.body!.challenge.questions.map((x: Json) => x.isCorrect)).toEqual([true, false]);
      const event = await hub.next((e) => e.name === 'GameEvent');
      expect(event.payload).toMatchObject({
        action: 'GAME.UPDATE',
        model: { id: gs.id, challenge: { attempts: 1, score: 25 } },
      });
    } finally {
      await hub?.stop();
    }
    const spec = await storedSpec(server.app.store.db, gs.id);
    expect(spec.submissions).toHaveLength(1);
    expect(spec.submissions[0]).toMatchObject({ id: gs.id, sectionIndex: 0 });
    expect(spec.score).toBeCloseTo(0.25);
    expect(spec.lastScoreTime.startsWith('0001-')).toBe(false);
  });

  it('answers duplicates and blank submissions with the state, without counting them', async () => {
    const gs = await gamespace();
    expect((await grade(keys.player!, gs.id, 0, 'one', 'two')).status).toBe(200);
    // The same answers in another (even a non-existent) section are a duplicate: no error.
    const dup = await grade(keys.player!, gs.id, 9, 'one', 'two');
    expect(dup.status).toBe(200);
    expect(dup.body!.challenge.attempts).toBe(1);
    expect((await grade(keys.player!, gs.id, 0, ' ', '')).status).toBe(200);
    expect((await storedSpec(server.app.store.db, gs.id)).submissions).toHaveLength(1);
  });

  it('rejects a bad section, an expired gamespace, used-up attempts and locked sets', async () => {
    const gs = await gamespace({ spec: gamespaceSpec({ maxAttempts: 1 }) });
    expect(await grade(keys.player!, gs.id, 2, 'a')).toMatchObject({
      status: 400,
      body: { message: 'InvalidOperation' },
    });
    expect(await grade(keys.player!, gs.id, 1, 'x y')).toMatchObject({
      status: 400,
      body: { message: 'QuestionSetLockedByPreReq' },
    });
    const expired = await gamespace({ row: { expirationTime: Date.now() - 1000 } });
    expect(await grade(keys.player!, expired.id, 0, 'a')).toMatchObject({
      status: 400,
      body: { message: 'GamespaceIsExpired' },
    });
    const limited = await gamespace({ spec: gamespaceSpec({ maxAttempts: 2 }) });
    await grade(keys.player!, limited.id, 0, 'a', 'b');
    // Two submissions in all use up maxAttempts 2: the game ends (the reference's quirk).
    const second = await grade(keys.player!, limited.id, 0, 'c', 'd');
    expect(second.body!.endTime.startsWith('0001-')).toBe(false);
    expect(second.body!.isActive).toBe(false);
    expect(await grade(keys.player!, limited.id, 0, 'e', 'f')).toMatchObject({
      status: 400,
      body: { message: 'GamespaceIsExpired' },
    });
  });

  it('ends the gamespace at full score', async () => {
    const gs = await gamespace({ spec: gamespaceSpec({ maxAttempts: 0 }) });
    await grade(keys.player!, gs.id, 0, 'alpha', 'blue');
    const last = await grade(keys.player!, gs.id, 1, 'y;x');
    expect(last.status).toBe(200);
    const row = await server.app.store.db
      .selectFrom('gamespaces')
      .select(['endTime'])
      .where('id', '=', gs.id)
      .executeTakeFirstOrThrow();
    expect(row.endTime).toBeGreaterThan(0);
    expect((await storedSpec(server.app.store.db, gs.id)).score).toBeCloseTo(1);
  });

  it('grade: the own grader key and players may, other users and other keys may not', async () => {
    const gs = await gamespace();
    const other = await gamespace();
    expect((await grade(gs.graderKey, gs.id, 0, 'agent', 'answer')).status).toBe(200);
    expect((await grade(keys.admin!, gs.id, 0, 'admin', 'answer')).status).toBe(200);
    const creator = await grade(keys.creator!, gs.id, 0, 'intruder', 'answer');
    expect(creator).toMatchObject({ status: 403, text: '' });
    expect((await grade(other.graderKey, gs.id, 0, 'foreign', 'key')).status).toBe(403);
    expect((await grade(keys.player!, newId(), 0, 'a')).status).toBe(400);
    expect((await storedSpec(server.app.store.db, gs.id)).submissions).toHaveLength(2);
  });

  it('progress: the grader key and players read it; others get 403', async () => {
    const gs = await gamespace();
    const other = await gamespace();
    await grade(keys.player!, gs.id, 0, 'alpha', 'red');
    const path = `/api/gamespace/${gs.id}/challenge/progress`;
    const byKey = await call('GET', path, gs.graderKey);
    expect(byKey.status).toBe(200);
    expect(byKey.body).toMatchObject({
      id: gs.id,
      attempts: 1,
      maxAttempts: 3,
      maxPoints: 100,
      score: 50,
      variant: { totalSectionCount: 2 },
    });
    expect(byKey.body!.variant.sections).toHaveLength(2);
    expect((await call('GET', path, keys.player!)).status).toBe(200);
    expect(await call('GET', path, keys.creator!)).toMatchObject({ status: 403, text: '' });
    expect((await call('GET', path, other.graderKey)).status).toBe(403);
    expect((await call('GET', path, keys.observer!)).status).toBe(403);
  });

  it('a correct question shows the answer submitted for it, never the answer key', async () => {
    // Question 2 is matchAny with the key 'red|blue': a player who answered 'Blue' must not be
    // shown the other alternatives, neither in the progress nor in GameState (wire §2.3).
    const gs = await gamespace();
    await grade(keys.player!, gs.id, 0, 'nothing', 'Blue');
    const state = await call('GET', `/api/gamespace/${gs.id}`, keys.player!);
    expect(state.body!.challenge.questions.map((x: Json) => [x.answer, x.isCorrect])).toEqual([
      ['', false],
      ['Blue', true],
    ]);
    await grade(keys.player!, gs.id, 0, 'Alpha', 'Blue');
    const progress = await call('GET', `/api/gamespace/${gs.id}/challenge/progress`, keys.player!);
    expect(progress.status).toBe(200);
    const first = progress.body!.variant.sections[0].questions as Json[];
    expect(first.map((x) => [x.answer, x.isCorrect])).toEqual([
      ['Alpha', true],
      ['Blue', true],
    ]);
    // The set this opened, not yet answered, shows no answer.
    expect(progress.body!.variant.sections[1].questions[0].answer).toBe('');
    expect(JSON.stringify(progress.body)).not.toContain('red|blue');
    expect(JSON.stringify(state.body)).not.toContain('red|blue');
  });

  it('challenge: admins and observers of the audience read the answers; others get 403', async () => {
    const secret = await gamespace();
    const open = await gamespace({ workspaceId: openWs });
    const path = (id: string) => `/api/gamespace/${id}/challenge`;
    const admin = await call('GET', path(secret.id), keys.admin!);
    expect(admin.status).toBe(200);
    expect(admin.body!.challenge.sections[0].questions[0].answer).toBe('alpha');
    // The variant played, 0-based (a field of our own, for the gamespace browser's summary).
    expect(admin.body!.variant).toBe(0);
    expect((await call('GET', path(open.id), keys.observer!)).status).toBe(200);
    expect(await call('GET', path(secret.id), keys.observer!)).toMatchObject({ status: 403 });
    expect((await call('GET', path(secret.id), keys.player!)).status).toBe(403);
    expect((await call('GET', path(secret.id), secret.graderKey)).status).toBe(403);
  });

  it('audit and regrade: the manager and admins may; other players and grader keys may not', async () => {
    const gs = await gamespace({ spec: gamespaceSpec({ maxAttempts: 0 }) });
    const other = await gamespace();
    await grade(keys.player!, gs.id, 0, 'alpha', 'green');
    const audit = await call('POST', `/api/gamespace/${gs.id}/audit`, keys.player!);
    expect(audit.status).toBe(200);
    expect(audit.body).toEqual([
      expect.objectContaining({
        id: gs.id,
        sectionIndex: 0,
        questions: [{ answer: 'alpha' }, { answer: 'green' }],
      }),
    ]);
    for (const path of [`/api/gamespace/${gs.id}/audit`, `/api/gamespace/${gs.id}/regrade`]) {
      expect((await call('POST', path, keys.creator!)).status).toBe(403);
      expect((await call('POST', path, gs.graderKey)).status).toBe(403);
      expect((await call('POST', path, other.graderKey)).status).toBe(403);
      expect((await call('POST', path, keys.admin!)).status).toBe(200);
    }

    // The author accepts "green" after the fact: the regrade counts the stored submission.
    const ws = gamespaceSpec();
    ws.variants[0]!.sections[0]!.questions[1]!.answer = 'red|green';
    await server.app.store.db
      .updateTable('workspaces')
      .set({ challenge: JSON.stringify(ws) })
      .where('id', '=', secretWs)
      .execute();
    try {
      const regraded = await call('POST', `/api/gamespace/${gs.id}/regrade`, keys.player!);
      expect(regraded.status).toBe(200);
      expect(regraded.body!.challenge.score).toBe(50);
      expect((await storedSpec(server.app.store.db, gs.id)).submissions).toHaveLength(1);
    } finally {
      await server.app.store.db
        .updateTable('workspaces')
        .set({ challenge: JSON.stringify(gamespaceSpec()) })
        .where('id', '=', secretWs)
        .execute();
    }
  });

  it('serializes concurrent submissions: none lost, none counted twice', async () => {
    const gs = await gamespace({ spec: gamespaceSpec({ maxAttempts: 0 }) });
    const answers = Array.from({ length: 50 }, (_, i) => `wrong-${i}`);
    const results = await Promise.all(answers.map((a) => grade(gs.graderKey, gs.id, 0, a, a)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const spec = await storedSpec(server.app.store.db, gs.id);
    expect(spec.submissions.map((s) => s.questions[0]!.answer).sort()).toEqual([...answers].sort());
  });

  describe('durability', () => {
    // The store above with a second server on it, a process of its own, for both tests: the first
    // shares the grading between the two servers, the second then kills the process while it
    // grades.
    let second: { url: string; child: ChildProcess };

    beforeAll(async () => {
      const { databaseUrl, databaseSchema } = server.app.config;
      second = await spawnServer({ url: databaseUrl, schema: databaseSchema }, server.dataDir);
    }, 240_000);
    afterAll(async () => {
      if (!second) return;
      second.child.kill('SIGKILL');
      await exited(second.child);
    });

    /** A gamespace of unlimited attempts on the shared store, written straight to it. */
    const prepare = () =>
      insertGamespace(server.app.store.db, {
        workspaceId: null,
        managerId: newId(),
        spec: gamespaceSpec({ maxAttempts: 0 }),
      });

    /** What the store holds, read on a connection of its own. */
    async function storedAnswers(id: string) {
      const { databaseUrl, databaseSchema } = server.app.config;
      const store = await openStore({ url: databaseUrl, schema: databaseSchema });
      try {
        return (await storedSpec(store.db, id)).submissions.map((s) => s.questions[0]!.answer);
      } finally {
        await store.close();
      }
    }

    it('two servers on one store grade one gamespace without losing a submission', async () => {
      const gs = await prepare();
      const answers = Array.from({ length: 60 }, (_, i) => `shared-${i}`);
      const statuses = await Promise.all(
        answers.map(
          async (answer, i) => (await submitTo([server, second][i % 2]!.url, gs, answer)).status,
        ),
      );
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect((await storedAnswers(gs.id)).sort()).toEqual([...answers].sort());
    }, 240_000);

    it('keeps every acknowledged submission when the server is killed while they run', async () => {
      const gs = await prepare();
      const { url, child } = second;

      const acknowledged: string[] = [];
      let failed = 0;
      const answers = Array.from({ length: 100 }, (_, i) => `attempt-${i}`);
      const running = answers.map((answer) =>
        submitTo(url, gs, answer).then(
          async (res) => {
            await res.text();
            if (res.status === 200) acknowledged.push(answer);
            // The kill comes in the middle of the run, with submissions still queued.
            if (acknowledged.length === 20) child.kill('SIGKILL');
          },
          () => {
            failed += 1;
          },
        ),
      );
      await Promise.all(running);
      await exited(child);
      expect(acknowledged.length).toBeGreaterThanOrEqual(20);
      expect(failed).toBeGreaterThan(0);

      const stored = await storedAnswers(gs.id);
      for (const answer of acknowledged) expect(stored).toContain(answer);
      expect(new Set(stored).size).toBe(stored.length);
    }, 240_000);
  });
});

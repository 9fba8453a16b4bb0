import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from './databases';
import { insertWorkspace } from './gradingFixtures';
import { startTestServer, type TestServer } from './harness';
import type { ChallengeSpec } from '../../src/domain/challenge';

// Issue 16: question set prerequisites written in points (30 of weights 30 + 20 + 50) open their
// set as a fraction would, whether the challenge is saved now (normalized at save) or was stored
// in points before (normalized when read at registration and grading).

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** The reported challenge: set 2 needs 30 scored in set 1, whose questions weigh 30 and 20. */
const REPORTED = {
  text: 'Prerequisites in points.',
  variants: [
    {
      text: '',
      sections: [
        {
          name: 'One',
          questions: [
            { text: 'First?', answer: 'a', weight: 30 },
            { text: 'Second?', answer: 'b', weight: 20 },
          ],
        },
        {
          name: 'Two',
          preReqPrevSection: 30,
          questions: [{ text: 'Third?', answer: 'c', weight: 50 }],
        },
      ],
    },
  ],
};

describe.each(testEngines())('prerequisites in points on %s', (engine) => {
  let server: TestServer;
  const keys: Record<string, string> = {};

  const call = async (who: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers: {
        'x-api-key': keys[who]!,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return (text ? JSON.parse(text) : null) as Json;
  };

  /** The player launches and starts the workspace, answers question 1 only, and reads progress. */
  async function answerFirstQuestionOnly(workspaceId: string) {
    const state = await call('player', 'POST', '/gamespace', {
      resourceId: workspaceId,
      variant: 1,
      startGamespace: true,
    });
    const before = await call('player', 'GET', `/gamespace/${state.id}/challenge/progress`);
    const graded = await call('player', 'POST', '/gamespace/grade', {
      id: state.id,
      sectionIndex: 0,
      questions: [{ answer: 'a' }, { answer: 'wrong' }],
    });
    const after = await call('player', 'GET', `/gamespace/${state.id}/challenge/progress`);
    return { before, graded, after };
  }

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    for (const u of ['creator', 'player']) keys[u] = await server.apiKeyFor(u);
  }, 60_000);
  afterAll(() => server?.close());

  it('saves 30 as 0.3 and opens set 2 once question 1 (weight 30) is correct', async () => {
    const ws = await call('creator', 'POST', '/workspace', {
      name: 'Points',
      audience: 'everyone',
    });
    await call('creator', 'PUT', `/challenge/${ws.id}`, REPORTED);
    expect((await call('creator', 'GET', `/challenge/${ws.id}`)).variants[0].sections[1]).toEqual(
      expect.objectContaining({ preReqPrevSection: 0.3, preReqTotal: 0 }),
    );

    const { before, graded, after } = await answerFirstQuestionOnly(ws.id);
    expect(before.variant.sections).toHaveLength(1);
    expect(before.nextSectionPreReqThisSection).toBe(0.3);
    // Set 1 stays the current one (question 2 is still open), set 2 is open beside it.
    expect(graded.challenge).toMatchObject({ score: 30, sectionIndex: 0, sectionCount: 2 });
    expect(after.variant.sections.map((s: Json) => s.name)).toEqual(['One', 'Two']);
    expect(after.nextSectionPreReqThisSection).toBeNull();
    // Set 2 takes answers now.
    const third = await call('player', 'POST', '/gamespace/grade', {
      id: graded.id,
      sectionIndex: 1,
      questions: [{ answer: 'c' }],
    });
    expect(third.challenge.score).toBe(80);
  });

  it('opens set 2 of a challenge stored with 30 before prerequisites were normalized', async () => {
    // Written straight to the store, as PUT challenge used to keep it.
    const id = await insertWorkspace(
      server.app.store.db,
      'everyone',
      REPORTED as unknown as ChallengeSpec,
    );
    const stored = await server.app.store.db
      .selectFrom('workspaces')
      .select('challenge')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(stored.challenge!).variants[0].sections[1].preReqPrevSection).toBe(30);

    const { graded, after } = await answerFirstQuestionOnly(id);
    expect(graded.challenge.score).toBe(30);
    expect(after.variant.sections).toHaveLength(2);
    expect(after.nextSectionPreReqThisSection).toBeNull();
  });
});

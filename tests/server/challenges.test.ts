import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/core/ids';
import { createAccount } from '../../server/identity';
import { emptyChallengeSpec, normalizeChallengeSpec } from '../../src/domain/challenge';
import { testEngines } from './databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { signIn } from './oidc';

// The challenge routes (wire reference §1.1 `api/challenge/{id}`, §2.3) through the real server:
// the default spec, a round trip, normalization, shape errors, the size limit and authorization.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Reply {
  status: number;
  text: string;
  body: Json;
}

/** Two variants, question sets, questions and transforms: what an author builds. */
const SPEC = {
  text: 'Find the flags.',
  maxPoints: 0,
  transforms: [
    { key: 'flag', value: 'hex:12' },
    { key: 'host', value: 'ipv4:10.0.0.0/24' },
  ],
  variants: [
    {
      text: 'Variant one',
      iso: { file: 'tools.iso', targets: 'kali attacker', downloadable: true, manifest: [] },
      sections: [
        {
          name: 'Recon',
          preReqPrevSection: 0,
          preReqTotal: 0,
          score: 0,
          text: 'Look around.',
          questions: [
            {
              text: 'Which host?',
              hint: 'ping',
              answer: '##host##',
              example: '10.0.0.1',
              weight: 0.4,
              penalty: 0.05,
              grader: 'match',
              hidden: false,
              isCorrect: false,
              isGraded: false,
            },
            {
              text: 'Which ports?',
              hint: '',
              answer: '22|80',
              example: '',
              weight: 0,
              penalty: 0,
              grader: 'matchAll',
              hidden: true,
              isCorrect: false,
              isGraded: false,
            },
          ],
        },
        {
          name: 'Exploit',
          preReqPrevSection: 0.4,
          preReqTotal: 0.2,
          score: 0,
          text: '',
          questions: [
            {
              text: 'The flag?',
              hint: '',
              answer: '##flag##',
              example: '',
              weight: 0.6,
              penalty: 0,
              grader: 'matchAlpha',
              hidden: false,
              isCorrect: false,
              isGraded: false,
            },
          ],
        },
      ],
    },
    {
      text: 'Variant two',
      iso: null,
      sections: [
        {
          name: null,
          preReqPrevSection: 0,
          preReqTotal: 0,
          score: 0,
          text: '',
          questions: [
            {
              text: 'Colour?',
              hint: '',
              answer: 'red|blue',
              example: '',
              weight: 1,
              penalty: 0,
              grader: 'matchAny',
              hidden: false,
              isCorrect: false,
              isGraded: false,
            },
          ],
        },
      ],
    },
  ],
};

describe.each(testEngines())('challenge routes on %s', (engine) => {
  let server: TestServer;
  const token: Record<string, string> = {};
  let workspaceId = '';

  beforeAll(async () => {
    server = await startTestServer({ engine });
    await createAccount(server.app.store.db, {
      username: 'editor',
      name: 'Eddie Editor',
      password: SEED_PASSWORD,
    });
    await Promise.all(
      ['admin', 'creator', 'player', 'editor'].map(async (u) => {
        token[u] = (await signIn(server.url, u, SEED_PASSWORD)).accessToken;
      }),
    );
    await call('editor', 'POST', '/user/register');
    const ws = await ok(call('creator', 'POST', '/workspace', { name: 'Challenge lab' }));
    workspaceId = ws.id;
    const { code } = await ok(call('creator', 'PUT', `/workspace/${ws.id}/invite`));
    await ok(call('editor', 'POST', `/worker/${code}`));
  });
  afterAll(async () => server?.close());

  async function call(
    who: string,
    method: string,
    path: string,
    body?: unknown,
    raw?: string,
  ): Promise<Reply> {
    const headers: Record<string, string> = {};
    if (token[who]) headers.authorization = `Bearer ${token[who]}`;
    if (body !== undefined || raw !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers,
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    let parsed: Json;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, text, body: parsed };
  }

  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  const fresh = async () =>
    (await ok(call('creator', 'POST', '/workspace', { name: `Lab ${newId().slice(0, 6)}` }))).id;

  it('answers the empty spec, every field written out, for a workspace without a challenge', async () => {
    const id = await fresh();
    expect(await ok(call('creator', 'GET', `/challenge/${id}`))).toEqual(emptyChallengeSpec());
  });

  it('stores a spec with two variants, question sets, questions and transforms, and gives it back', async () => {
    const put = await call('editor', 'PUT', `/challenge/${workspaceId}`, SPEC);
    expect(put.status, put.text).toBe(200);
    expect(put.text).toBe('');
    const expected = { ...emptyChallengeSpec(), ...SPEC };
    expect(await ok(call('editor', 'GET', `/challenge/${workspaceId}`))).toEqual(expected);
    // The workspace carries the same spec as camelCase JSON text.
    const ws = await ok(call('creator', 'GET', `/workspace/${workspaceId}`));
    expect(JSON.parse(ws.challenge)).toEqual(expected);
  });

  it('normalizes on save: defaults, blank names, first-set prerequisites, graders in any case', async () => {
    const id = await fresh();
    await ok(
      call('creator', 'PUT', `/challenge/${id}`, {
        Text: 'PascalCase keys are read too',
        variants: [
          {
            sections: [
              { name: '  ', preReqTotal: 0.5, preReqPrevSection: '0.5', questions: [{}] },
              { name: 'Second', preReqTotal: '0.25', questions: [{ grader: 'MATCHANY' }] },
            ],
          },
        ],
      }),
    );
    const spec = await ok(call('creator', 'GET', `/challenge/${id}`));
    expect(spec.text).toBe('PascalCase keys are read too');
    const [first, second] = spec.variants[0].sections;
    expect(first).toMatchObject({ name: null, preReqTotal: 0, preReqPrevSection: 0 });
    expect(first.questions[0]).toEqual(
      normalizeChallengeSpec({ variants: [{ sections: [{ questions: [{}] }] }] }).variants[0]!
        .sections[0]!.questions[0],
    );
    expect(second).toMatchObject({ name: 'Second', preReqTotal: 0.25 });
    expect(second.questions[0].grader).toBe('matchAny');
  });

  it('refuses a body of the wrong shape with 400 naming the field, and keeps the stored spec', async () => {
    const cases: Array<[unknown, string]> = [
      [{ transforms: 'hex' }, 'transforms'],
      [{ variants: [{ sections: [{ questions: [{ weight: 'heavy' }] }] }] }, 'weight'],
      [{ variants: [{ sections: [{ questions: [{ grader: 'fuzzy' }] }] }] }, 'grader'],
      [[1, 2], 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await call('editor', 'PUT', `/challenge/${workspaceId}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(field === 'body' ? '' : field);
      expect(res.body.message.length).toBeGreaterThan(0);
    }
    const malformed = await call(
      'editor',
      'PUT',
      `/challenge/${workspaceId}`,
      undefined,
      '{"text":',
    );
    expect(malformed.status).toBe(400);
    const spec = await ok(call('editor', 'GET', `/challenge/${workspaceId}`));
    expect(spec.text).toBe(SPEC.text);
  });

  it('refuses a body over 1 MB', async () => {
    const res = await call('editor', 'PUT', `/challenge/${workspaceId}`, {
      text: 'x'.repeat(1024 * 1024 + 10),
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'PayloadTooLarge' });
  });

  it('lets editors and admins in; others get 403 with an empty body', async () => {
    await ok(call('admin', 'GET', `/challenge/${workspaceId}`));
    await ok(call('admin', 'PUT', `/challenge/${workspaceId}`, SPEC));
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { text: 'not mine' }],
    ] as const) {
      const res = await call('player', method, `/challenge/${workspaceId}`, body);
      expect(res.status).toBe(403);
      expect(res.text).toBe('');
    }
    expect((await ok(call('editor', 'GET', `/challenge/${workspaceId}`))).text).toBe(SPEC.text);
  });

  it('answers 400 ResourceNotFound for an unknown workspace, and 401 without a token', async () => {
    for (const method of ['GET', 'PUT'] as const) {
      const res = await call(
        'editor',
        method,
        `/challenge/${newId()}`,
        method === 'PUT' ? {} : undefined,
      );
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual({ id: ['ResourceNotFound'] });
    }
    expect((await call('nobody', 'GET', `/challenge/${workspaceId}`)).status).toBe(401);
  });

  it('copies the challenge with the workspace on clone', async () => {
    const copy = await ok(call('creator', 'POST', `/workspace/${workspaceId}/clone`));
    const spec = await ok(call('creator', 'GET', `/challenge/${copy.id}`));
    expect(spec.variants).toHaveLength(2);
  });
});

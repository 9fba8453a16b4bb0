import { createRequire } from 'node:module';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/Either';
import { PathReporter } from 'io-ts/PathReporter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDocumentationPage, OPENAPI_PATH } from '../../../server/http/openapi';
import { ChallengeSpecDto } from '../../../src/api/challenge';
import { DocumentCrdt } from '../../../src/api/document';
import { IsoUsageReport } from '../../../src/api/files';
import { Gamespace } from '../../../src/api/gamespaces';
import { ImageFile } from '../../../src/api/images';
import { ChallengeProgress, GameState, JoinCode as GameJoinCode } from '../../../src/api/play';
import { Template, TemplateSummary } from '../../../src/api/template';
import { Ticket, User } from '../../../src/api/user';
import { IsoOptions, JoinCode, Workspace, WorkspaceStats } from '../../../src/api/workspace';
import { WorkspaceSummary } from '../../../src/api/workspaces';
import { startTestServer, type TestServer } from '../harness';
import { apiKey } from '../hubClients';

// The API contract (issue 13): the OpenAPI document the server generates from its route schemas
// describes every route with its answers; the real answers of an author → play → grade run match
// the document's response schemas; and the same answers decode with the SPA's io-ts codecs, so
// the server, its description and the SPA agree.

// The validator Fastify itself compiles route schemas with (Ajv 8), not the older copy at the top
// of node_modules.
const fastifyRequire = createRequire(
  createRequire(import.meta.url).resolve('@fastify/ajv-compiler'),
);
interface Validator {
  (data: unknown): boolean;
  errors?: Array<{ instancePath: string; message?: string }> | null;
}
const Ajv = fastifyRequire('ajv') as new (options: object) => {
  compile(schema: object): Validator;
};

interface Operation {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}

// Answers are read field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Sent {
  /** `GET /api/workspace/{id}`: the document's path of the route. */
  route: string;
  status: number;
  type: string;
  text: string;
}

/** The SPA's codec of each operation's success answer (src/api). */
const CODECS: Record<string, t.Mixed> = {
  CreateWorkspace: Workspace,
  LoadWorkspace: Workspace,
  ListWorkspaces: t.array(WorkspaceSummary),
  GetWorkspaceStats: WorkspaceStats,
  GetWorkspaceInvite: JoinCode,
  GetChallengeSpec: ChallengeSpecDto,
  ListTemplates: t.array(TemplateSummary),
  LoadWorkspaceTemplates: t.array(TemplateSummary),
  LinkTemplate: Template,
  LoadTemplate: Template,
  RegisterGamespace: GameState,
  LoadGamespace: GameState,
  PreviewGamespace: GameState,
  StopGamespace: GameState,
  GradeChallenge: GameState,
  LoadGamespaceChallengeProgress: ChallengeProgress,
  ListGamespaces: t.array(Gamespace),
  GetGamespaceInvitation: GameJoinCode,
  LoadDocumentLog: DocumentCrdt,
  ListDocumentImages: t.array(ImageFile),
  LoadWorkspaceIsos: IsoOptions,
  GetIsoUsage: IsoUsageReport,
  LoadUser: User,
  GetOneTimeTicket: Ticket,
};

const CHALLENGE = {
  text: 'Find the flag.',
  transforms: [{ key: 'flag', value: 'hex:8' }],
  variants: [
    {
      text: 'The flag is ##flag##',
      sections: [
        {
          name: 'One',
          text: 'Section one',
          questions: [
            { text: 'The flag?', answer: '##flag##', weight: 60, grader: 'match' },
            { text: 'A word?', answer: 'word', weight: 40 },
          ],
        },
      ],
    },
  ],
};

describe('the API contract', () => {
  let server: TestServer;
  let doc: OpenApiDocument;
  const sent: Sent[] = [];
  const keys: Record<string, Record<string, string>> = {};

  /** A call by `who` (or nobody) to `route`, whose `{name}`s are filled from `params`. */
  async function call(
    who: string | null,
    route: string,
    params: Record<string, string> = {},
    body?: unknown,
  ): Promise<{ status: number; json: Json }> {
    const [method, path] = route.split(' ') as [string, string];
    const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => params[name] ?? '');
    const query = params.query ? `?${params.query}` : '';
    const headers: Record<string, string> = who ? { ...keys[who] } : {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${url}${query}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    sent.push({ route, status: res.status, type, text });
    return { status: res.status, json: type.includes('json') && text ? JSON.parse(text) : text };
  }

  const ok = async (reply: Promise<{ status: number; json: Json }>) => {
    const { status, json } = await reply;
    expect(status, JSON.stringify(json)).toBe(200);
    return json;
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { SIM_SPEED: '0' } });
    for (const who of ['admin', 'creator', 'player'])
      keys[who] = apiKey(await server.apiKeyFor(who));
    doc = (await (await fetch(`${server.url}${OPENAPI_PATH}`)).json()) as OpenApiDocument;

    // Author: a workspace open to everyone, its challenge and guide, a stock template linked in.
    const ws = await ok(call('creator', 'POST /api/workspace', {}, { name: 'Contract lab' }));
    const id = ws.id as string;
    await ok(
      call('creator', 'PUT /api/workspace', {}, { id, name: 'Contract lab', audience: 'everyone' }),
    );
    await ok(call('creator', 'PUT /api/challenge/{id}', { id }, CHALLENGE));
    await ok(call('creator', 'GET /api/challenge/{id}', { id }));
    await ok(call('creator', 'GET /api/document/{id}', { id }));
    await ok(call('creator', 'GET /api/document/{id}/crdt', { id }));
    await ok(call('creator', 'GET /api/images/{id}', { id }));
    await ok(call('creator', 'GET /api/workspace/{id}/isos', { id }));
    await ok(
      call('creator', 'GET /api/workspace/{id}/iso-usage', { id, query: `path=${id}/x.iso` }),
    );
    const stock = await ok(call('creator', 'GET /api/templates'));
    expect(stock.length).toBeGreaterThan(0);
    const linked = await ok(
      call('creator', 'POST /api/template', {}, { templateId: stock[0].id, workspaceId: id }),
    );
    await ok(call('creator', 'GET /api/template/{id}', { id: linked.id }));
    await ok(call('creator', 'GET /api/workspace/{id}/templates', { id }));
    await ok(call('creator', 'GET /api/workspace/{id}', { id }));
    await ok(call('creator', 'GET /api/workspace/{id}/stats', { id }));
    await ok(call('creator', 'PUT /api/workspace/{id}/invite', { id }));
    await ok(call('creator', 'GET /api/workspaces', { query: 'filter=my&doc=1' }));

    // Play: launch started, read the state and progress, answer, list.
    await ok(call('player', 'GET /api/preview/{id}', { id }));
    const game = await ok(
      call('player', 'POST /api/gamespace', {}, { resourceId: id, startGamespace: true }),
    );
    const gid = game.id as string;
    await ok(call('player', 'GET /api/gamespace/{id}', { id: gid }));
    await ok(call('player', 'GET /api/gamespace/{id}/challenge/progress', { id: gid }));
    await ok(
      call(
        'player',
        'POST /api/gamespace/grade',
        {},
        { id: gid, sectionIndex: 0, questions: [{ answer: 'nope' }, { answer: 'word' }] },
      ),
    );
    await ok(call('player', 'GET /api/gamespace/{id}/challenge/progress', { id: gid }));
    await ok(call('player', 'GET /api/gamespaces'));
    await ok(call('player', 'GET /api/players/{id}', { id: gid }));
    await ok(call('player', 'POST /api/gamespace/{id}/invite', { id: gid }));
    await ok(call('player', 'POST /api/gamespace/{id}/audit', { id: gid }));
    await ok(call('player', 'PUT /api/gamespace-favorite/{id}', { id: gid }));
    await ok(call('player', 'GET /api/gamespace-favorites'));
    await ok(call('player', 'GET /api/user'));
    await ok(call('player', 'GET /api/user/ticket'));
    await ok(call('admin', 'GET /api/gamespace/{id}/challenge', { id: gid }));
    await ok(call('player', 'POST /api/gamespace/{id}/stop', { id: gid }));

    // The errors: a domain error, validation problem details, no credential, not allowed.
    expect((await call('creator', 'GET /api/workspace/{id}', { id: 'nope' })).status).toBe(400);
    expect((await call('creator', 'POST /api/gamespace', {}, { resourceId: 5 })).status).toBe(400);
    expect((await call(null, 'GET /api/workspaces')).status).toBe(401);
    expect((await call('player', 'GET /api/workspace/{id}', { id })).status).toBe(403);
    expect(
      (await call('player', 'PUT /api/workspace-favorite/{workspaceId}', { workspaceId: 'x' }))
        .status,
    ).toBe(404);
  }, 60_000);

  afterAll(async () => server?.close());

  const operationOf = (route: string): Operation | undefined => {
    const [method, path] = route.split(' ') as [string, string];
    return doc.paths[path]?.[method.toLowerCase()];
  };

  it('describes every API route with its success and error answers', () => {
    expect(doc.openapi).toMatch(/^3\./);
    const problems: string[] = [];
    const ids = new Map<string, string>();
    for (const route of server.app.routes) {
      if (route.method === 'HEAD') continue;
      const key = `${route.method} ${route.url}`;
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      const documented = doc.paths[path]?.[route.method.toLowerCase()];
      if (!route.url.startsWith('/api/') || isDocumentationPage(route.url)) {
        // Pages, the identity provider, the hub and guide images are not the API.
        if (documented) problems.push(`${key} is not API but documented`);
        continue;
      }
      if (!documented) {
        problems.push(`${key} is missing`);
        continue;
      }
      const statuses = Object.keys(documented.responses);
      // Rate limits reach every API route; credentials and domain errors the protected ones.
      const needed = route.auth === 'anonymous' ? ['429'] : ['400', '401', '403', '429'];
      if (!statuses.some((s) => /^(2\d\d|101)$/.test(s))) problems.push(`${key}: no success`);
      for (const s of needed) if (!statuses.includes(s)) problems.push(`${key}: no ${s}`);
      const id = documented.operationId ?? '';
      if (!id) problems.push(`${key}: no operationId`);
      if (ids.has(id)) problems.push(`${key}: operationId ${id} also names ${ids.get(id)}`);
      ids.set(id, key);
      const anonymous = (documented.security ?? []).length === 0;
      if (anonymous !== (route.auth === 'anonymous')) problems.push(`${key}: security`);
    }
    expect(problems).toEqual([]);
  });

  it("names operations as the reference's clients know them", () => {
    expect(operationOf('GET /api/user/ticket')?.operationId).toBe('GetOneTimeTicket');
    expect(operationOf('POST /api/gamespace')?.operationId).toBe('RegisterGamespace');
    expect(operationOf('POST /api/gamespace/grade')?.operationId).toBe('GradeChallenge');
    expect(operationOf('GET /api/workspaces')?.operationId).toBe('ListWorkspaces');
  });

  it("answers the author → play → grade run as the document's response schemas say", () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    const problems: string[] = [];
    for (const reply of sent) {
      const response = operationOf(reply.route)?.responses[String(reply.status)];
      if (!response) {
        problems.push(`${reply.route} answered ${reply.status}, which it does not document`);
        continue;
      }
      if (!reply.text) continue;
      const content = response.content ?? {};
      const media = content[reply.type.split(';')[0]!] ?? Object.values(content)[0];
      if (!media) {
        problems.push(`${reply.route} ${reply.status}: a body where none is documented`);
        continue;
      }
      const body = reply.type.includes('json') ? JSON.parse(reply.text) : reply.text;
      const validate = ajv.compile(media.schema);
      if (!validate(body)) {
        const errors = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
        problems.push(`${reply.route} ${reply.status}: ${errors.join('; ')}`);
      }
    }
    expect(problems).toEqual([]);
    // The run covered what it claims: success and each kind of error.
    expect(new Set(sent.map((s) => s.status))).toEqual(new Set([200, 400, 401, 403, 404]));
  });

  it("decodes the same answers with the SPA's codecs", () => {
    const problems: string[] = [];
    const decoded = new Set<string>();
    for (const reply of sent) {
      const id = operationOf(reply.route)?.operationId ?? '';
      const codec = CODECS[id];
      if (reply.status !== 200 || !codec) continue;
      const result = codec.decode(JSON.parse(reply.text));
      decoded.add(id);
      if (isLeft(result)) problems.push(`${id}: ${PathReporter.report(result).join('\n')}`);
    }
    expect(problems).toEqual([]);
    expect([...decoded].sort()).toEqual(Object.keys(CODECS).sort());
  });
});

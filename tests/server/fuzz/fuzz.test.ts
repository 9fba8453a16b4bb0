import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { signIn } from '../oidc';
import { framingCases, sendRaw } from './framing';
import {
  describeRequest,
  requestArbitrary,
  send,
  type Credentials,
  type FuzzRequest,
  type KnownIds,
  type Outcome,
} from './requests';

// Thousands of malformed requests across every route of the real server (issue 12, "keep it
// closed"): random and boundary path params, query strings, bodies, content types, credentials and
// cookies, over real HTTP so that Fastify's own parsers run, with and without valid credentials so
// that handlers run too. Bad input must get a 4xx: never a 5xx, never a request left unanswered.
//
// FUZZ_RUNS (default 3000 per database engine) sets the number of requests, FUZZ_SEED replays a
// run, FUZZ_TIMEOUT_MS (default 8000) is how long a request may take. A failure prints the seed
// and, per failing route, the smallest request fast-check shrank it to.

const RUNS = Number(process.env.FUZZ_RUNS ?? 3_000);
const SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : Math.floor(Math.random() * 2 ** 31);
const TIMEOUT_MS = Number(process.env.FUZZ_TIMEOUT_MS ?? 8_000);
/** Requests in flight at once: enough to overlap the client's and the server's work. */
const CONCURRENCY = 6;
/** Failing routes shrunk and printed (each shrink sends requests one at a time). */
const SHRUNK_GROUPS = 8;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const isFailure = (outcome: Outcome) => outcome.kind !== 'answered' || outcome.status >= 500;

/** How a request failed, for grouping: `status 500`, `timeout`, `error`; null when it did not. */
const failureKind = (outcome: Outcome) =>
  !isFailure(outcome)
    ? null
    : outcome.kind === 'answered'
      ? `status ${outcome.status}`
      : outcome.kind;

const outcomeText = (outcome: Outcome) =>
  outcome.kind === 'answered'
    ? `${outcome.status} ${outcome.body.slice(0, 120)}`
    : outcome.kind === 'timeout'
      ? `no answer within ${outcome.ms} ms`
      : `connection failed: ${outcome.message}`;

/** Runs `work` over `items` with at most `limit` at once, in order of start. */
async function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe.each(testEngines())('fuzzing every route on %s', (engine) => {
  let server: TestServer;
  let spaDir = '';
  let credentials: Credentials;
  let ids: KnownIds;

  const api = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text}`).toBe(200);
    return (text ? JSON.parse(text) : null) as Json;
  };

  beforeAll(async () => {
    // A stand-in SPA, so that page routes answer the page rather than "not built" (503).
    spaDir = mkdtempSync(join(tmpdir(), 'topoplay-fuzz-spa-'));
    writeFileSync(join(spaDir, 'index.html'), '<!doctype html><title>spa</title>');
    server = await startTestServer({ engine, env: { SIM_SPEED: '0', TOPOPLAY_SPA: spaDir } });
    const admin = (await signIn(server.url, 'admin', SEED_PASSWORD)).accessToken;
    const player = (await signIn(server.url, 'player', SEED_PASSWORD)).accessToken;

    // Real resources for the path params: a workspace with a machine and a challenge, and the
    // player's started gamespace with its machine.
    const workspace = await api(admin, 'POST', '/workspace', {
      name: 'Fuzz Lab',
      audience: 'everyone',
    });
    await api(admin, 'PUT', `/challenge/${workspace.id}`, {
      text: 'Find it.',
      variants: [
        {
          text: 'One',
          sections: [{ name: 'S', questions: [{ text: 'Q?', answer: 'a', weight: 1 }] }],
        },
      ],
    });
    const stock = (await api(admin, 'GET', '/templates?term=linux-server')) as Json[];
    const stockTemplate = stock.find((t) => t.name === 'linux-server')!;
    const template = await api(admin, 'POST', '/template', {
      templateId: stockTemplate.id,
      workspaceId: workspace.id,
    });
    const graderKey = 'fuzz-grader-key-0123456789';
    const game = await api(player, 'POST', '/gamespace', {
      resourceId: workspace.id,
      startGamespace: true,
      graderKey,
    });
    const vms = (await api(admin, 'GET', `/vms?filter=${game.id}`)) as Json[];
    ids = {
      workspaceId: workspace.id,
      gamespaceId: game.id,
      templateId: template.id,
      stockTemplateId: stockTemplate.id,
      vmId: vms[0]?.id ?? game.id,
      playerId: await server.userId('player'),
      adminId: await server.userId('admin'),
    };
    credentials = {
      playerToken: player,
      adminToken: admin,
      playerApiKey: await server.apiKeyFor('player'),
      graderKey,
    };
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    if (spaDir) rmSync(spaDir, { recursive: true, force: true });
  });

  it('answers every malformed request on every route with less than 500, in time', async () => {
    const routes = server.app.routes;
    expect(routes.length).toBeGreaterThan(100);
    const arbitrary = requestArbitrary(routes, ids);
    const requests = fc.sample(arbitrary, { seed: SEED, numRuns: RUNS });
    const started = performance.now();
    const outcomes = await pool(requests, CONCURRENCY, (r) =>
      send(server.url, r, credentials, TIMEOUT_MS),
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const statuses = new Map<string, number>();
    for (const o of outcomes) {
      const key = o.kind === 'answered' ? String(o.status) : o.kind;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    }
    const covered = new Set(requests.map((r) => `${r.route.method} ${r.route.url}`)).size;
    console.log(
      `fuzz on ${engine}: seed ${SEED}, ${RUNS} requests over ${covered}/${routes.length} routes ` +
        `in ${seconds} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );

    // Failures grouped by route and kind; the first of each group is shrunk by fast-check,
    // replayed from the same seed at its index so that it shrinks with its full context.
    const groups = new Map<string, number[]>();
    outcomes.forEach((o, index) => {
      if (!isFailure(o)) return;
      const r = requests[index]!;
      const key = `${r.route.method} ${r.route.url}: ${failureKind(o)}`;
      groups.set(key, [...(groups.get(key) ?? []), index]);
    });
    const reports: string[] = [];
    for (const [key, indexes] of [...groups].slice(0, SHRUNK_GROUPS)) {
      const first = indexes[0]!;
      const shrunk = await shrink(arbitrary, first, requests[first]!, outcomes[first]!);
      const shown = shrunk ?? { request: requests[first]!, outcome: outcomes[first]! };
      reports.push(
        `${key} (${indexes.length}x; replay: FUZZ_SEED=${SEED}, index ${first})\n` +
          `${describeRequest(shown.request)}\n  answer: ${outcomeText(shown.outcome)}`,
      );
    }
    if (groups.size > SHRUNK_GROUPS) {
      reports.push(`...and ${groups.size - SHRUNK_GROUPS} more failing route groups:`);
      reports.push(...[...groups.keys()].slice(SHRUNK_GROUPS));
    }
    if (reports.length) console.log(reports.join('\n\n'));
    expect(reports, `fuzz seed ${SEED}`).toEqual([]);
  }, 300_000);

  /**
   * The smallest request fast-check finds from run `index` of the seed that still fails the same
   * way on the same route (so that the group's own cause is shown), if it fails again at all.
   */
  async function shrink(
    arbitrary: fc.Arbitrary<FuzzRequest>,
    index: number,
    original: FuzzRequest,
    failure: Outcome,
  ): Promise<{ request: FuzzRequest; outcome: Outcome } | null> {
    const same = (request: FuzzRequest, outcome: Outcome) =>
      request.route === original.route && failureKind(outcome) === failureKind(failure);
    const found: Array<{ request: FuzzRequest; outcome: Outcome }> = [];
    const details = await fc.check(
      fc.asyncProperty(arbitrary, async (request) => {
        const outcome = await send(server.url, request, credentials, TIMEOUT_MS);
        if (!same(request, outcome)) return true;
        found.push({ request, outcome });
        return false;
      }),
      // A hang costs a whole timeout per try: the shrink stops after a bounded time and keeps
      // the smallest failure found so far.
      { seed: SEED, path: String(index), numRuns: 1, interruptAfterTimeLimit: 30_000 },
    );
    if (!details.failed) return null;
    return found.at(-1) ?? null;
  }

  it('answers malformed HTTP framing with a 4xx or a closed connection, never a 5xx or a hang', async () => {
    const results = await pool(framingCases(credentials.playerToken), CONCURRENCY, async (c) => ({
      name: c.name,
      ...(await sendRaw(server.url, c.bytes, TIMEOUT_MS)),
    }));
    const bad = results.filter(
      (r) => r.kind === 'timeout' || (r.status !== null && r.status >= 500),
    );
    expect(bad, JSON.stringify(results, null, 1)).toEqual([]);
  }, 120_000);

  it('still answers a normal request after all that', async () => {
    const res = await fetch(`${server.url}/api/user`, {
      headers: { authorization: `Bearer ${credentials.playerToken}` },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).id).toBe(ids.playerId);
  });
});

import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../databases';
import { startTestServer, type TestServer } from '../harness';
import { ACTORS, buildWorld, type ActorKind, type Req, type World } from './fixtures';
import { runChannelMatrix, type ChannelCheck } from './hubPolicy';
import { POLICY, type Case, type PolicyRow, type Target } from './policy';

// The authorization matrix (issue 12): every route the server registers (its route table, read
// from the running server) × every actor kind, against the written policy in policy.ts. A route
// without a row fails, so a new route fails here until the policy says who may call it. Allowed
// means a 2xx answer (101 for a WebSocket); refused means 401 or 403, and 401 for anonymous
// callers of protected routes. Destructive routes: refused actors try the shared fixture, which
// must stay as it was; each allowed actor acts on a throwaway resource of its own.
// AUTHZ_REPORT=<file> writes every cell of the matrix there (tab-separated).

type Verdict = 'ok' | 'unexpectedAllow' | 'failedAllow' | 'wrongDenial' | 'unexpectedStatus';

interface Check {
  route: string;
  caseName?: string;
  actor: ActorKind;
  /** 'fixed': an anonymous endpoint whose answer is the same for every caller. */
  expected: 'allow' | 'deny' | 'fixed';
  status: number;
  verdict: Verdict;
  body: string;
  /** What the answer showed that it must not, or lacks that it must (so the check has teeth). */
  secret: string | null;
}

interface Matrix {
  checks: Check[];
  /** Destructive cases whose refusals changed the shared fixture. */
  changed: string[];
}

const isSuccess = (status: number) => (status >= 200 && status < 300) || status === 101;

function verdictOf(row: PolicyRow, c: Case, actor: ActorKind, status: number): Verdict {
  if (c.everyone) return c.everyone.includes(status) ? 'ok' : 'unexpectedStatus';
  if (c.allow.includes(actor)) return isSuccess(status) ? 'ok' : 'failedAllow';
  if (isSuccess(status)) return 'unexpectedAllow';
  const refusals = actor === 'anonymous' && !row.anonymous ? [401] : (c.deny ?? [401, 403]);
  return refusals.includes(status) ? 'ok' : 'wrongDenial';
}

async function runCheck(
  w: World,
  row: PolicyRow,
  c: Case,
  actor: ActorKind,
  target: Target,
  head: boolean,
): Promise<Check> {
  const built = await c.request(w, target);
  // A HEAD twin is not a WebSocket upgrade: it must find nothing there.
  const headOfSocket = head && built.ws;
  const req: Req = head ? { ...built, method: 'HEAD', ws: false } : built;
  const reply = await w.send(req, await w.credentials(actor, target.game));
  const effective: Case = headOfSocket ? { ...c, everyone: [404] } : c;
  const verdict = verdictOf(row, effective, actor, reply.status);
  let secret: string | null = null;
  if (isSuccess(reply.status) && !head) {
    if (c.secret) {
      const { what, value, seenBy, either } = c.secret;
      const shown = reply.body.includes(value(w));
      if (seenBy.includes(actor) && !shown) secret = `does not show ${what}`;
      if (shown && !seenBy.includes(actor) && !either?.includes(actor)) secret = `leaks ${what}`;
    }
    // Rule 3: G's grader key is in no answer but an admin's.
    if (actor !== 'admin' && reply.body.includes(w.G.graderKey)) secret = "leaks G's grader key";
  }
  return {
    route: `${head ? 'HEAD' : row.method} ${row.url}`,
    caseName: c.name,
    actor,
    expected: effective.everyone ? 'fixed' : c.allow.includes(actor) ? 'allow' : 'deny',
    status: reply.status,
    verdict,
    body: reply.body.slice(0, 120),
    secret,
  };
}

async function runMatrix(w: World): Promise<Matrix> {
  const checks: Check[] = [];
  const changed: string[] = [];
  const shared = (c: Case): Target => c.shared?.(w) ?? { game: w.G, id: w.G.id };
  // Destructive cases last: a refusal that wrongly went through damages only what follows it.
  const cases = POLICY.flatMap((row) => row.cases.map((c) => ({ row, c })));
  const ordered = [...cases.filter((x) => !x.c.fresh), ...cases.filter((x) => x.c.fresh)];
  for (const { row, c } of ordered) {
    const actors = ACTORS.filter((a) => !c.unchecked?.includes(a));
    if (!c.fresh) {
      for (const head of row.method === 'GET' ? [false, true] : [false]) {
        for (const actor of actors) checks.push(await runCheck(w, row, c, actor, shared(c), head));
      }
      continue;
    }
    const refused = actors.filter((a) => !c.allow.includes(a));
    for (const actor of refused) checks.push(await runCheck(w, row, c, actor, shared(c), false));
    const why = await c.intact?.(w);
    if (why) changed.push(`${row.method} ${row.url}${c.name ? ` [${c.name}]` : ''}: ${why}`);
    for (const actor of actors.filter((a) => c.allow.includes(a))) {
      checks.push(await runCheck(w, row, c, actor, await c.fresh(w), false));
    }
  }
  return { checks, changed };
}

const describeCheck = (c: Check) =>
  `${c.route}${c.caseName ? ` [${c.caseName}]` : ''} × ${c.actor} → ${c.status}` +
  (c.secret ? ` (${c.secret})` : c.verdict === 'ok' ? '' : ` ${c.body}`);

const report = (checks: Check[]) => checks.map(describeCheck).join('\n');

/** Every cell, for reading the whole matrix (AUTHZ_REPORT=file). */
const tsv = (checks: Check[]) =>
  checks
    .map((c) => [c.route, c.caseName ?? '', c.actor, c.expected, c.status, c.verdict].join('\t'))
    .join('\n');

const keyOf = (method: string, url: string) => `${method} ${url}`;

describe.each(testEngines())('authorization matrix on %s', (engine) => {
  let server: TestServer;
  let matrix: Matrix;
  let channels: ChannelCheck[];

  beforeAll(async () => {
    // Simulated tasks complete at once: G's machines are there when its launch answers. The
    // abuse limits are off: thousands of requests from one address are what the matrix is.
    server = await startTestServer({
      engine,
      env: {
        SIM_SPEED: '0',
        RATE_LIMIT_ANONYMOUS: '0',
        RATE_LIMIT_CREDENTIALS: '0',
        // GET /metrics exists only with a token.
        METRICS_TOKEN: 'authz-matrix-metrics-token',
      },
    });
    const world = await buildWorld(server);
    matrix = await runMatrix(world);
    channels = await runChannelMatrix(world);
    const { checks } = matrix;
    const count = (verdict: Verdict) => checks.filter((c) => c.verdict === verdict).length;
    const expected = (e: Check['expected']) => checks.filter((c) => c.expected === e).length;
    const rows = new Set(checks.map((c) => c.route)).size;
    console.log(
      `authz matrix (${engine}): ${server.app.routes.length} routes, ${rows} checked with HEAD ` +
        `twins × ${ACTORS.length} actors = ${checks.length} checks ` +
        `(${expected('allow')} allows, ${expected('deny')} denies, ${expected('fixed')} fixed); ` +
        `${count('unexpectedAllow')} unexpected allows, ${count('failedAllow')} failed allows, ` +
        `${count('wrongDenial') + count('unexpectedStatus')} other statuses, ` +
        `${checks.filter((c) => c.secret).length} leaks or missing secrets, ` +
        `${matrix.changed.length} changed by refusals`,
    );
    if (process.env.AUTHZ_REPORT) writeFileSync(process.env.AUTHZ_REPORT, tsv(checks));
    const failing = checks.filter((c) => c.verdict !== 'ok' || c.secret);
    if (failing.length) console.log(report(failing));
    if (matrix.changed.length) console.log(`changed by refusals:\n${matrix.changed.join('\n')}`);
  }, 300_000);

  afterAll(async () => server?.close());

  it('has a policy row for every route of the server, and a route for every row', () => {
    const served = new Set(server.app.routes.map((r) => keyOf(r.method, r.url)));
    const written = new Set(POLICY.map((r) => keyOf(r.method, r.url)));
    const missing = server.app.routes
      .filter((r) => !written.has(keyOf(r.method, r.url)))
      // A HEAD twin is checked with its GET row.
      .filter((r) => !(r.method === 'HEAD' && written.has(keyOf('GET', r.url))))
      .map((r) => keyOf(r.method, r.url));
    const extra = [...written].filter((key) => !served.has(key));
    expect(missing, 'routes without a policy row').toEqual([]);
    expect(extra, 'policy rows without a route').toEqual([]);
    expect(written.size, 'one row per route').toBe(POLICY.length);
  });

  it('leaves only the routes the policy calls anonymous unauthenticated', () => {
    const anonymous = new Set(POLICY.filter((r) => r.anonymous).map((r) => keyOf(r.method, r.url)));
    const mismatched = server.app.routes
      .filter((r) => r.method !== 'HEAD')
      .filter((r) => (r.auth === 'anonymous') !== anonymous.has(keyOf(r.method, r.url)))
      .map((r) => `${keyOf(r.method, r.url)} is ${r.auth}`);
    expect(mismatched).toEqual([]);
  });

  it('allows no actor the policy refuses', () => {
    const offending = matrix.checks.filter((c) => c.verdict === 'unexpectedAllow');
    expect(offending.length, `unexpected allows:\n${report(offending)}`).toBe(0);
  });

  it('lets through every actor the policy allows (the fixture is real)', () => {
    const failed = matrix.checks.filter((c) => c.verdict === 'failedAllow');
    expect(failed.length, `refused though allowed:\n${report(failed)}`).toBe(0);
  });

  it('refuses with 401 or 403, anonymous callers of protected routes with 401', () => {
    const other = matrix.checks.filter(
      (c) => c.verdict === 'wrongDenial' || c.verdict === 'unexpectedStatus',
    );
    expect(other.length, `other statuses:\n${report(other)}`).toBe(0);
  });

  it('lets only the actors the channel policy names listen on each hub channel', () => {
    const wrong = channels.filter((c) => c.allowed !== c.listened);
    const line = (c: ChannelCheck) =>
      `${c.channel} × ${c.actor}: ${c.listened ? 'listened' : `refused (${c.error})`}`;
    expect(wrong.length, `hub channels:\n${wrong.map(line).join('\n')}`).toBe(0);
    // A refusal is the hub's own, not a failure of the check.
    const odd = channels.filter(
      (c) => !c.listened && !/ActionForbidden|no hub ticket/.test(c.error),
    );
    expect(odd.map(line)).toEqual([]);
  });

  it('gives away nothing an actor may not see, and refusals change nothing', () => {
    const secrets = matrix.checks.filter((c) => c.secret);
    expect(secrets.length, `secrets:\n${report(secrets)}`).toBe(0);
    expect(matrix.changed).toEqual([]);
  });
});

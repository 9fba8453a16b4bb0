import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import type { RouteEntry } from '../../../server/app';

// Malformed requests as a model (what to send) and its sender (real HTTP through Node's client,
// so the server's own parsers run). A model stays small and printable: big payloads are described
// (`{ kind: 'huge', bytes }`) and only built when sent, so a shrunk counterexample reads well.

/** Credentials a fuzz request may carry; the valid ones come from signed-in accounts. */
export interface Credentials {
  playerToken: string;
  adminToken: string;
  playerApiKey: string;
  graderKey: string;
}

/** Ids of real resources, so that handlers get past "not found" now and then. */
export interface KnownIds {
  workspaceId: string;
  gamespaceId: string;
  templateId: string;
  stockTemplateId: string;
  vmId: string;
  playerId: string;
  adminId: string;
}

export type AuthSpec =
  | 'none'
  | 'playerBearer'
  | 'adminBearer'
  | 'playerApiKey'
  | 'graderKey'
  | 'garbageBearer'
  | 'forgedJwt'
  | 'basic'
  | 'bareScheme'
  | 'garbageApiKey'
  | 'garbageTicket'
  | 'hugeBearer';

export type BodySpec =
  | { kind: 'none' }
  /** A JSON content type and no bytes at all. */
  | { kind: 'emptyJson' }
  | { kind: 'json'; value: unknown }
  /** JSON text cut short at `cut` characters. */
  | { kind: 'truncated'; value: unknown; cut: number }
  /** `[[[[...` or `{"a":{"a":...` nested `depth` times, closed. */
  | { kind: 'deep'; depth: number; open: 'array' | 'object' }
  /** One JSON string of `bytes` characters. */
  | { kind: 'huge'; bytes: number }
  /** Any text under any content type (including none and nonsense ones). */
  | { kind: 'typed'; contentType: string | null; text: string }
  | {
      kind: 'multipart';
      /** The boundary named in the content type (null: no boundary parameter). */
      declared: string | null;
      /** The boundary the body is written with. */
      used: string;
      parts: Array<{ disposition: string; contentType: string | null; content: string }>;
      /** Whether the closing `--boundary--` is written. */
      closed: boolean;
    };

export interface FuzzRequest {
  route: RouteEntry;
  /** Values for the route's `:params` and `*`, in order. */
  params: string[];
  /** Send params as they are (only the bytes Node refuses to send are escaped). */
  rawPath: boolean;
  /** The request target in absolute form (`GET http://host/api/...`), as sent to proxies. */
  absoluteForm: boolean;
  query: Array<[string, string]>;
  rawQuery: boolean;
  body: BodySpec;
  auth: AuthSpec;
  cookie: string | null;
}

/** Path segments that have broken routers, decoders and file lookups elsewhere. */
const SPECIAL_SEGMENTS = [
  '..',
  '.',
  '...',
  '%',
  '%%',
  '%E0%A4%A',
  '%zz',
  '%00',
  '%2e%2e',
  '..%2F..%2Fetc%2Fpasswd',
  '..\\..\\windows',
  'name#tag',
  'a?b=c',
  ' ',
  '',
  '-1',
  '0',
  '1e309',
  'NaN',
  '99999999999999999999',
  'null',
  'undefined',
  '[object Object]',
  '__proto__',
  'constructor',
  '00000000-0000-0000-0000-000000000000',
  '😀🔥',
  'é',
  '\u202e',
];

/** Query values that have broken number parsing, decoding and database bounds elsewhere. */
const SPECIAL_VALUES = [
  '',
  '0',
  '-1',
  '-0',
  '1.5',
  '1e309',
  'NaN',
  'Infinity',
  '99999999999999999999',
  '9007199254740993',
  '-99999999999999999999',
  'true',
  'null',
  'undefined',
  '%',
  '%E0%A4%A',
  '%zz',
  'a&b=c',
  '[]',
  '{}',
  '😀',
  "'; drop table users; --",
];

const QUERY_KEYS = [
  'skip',
  'take',
  'term',
  'filter',
  'sort',
  'doc',
  'id',
  'local',
  'refresh',
  'path',
  'filename',
  'code',
  'key',
  'ticket',
  'access_token',
  'skip[]',
  'take[0]',
  'filter[]',
  '__proto__',
  'constructor[prototype][x]',
];

/** Body fields the routes read (from the wire schemas), to be given the wrong types. */
const FIELDS = [
  'id',
  'name',
  'description',
  'tags',
  'author',
  'audience',
  'workspaceId',
  'templateId',
  'resourceId',
  'gamespaceId',
  'subjectId',
  'subjectName',
  'players',
  'questions',
  'answer',
  'sectionIndex',
  'maxAttempts',
  'maxPoints',
  'points',
  'variant',
  'variants',
  'sections',
  'transforms',
  'durationMinutes',
  'startGamespace',
  'graderKey',
  'graderUrl',
  'text',
  'iso',
  'key',
  'value',
  'detail',
  'networks',
  'guestinfo',
  'replicas',
  'isHidden',
  'isPublished',
  'templateLimit',
  'skip',
  'take',
  'term',
  'filter',
  '__proto__',
  'constructor',
];

const ODD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0.5,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  '0',
  'null',
  '99999999999999999999',
  '%E0%A4%A',
  [],
  {},
  [null],
  { $gt: '' },
  'x'.repeat(5_000),
];

const CONTENT_TYPES = [
  null,
  'application/json',
  'application/json; charset=utf-999',
  'application/json-patch+json',
  'text/plain',
  'text/html',
  'application/xml',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'image/png',
  '*/*',
  'nonsense',
  ';;;',
];

const COOKIES = [
  'topomojo.mks=%E0%A4%A',
  'topomojo.mks=%',
  'topomojo.mks=',
  'topomojo.mks="unterminated',
  'topomojo.mks=a; topomojo.mks=b',
  `topomojo.mks=${'a'.repeat(4_000)}`,
  '=; ; =x; topomojo.mks',
  '__proto__=x',
];

const DISPOSITIONS = [
  'form-data; name="file"; filename="a.png"',
  'form-data; name="file"; filename="a.iso"',
  'form-data; name="meta"',
  'form-data; name="file"; filename="../../etc/passwd"',
  'form-data; name="file"; filename=""',
  'form-data',
  'attachment; filename="a.png"',
  'inline',
  '',
  'form-data; name=',
  `form-data; name="${'n'.repeat(2_000)}"`,
];

export function requestArbitrary(routes: RouteEntry[], ids: KnownIds): fc.Arbitrary<FuzzRequest> {
  const known = Object.values(ids);
  const segment = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_SEGMENTS) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.constantFrom('a'.repeat(10_000), '%41'.repeat(3_000)) },
  );
  const queryValue = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_VALUES) },
    { weight: 1, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: fc.constant('9'.repeat(400)) },
  );
  const queryKey = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...QUERY_KEYS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  );
  const oddValue = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ODD_VALUES) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom(...known) },
  );
  const json = fc.oneof(
    { weight: 3, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), oddValue, { maxKeys: 6 }) },
    { weight: 1, arbitrary: fc.array(fc.dictionary(fc.constantFrom(...FIELDS), oddValue)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  );
  // Past the stream buffers: a part nobody reads then stalls the upload unless it is drained.
  const bigPart = fc.constant('x'.repeat(300_000));
  const multipartOf = (bigWeight: number) =>
    fc.record({
      kind: fc.constant('multipart' as const),
      declared: fc.option(fc.constantFrom('b0undary', 'other', '', 'a'.repeat(200)), {
        freq: 5,
      }),
      used: fc.constantFrom('b0undary', 'other'),
      parts: fc.array(
        fc.record({
          disposition: fc.constantFrom(...DISPOSITIONS),
          contentType: fc.option(fc.constantFrom('image/png', 'text/plain', 'x'), { freq: 2 }),
          content: fc.oneof(
            {
              weight: 4,
              arbitrary: fc.constantFrom(
                '\x89PNG\r\n\x1a\n\0\0\0\rIHDR',
                `size=10&group-key=${ids.workspaceId}&name=a.iso`,
                'size=-1&group-key=00000000-0000-0000-0000-000000000000&name=../a',
                '',
              ),
            },
            { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
            { weight: bigWeight, arbitrary: bigPart },
          ),
        }),
        { maxLength: 3 },
      ),
      closed: fc.boolean(),
    });
  const multipart = multipartOf(1);
  const body: fc.Arbitrary<BodySpec> = fc.oneof(
    { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'emptyJson' as const }) },
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('json' as const), value: json }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('truncated' as const),
        value: json,
        cut: fc.nat({ max: 60 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('deep' as const),
        depth: fc.constantFrom(64, 500, 5_000, 100_000),
        open: fc.constantFrom('array' as const, 'object' as const),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('huge' as const),
        bytes: fc.constantFrom(100_000, 1_100_000, 11 * 1024 * 1024),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('typed' as const),
        contentType: fc.constantFrom(...CONTENT_TYPES),
        text: fc.oneof(
          fc.string({ unit: 'binary', maxLength: 60 }),
          json.map((v) => JSON.stringify(v) ?? ''),
          fc.constantFrom('a=1&b=2', '<x/>', '--x\r\n\r\n--x--'),
        ),
      }),
    },
    { weight: 2, arbitrary: multipart },
  );
  const anyRoute: fc.Arbitrary<FuzzRequest> = fc.record({
    route: fc.constantFrom(...routes),
    params: fc.array(segment, { minLength: 3, maxLength: 3 }),
    rawPath: fc.boolean(),
    absoluteForm: fc.oneof(
      { weight: 5, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(true) },
    ),
    query: fc.array(fc.tuple(queryKey, queryValue), { maxLength: 4 }),
    rawQuery: fc.boolean(),
    body,
    auth: fc.constantFrom<AuthSpec>(
      'none',
      'playerBearer',
      'adminBearer',
      'playerApiKey',
      'graderKey',
      'garbageBearer',
      'forgedJwt',
      'basic',
      'bareScheme',
      'garbageApiKey',
      'garbageTicket',
      'hugeBearer',
    ),
    cookie: fc.option(
      fc.oneof(
        fc.constantFrom(...COOKIES),
        fc.string({ maxLength: 30 }).map((s) => `a=${s}`),
      ),
      { freq: 4 },
    ),
  });
  // Uploads read their body as a stream of parts, past the JSON parser: malformed multipart
  // bodies on them, as a caller allowed to upload (otherwise only the 401/403 path runs).
  const uploads = routes.filter((r) => r.method === 'POST' && UPLOAD_ROUTES.includes(r.url));
  const upload: fc.Arbitrary<FuzzRequest> = fc.record({
    route: fc.constantFrom(...uploads),
    params: fc.constant<string[]>([ids.workspaceId]),
    rawPath: fc.constant(false),
    absoluteForm: fc.constant(false),
    query: fc.constant<Array<[string, string]>>([]),
    rawQuery: fc.constant(false),
    body: multipartOf(4),
    auth: fc.constantFrom<AuthSpec>('adminBearer', 'playerBearer'),
    cookie: fc.constant(null),
  });
  return uploads.length
    ? fc.oneof({ weight: 15, arbitrary: anyRoute }, { weight: 1, arbitrary: upload })
    : anyRoute;
}

const UPLOAD_ROUTES = ['/api/file/upload', '/api/image/:id'];

/**
 * A string as it goes into a request target: encoded as a client would, or raw with only the
 * bytes Node's client refuses (outside U+0021..U+00FF) percent-encoded.
 */
function inTarget(value: string, raw: boolean): string {
  if (!raw) return encodeURIComponent(value);
  // One code point at a time (a lone surrogate as itself), without splitting the string.
  return value.replace(OUTSIDE_TARGET, (c) => encodeURIComponent(c));
}

const OUTSIDE_TARGET = /[^\u0021-\u00ff]/gu;

export function pathOf(request: FuzzRequest): string {
  let n = 0;
  const next = () => inTarget(request.params[n++ % request.params.length] ?? '', request.rawPath);
  const path = request.route.url.replace(/:[A-Za-z]+|\*/g, () => next());
  const query = request.query
    .map(([k, v]) => `${inTarget(k, request.rawQuery)}=${inTarget(v, request.rawQuery)}`)
    .join('&');
  return query ? `${path}?${query}` : path;
}

function authHeaders(auth: AuthSpec, credentials: Credentials): Record<string, string> {
  switch (auth) {
    case 'none':
      return {};
    case 'playerBearer':
      return { authorization: `Bearer ${credentials.playerToken}` };
    case 'adminBearer':
      return { authorization: `Bearer ${credentials.adminToken}` };
    case 'playerApiKey':
      return { 'x-api-key': credentials.playerApiKey };
    case 'graderKey':
      return { 'x-api-key': credentials.graderKey };
    case 'garbageBearer':
      return { authorization: 'Bearer not-a-token' };
    case 'forgedJwt':
      // A well-formed token signed by nobody: header {"alg":"none"} and an admin's claims.
      return {
        authorization:
          'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiIsInJvbGUiOiJhZG1pbmlzdHJhdG9yIn0.',
      };
    case 'basic':
      return { authorization: 'Basic YWRtaW46YWRtaW4=' };
    case 'bareScheme':
      return { authorization: 'Bearer' };
    case 'garbageApiKey':
      return { 'x-api-key': '%E0%A4%A' };
    case 'garbageTicket':
      return { authorization: 'Ticket ../../x#admin' };
    case 'hugeBearer':
      return { authorization: `Bearer ${'a'.repeat(8_000)}` };
  }
}

function jsonText(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/**
 * The big bodies (up to 11 MiB), made once and sent as often as they are drawn: only read once
 * made, so requests in flight together share them.
 */
const keptBodies = new Map<string, Buffer>();
function kept(key: string, make: () => Buffer): Buffer {
  let bytes = keptBodies.get(key);
  if (!bytes) keptBodies.set(key, (bytes = make()));
  return bytes;
}

function bodyOf(spec: BodySpec): { contentType: string | null; bytes: Buffer | null } {
  switch (spec.kind) {
    case 'none':
      return { contentType: null, bytes: null };
    case 'emptyJson':
      return { contentType: 'application/json', bytes: Buffer.alloc(0) };
    case 'json':
      return { contentType: 'application/json', bytes: Buffer.from(jsonText(spec.value)) };
    case 'truncated': {
      const text = jsonText(spec.value);
      return {
        contentType: 'application/json',
        bytes: Buffer.from(text.slice(0, Math.min(spec.cut, Math.max(0, text.length - 1)))),
      };
    }
    case 'deep':
      return {
        contentType: 'application/json',
        bytes: kept(`deep ${spec.open} ${spec.depth}`, () => {
          const [open, close] = spec.open === 'array' ? ['[', ']'] : ['{"a":', '}'];
          return Buffer.from(`${open.repeat(spec.depth)}1${close.repeat(spec.depth)}`);
        }),
      };
    case 'huge':
      return {
        contentType: 'application/json',
        bytes: kept(`huge ${spec.bytes}`, () => {
          const bytes = Buffer.alloc(spec.bytes + 2, 'a');
          bytes[0] = 0x22;
          bytes[bytes.length - 1] = 0x22;
          return bytes;
        }),
      };
    case 'typed':
      return { contentType: spec.contentType, bytes: Buffer.from(spec.text, 'latin1') };
    case 'multipart': {
      const text =
        spec.parts
          .map(
            (p) =>
              `--${spec.used}\r\nContent-Disposition: ${p.disposition}\r\n` +
              (p.contentType ? `Content-Type: ${p.contentType}\r\n` : '') +
              `\r\n${p.content}\r\n`,
          )
          .join('') + (spec.closed ? `--${spec.used}--\r\n` : '');
      return {
        contentType:
          spec.declared === null
            ? 'multipart/form-data'
            : `multipart/form-data; boundary=${spec.declared}`,
        bytes: Buffer.from(text, 'latin1'),
      };
    }
  }
}

export type Outcome =
  | { kind: 'answered'; status: number; body: string; ms: number }
  | { kind: 'timeout'; ms: number }
  | { kind: 'error'; message: string; ms: number };

/** One request over its own connection; never rejects. */
export function send(
  baseUrl: string,
  request: FuzzRequest,
  credentials: Credentials,
  timeoutMs: number,
): Promise<Outcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { contentType, bytes } = bodyOf(request.body);
  const headers: Record<string, string | number> = authHeaders(request.auth, credentials);
  if (request.cookie !== null) headers.cookie = request.cookie;
  if (contentType !== null) headers['content-type'] = contentType;
  if (bytes !== null) headers['content-length'] = bytes.length;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    // A connection of its own (agent: false): a pooled socket the server closed between two
    // requests would fail the next one, which says nothing about the server.
    // Host, port and path apart: a URL string would be normalised (`..` resolved, bytes
    // escaped) before it left, and the server would never see the malformed target.
    const { hostname, port } = new URL(baseUrl);
    const req = httpRequest({
      host: hostname,
      port,
      path: `${request.absoluteForm ? baseUrl : ''}${pathOf(request)}`,
      method: request.route.method,
      headers,
      agent: false,
    });
    const timer = setTimeout(() => {
      finish({ kind: 'timeout', ms: elapsed() });
      req.destroy();
    }, timeoutMs);
    let status: number | null = null;
    const chunks: Buffer[] = [];
    const answered = () =>
      finish({
        kind: 'answered',
        status: status ?? 0,
        body: Buffer.concat(chunks).toString('utf8').slice(0, 2_000),
        ms: elapsed(),
      });
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < 2_000) chunks.push(chunk);
        kept += chunk.length;
      });
      res.on('end', answered);
      res.on('error', answered);
      res.on('close', answered);
    });
    // The status is what counts: an error after it (a connection cut while the body streams,
    // or bytes after a HEAD answer, which Fastify's client-error reply sends) still answered.
    req.on('error', (error) =>
      status === null
        ? finish({ kind: 'error', message: error.message, ms: elapsed() })
        : answered(),
    );
    // The server may answer (413, 400) before reading a big body and close the connection;
    // the response then still arrives, and the write error is not the outcome.
    if (bytes !== null) req.write(bytes, () => {});
    req.end();
  });
}

/** A request as a reader wants to see it: big payloads summarised, long strings cut. */
export function describeRequest(request: FuzzRequest): string {
  const cut = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n)}…(${s.length})` : s);
  const body =
    request.body.kind === 'none'
      ? 'no body'
      : cut(
          JSON.stringify(request.body, (_k, v: unknown) =>
            typeof v === 'string' && v.length > 80 ? `${v.slice(0, 80)}…(${v.length})` : v,
          ),
          400,
        );
  return [
    `${request.route.method} ${request.absoluteForm ? 'http://host' : ''}${cut(pathOf(request))}`,
    `  route ${request.route.url} (${request.route.auth}), auth ${request.auth}` +
      (request.cookie === null ? '' : `, cookie ${JSON.stringify(cut(request.cookie, 60))}`),
    `  body ${body}`,
  ].join('\n');
}

import { randomBytes, scryptSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import WebSocket from 'ws';
import { ROLE_NUMBERS, type RoleName } from '../../../server/core/roles';
import { EMPTY_GUID, newId, newToken } from '../../../server/core/ids';
import { TICKET_TTL_MS } from '../../../server/auth/authenticate';
import { ticketKey } from '../../../server/core/tickets';
import { LAUNCH_TICKET_MS } from '../../../server/core/play/context';
import { ISO_SIGNATURE, ISO_SIGNATURE_OFFSET } from '../../../server/core/isos';
import { toVmTemplate } from '../../../server/core/templates';
import { PERMISSION } from '../../../server/core/workspaces';
import { CSRF_HEADER } from '../../../server/http/security';
import { gamespaceSpec, insertGamespace } from '../gradingFixtures';
import { SEED_PASSWORD, type TestServer } from '../harness';
import { signIn } from '../oidc';
import { toMachineSpec } from '../../../server/core/machineSpecs';

// The world the authorization matrix runs in: one workspace W with its workers, a gamespace G of
// W launched by `player` with its machines deployed, the other gamespaces and workspaces the
// policy's edges need, and every actor kind of issue 12's policy with a way to make its
// credential. Tickets are single use, so each check mints its own.

export const ACTORS = [
  'anonymous',
  'player',
  'otherPlayer',
  'editor',
  'wsManager',
  'observerIn',
  'observerOut',
  'creator',
  'admin',
  'apiKey',
  'graderKey',
  'userTicket',
  'userCookie',
  'launchTicket',
  'launchCookie',
] as const;
export type ActorKind = (typeof ACTORS)[number];

/** The actors who sign in through the identity provider and call with its access token. */
export const JWT_ACTORS = [
  'player',
  'otherPlayer',
  'editor',
  'wsManager',
  'observerIn',
  'observerOut',
  'creator',
  'admin',
] as const;
type JwtActor = (typeof JWT_ACTORS)[number];

/** A gamespace and what its scoped credentials (grader key, launch ticket) are made from. */
export interface GameRef {
  id: string;
  workspaceId: string;
  /** In plain text (the store keeps its hash). */
  graderKey: string;
}

/** One request of a check; the actor's credentials are added to `headers`. */
export interface Req {
  method?: string;
  url: string;
  payload?: string | Buffer | object;
  headers?: Record<string, string>;
  /** A WebSocket route: opened for real (inject does not upgrade). */
  ws?: boolean;
}

export interface Reply {
  status: number;
  body: string;
}

export interface World {
  server: TestServer;
  ids: Record<JwtActor | 'bystander', string>;
  /** W: the workspace the policy is about (audience `alpha`), with editor and wsManager. */
  W: string;
  /** Wr: another `alpha` workspace for registrations, in which admin has an active gamespace. */
  Wr: string;
  /** Wx: a workspace nobody of the matrix works on, with an ISO and an unpublished template. */
  Wx: string;
  /** A published stock template, the parent of T, SW and Sx. */
  stock: string;
  /** T and SW: linked templates of W; Sx: of Wx, unpublished (siblings across workspaces). */
  T: string;
  SW: string;
  Sx: string;
  /** G: player's gamespace of W, started; H: otherPlayer's; P2: another one of player's. */
  G: GameRef;
  H: GameRef;
  P2: GameRef;
  /** E: a gamespace that guests enlist into. */
  E: GameRef;
  gVm: string;
  p2Vm: string;
  /** W's guide: `aboveCut` + the cut line + `belowCut`. */
  document: string;
  belowCut: string;
  /** W's challenge spec as GET /api/challenge/{W} answers it (written back unchanged). */
  challenge: object;
  /** The stock template's TemplateDetail (written back unchanged). */
  stockDetail: object;
  isoW: string;
  isoX: string;
  isoPublic: string;
  image: string;
  send(req: Req, headers?: Record<string, string>): Promise<Reply>;
  /** The headers that make a request the actor's, for checks about `game`. */
  credentials(actor: ActorKind, game: GameRef): Promise<Record<string, string>>;
}

const json = (reply: Reply): unknown => (reply.body ? JSON.parse(reply.body) : undefined);

export function isoBytes(): Buffer {
  const bytes = Buffer.alloc(ISO_SIGNATURE_OFFSET + 2048);
  bytes.write(ISO_SIGNATURE, ISO_SIGNATURE_OFFSET, 'latin1');
  return bytes;
}

export const PNG_BYTES = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44,
]);

/** A multipart/form-data body written by hand (inject takes a buffer). */
export function multipart(
  parts: Array<{ name: string; value: string } | { name: string; filename: string; data: Buffer }>,
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----authz${newId()}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('value' in part) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`,
        ),
      );
    } else {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\n` +
            'Content-Type: application/octet-stream\r\n\r\n',
        ),
        part.data,
        Buffer.from('\r\n'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/**
 * Opens a WebSocket: 101 once the server accepts and, for `expectFirstMessage`, sends a first
 * frame (a console sends its RFB version at once); 403 when it closes with 1008 before that (a
 * refused console ticket); otherwise the HTTP status of the refused upgrade.
 */
export function openSocket(
  url: string,
  headers: Record<string, string>,
  expectFirstMessage: boolean,
): Promise<Reply> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    const done = (status: number) => {
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.terminate();
      resolve({ status, body: '' });
    };
    socket.on('unexpected-response', (_req, res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
    socket.on('open', () => {
      if (!expectFirstMessage) done(101);
    });
    socket.on('message', () => done(101));
    socket.on('close', (code) => done(code === 1008 ? 403 : 0));
    socket.on('error', () => done(0));
  });
}

/** W's guide: its secret part is below the cut line. */
const CUT = '<!-- cut -->';

export async function buildWorld(server: TestServer): Promise<World> {
  const db = server.app.store.db;
  const app = server.app.app;

  // A logout ends the cookie it was made with (on the server too): the next check gets a new one.
  let cookiesEnded = () => {};
  const send = async (req: Req, headers: Record<string, string> = {}): Promise<Reply> => {
    if (req.ws) {
      const url = `${server.url.replace(/^http/, 'ws')}${req.url}`;
      return openSocket(url, { ...headers, ...req.headers }, req.url.startsWith('/api/console/'));
    }
    const payload = req.payload;
    const isObject =
      payload !== undefined && typeof payload === 'object' && !Buffer.isBuffer(payload);
    const res = await app.inject({
      method: (req.method ?? 'GET') as 'GET',
      url: req.url,
      headers: {
        ...(isObject ? { 'content-type': 'application/json' } : {}),
        ...headers,
        ...req.headers,
      },
      ...(payload === undefined
        ? {}
        : { payload: isObject ? JSON.stringify(payload) : (payload as string | Buffer) }),
    });
    if (res.statusCode === 200 && req.url === '/api/user/logout') cookiesEnded();
    return { status: res.statusCode, body: res.body };
  };

  // --- Accounts: the four seeded ones and those the policy needs besides, their passwords
  // hashed at a low cost (the provider verifies a hash at the cost it was stored with): the
  // matrix signs each actor in, and checks PUT /api/user/password for each, with the password.
  const seedHash = lowCostHash(SEED_PASSWORD);
  await db
    .updateTable('identityAccounts')
    .set({ passwordHash: seedHash })
    .where('username', 'in', ['admin', 'creator', 'observer', 'player'])
    .execute();
  const extra = ['otherplayer', 'editor', 'wsmanager', 'observerout'];
  for (const username of extra) {
    await db
      .insertInto('identityAccounts')
      .values({
        id: randomBytes(16).toString('hex'),
        username,
        name: username,
        passwordHash: seedHash,
        whenCreated: Date.now(),
      })
      .execute();
  }
  const usernames: Record<JwtActor, string> = {
    player: 'player',
    otherPlayer: 'otherplayer',
    editor: 'editor',
    wsManager: 'wsmanager',
    observerIn: 'observer',
    observerOut: 'observerout',
    creator: 'creator',
    admin: 'admin',
  };
  const tokens = {} as Record<JwtActor, string>;
  await Promise.all(
    JWT_ACTORS.map(async (actor) => {
      tokens[actor] = (await signIn(server.url, usernames[actor], SEED_PASSWORD)).accessToken;
    }),
  );
  const bearer = (actor: JwtActor) => ({ authorization: `Bearer ${tokens[actor]}` });
  const ok = async (req: Req, actor: JwtActor): Promise<unknown> => {
    const reply = await send(req, bearer(actor));
    expect(reply.status, `${req.method ?? 'GET'} ${req.url}: ${reply.body}`).toBe(200);
    return json(reply);
  };

  // Registering stores the user, and sets its console cookie.
  const register = async (actor: JwtActor): Promise<string> => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/user/register',
      headers: bearer(actor),
    });
    expect(res.statusCode, res.body).toBe(200);
    return cookieOf(res.headers['set-cookie']);
  };
  for (const actor of JWT_ACTORS) await register(actor);
  /** The player's console cookie, made again after a logout ended it. */
  let userCookie = '';
  const playerCookie = async () => (userCookie ||= await register('player'));
  const ids = {} as World['ids'];
  for (const actor of JWT_ACTORS) ids[actor] = await server.userId(usernames[actor]);
  ids.bystander = newId();
  const profile: Record<
    JwtActor,
    { role: RoleName; scope: string; workspaceLimit?: number; gamespaceLimit?: number }
  > = {
    // Launches more games than the default limit of 2 running ones.
    player: { role: 'user', scope: 'alpha', gamespaceLimit: 100 },
    otherPlayer: { role: 'user', scope: 'gamma' },
    editor: { role: 'user', scope: '' },
    // May create (and so clone) workspaces: a plain user under the workspace limit.
    wsManager: { role: 'user', scope: '', workspaceLimit: 100 },
    observerIn: { role: 'observer', scope: 'alpha' },
    observerOut: { role: 'observer', scope: 'beta' },
    creator: { role: 'creator', scope: '' },
    admin: { role: 'administrator', scope: '' },
  };
  for (const actor of JWT_ACTORS) {
    const p = profile[actor];
    await db
      .updateTable('users')
      .set({
        role: ROLE_NUMBERS[p.role],
        scope: p.scope,
        ...(p.workspaceLimit ? { workspaceLimit: p.workspaceLimit } : {}),
        ...(p.gamespaceLimit ? { gamespaceLimit: p.gamespaceLimit } : {}),
      })
      .where('id', '=', ids[actor])
      .execute();
  }
  const apiKey = await server.apiKeyFor('player');

  // --- Workspaces and templates.
  const stockRows = await db
    .selectFrom('templates')
    .select(['id'])
    .where('workspaceId', 'is', null)
    .where('isPublished', '=', 1)
    .where('name', '=', 'linux-server')
    .execute();
  const stock = stockRows[0]!.id;
  const spec = {
    ...gamespaceSpec(),
    // The grader key reaches the challenge through a transform (wire reference §4.3).
    transforms: [{ key: 'agentkey', value: 'grader_key' }],
  };
  const W = await freshWorkspace(server, { audience: 'alpha', name: 'W', challenge: spec });
  const Wr = await freshWorkspace(server, { audience: 'alpha', name: 'Wr', workers: false });
  const Wx = await freshWorkspace(server, { audience: 'delta', name: 'Wx', workers: false });
  const T = await insertTemplate(server, { workspaceId: W, parentId: stock, name: 'alpha-box' });
  const SW = await insertTemplate(server, { workspaceId: W, parentId: stock, name: 'beta-box' });
  const Sx = await insertTemplate(server, { workspaceId: Wx, parentId: stock, name: 'x-box' });
  const belowCut = `SECRET-${newId()}`;
  const document = `# W\n\nThe briefing.\n\n${CUT}\n\n${belowCut}\n`;
  const put = await send(
    {
      method: 'PUT',
      url: `/api/document/${W}`,
      payload: document,
      headers: { 'content-type': 'text/plain' },
    },
    bearer('admin'),
  );
  expect(put.status, put.body).toBe(200);
  const challenge = (await ok({ url: `/api/challenge/${W}` }, 'admin')) as object;
  const stockDetail = (await ok({ url: `/api/template-detail/${stock}` }, 'admin')) as object;

  // ISO files: one of W's, one of Wx's, one public.
  const isoRoot = join(server.dataDir, 'isos');
  const writeIso = (folder: string, name: string) => {
    mkdirSync(join(isoRoot, folder), { recursive: true });
    writeFileSync(join(isoRoot, folder, name), isoBytes());
    return `${folder}/${name}`;
  };
  const isoW = writeIso(W, 'lab.iso');
  const isoX = writeIso(Wx, 'other.iso');
  const isoPublic = writeIso(EMPTY_GUID, 'public.iso');
  const form = multipart([{ name: 'file', filename: 'shared.png', data: PNG_BYTES }]);
  const image = (
    (await ok({ method: 'POST', url: `/api/image/${W}`, ...form }, 'admin')) as { filename: string }
  ).filename;

  // --- Gamespaces. G is launched as a player launches it, its machines deployed at once.
  const gKey = `grader-${newId()}`;
  const registered = (await ok(
    {
      method: 'POST',
      url: '/api/gamespace',
      payload: {
        resourceId: W,
        graderKey: gKey,
        startGamespace: true,
        allowReset: true,
        maxAttempts: 100_000,
        players: [{ subjectId: ids.player, subjectName: 'player' }],
      },
    },
    'player',
  )) as { id: string; vms: Array<{ id: string }> };
  const G: GameRef = { id: registered.id, workspaceId: W, graderKey: gKey };
  expect(registered.vms.length).toBeGreaterThan(0);
  const gVm = registered.vms[0]!.id;
  // Running, so its console has a ticket.
  await ok({ method: 'PUT', url: '/api/vm', payload: { id: gVm, type: 'start' } }, 'admin');
  // Admin's own gamespace of Wr: a registration naming admin must not hand it out (rule 2).
  await ok({ method: 'POST', url: '/api/gamespace', payload: { resourceId: Wr } }, 'admin');

  const H = await freshGame(server, { managerId: ids.otherPlayer, audience: 'gamma' });
  const P2 = await freshGame(server, { managerId: ids.player, audience: 'alpha' });
  const E = await freshGame(server, { managerId: ids.bystander, audience: 'alpha' });
  const p2Vm = await freshVm(server, P2.id);

  // --- Credentials.
  const launchCookies = new Map<string, string>();
  cookiesEnded = () => {
    userCookie = '';
    launchCookies.clear();
  };
  /** What a launch ticket of each game stands for, as the player's relaunch stored it. */
  const launchSubjects = new Map<string, string>();
  const launchTicket = async (game: GameRef): Promise<string> => {
    // After the first relaunch of a game, its tickets are issued as that relaunch issued its
    // own: the same subject in the same cache, each ticket new (they are single use).
    const subject = launchSubjects.get(game.id);
    if (subject) {
      const ticket = newToken();
      await server.app.cache.set(ticketKey(ticket), subject, LAUNCH_TICKET_MS, { sliding: true });
      return ticket;
    }
    const reply = await send(
      {
        method: 'POST',
        url: '/api/gamespace',
        payload: {
          resourceId: game.workspaceId,
          players: [{ subjectId: ids.player, subjectName: 'player' }],
        },
      },
      bearer('player'),
    );
    const state = json(reply) as { id?: string; launchpointUrl?: string } | undefined;
    // The player's relaunch of the workspace gives back this gamespace, with a fresh ticket.
    expect(state?.id, `relaunch of ${game.workspaceId}: ${reply.body}`).toBe(game.id);
    const ticket = new URL(state!.launchpointUrl!).searchParams.get('t');
    expect(ticket).toBeTruthy();
    const stored = await server.app.cache.get(ticketKey(ticket!));
    expect(stored, 'the launch ticket in the cache').toBeTruthy();
    launchSubjects.set(game.id, stored!);
    return ticket!;
  };
  const launchCookie = async (game: GameRef): Promise<string> => {
    const kept = launchCookies.get(game.id);
    if (kept) return kept;
    const res = await app.inject({
      method: 'POST',
      url: `/api/user/login?ticket=${await launchTicket(game)}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const cookie = cookieOf(res.headers['set-cookie']);
    launchCookies.set(game.id, cookie);
    return cookie;
  };
  /** What the player's one-time ticket stands for, as GET /api/user/ticket stored it. */
  let userSubject: string | null = null;
  const userTicket = async (): Promise<string> => {
    // After the first, issued as the route issues them: the same subject, each ticket new.
    if (userSubject) {
      const ticket = newToken();
      await server.app.cache.set(ticketKey(ticket), userSubject, TICKET_TTL_MS);
      return ticket;
    }
    const reply = await send({ url: '/api/user/ticket' }, bearer('player'));
    const { ticket } = json(reply) as { ticket: string };
    userSubject = await server.app.cache.get(ticketKey(ticket));
    expect(userSubject, 'the user ticket in the cache').toBeTruthy();
    return ticket;
  };

  const credentials = async (actor: ActorKind, game: GameRef): Promise<Record<string, string>> => {
    switch (actor) {
      case 'anonymous':
        return {};
      case 'apiKey':
        return { 'x-api-key': apiKey };
      case 'graderKey':
        return { 'x-api-key': game.graderKey };
      case 'userTicket':
        return { authorization: `Ticket ${await userTicket()}` };
      // The console page's calls, as a browser makes them: the cookie and the header a page of
      // another site cannot add (changes by cookie need it).
      case 'userCookie':
        return { cookie: `topomojo.mks=${await playerCookie()}`, [CSRF_HEADER]: 'XMLHttpRequest' };
      case 'launchTicket':
        return { authorization: `Ticket ${await launchTicket(game)}` };
      case 'launchCookie':
        return {
          cookie: `topomojo.mks=${await launchCookie(game)}`,
          [CSRF_HEADER]: 'XMLHttpRequest',
        };
      default:
        return bearer(actor);
    }
  };

  return {
    server,
    ids,
    W,
    Wr,
    Wx,
    stock,
    T,
    SW,
    Sx,
    G,
    H,
    P2,
    E,
    gVm,
    p2Vm,
    document,
    belowCut,
    challenge,
    stockDetail,
    isoW,
    isoX,
    isoPublic,
    image,
    send,
    credentials,
  };
}

/** scrypt at a low cost (N = 2^10), in the `scrypt$N$r$p$salt$hash` form the provider stores. */
function lowCostHash(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password.normalize('NFC'), salt, 32, { N: 1024, r: 8, p: 1 });
  return ['scrypt', 1024, 8, 1, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

function cookieOf(header: string | string[] | undefined): string {
  const line = (Array.isArray(header) ? header : [header ?? '']).find((l) =>
    l.startsWith('topomojo.mks='),
  );
  expect(line, 'a topomojo.mks cookie').toBeTruthy();
  return line!.slice('topomojo.mks='.length).split(';')[0]!;
}

// --- Throwaway resources: a destructive check's allowed actors each act on one of their own.

/** A workspace with the editor (Editor) and wsManager (Manager) as its workers. */
export async function freshWorkspace(
  server: TestServer,
  options: { audience?: string; name?: string; challenge?: unknown; workers?: boolean } = {},
): Promise<string> {
  const db = server.app.store.db;
  const id = newId();
  const now = Date.now();
  await db
    .insertInto('workspaces')
    .values({
      id,
      name: options.name ?? `fresh ${id.slice(0, 6)}`,
      description: '',
      tags: '',
      author: 'authz',
      audience: options.audience ?? 'alpha',
      // An invitation code of its own, for POST /api/worker/{code}.
      shareCode: newId(),
      templateScope: '',
      isPublished: 1,
      templateLimit: 100,
      hostAffinity: 0,
      useUplinkSwitch: 0,
      durationMinutes: 120,
      launchCount: 0,
      lastActivity: now,
      challenge: JSON.stringify(options.challenge ?? gamespaceSpec()),
      whenCreated: now,
    })
    .execute();
  if (options.workers !== false) {
    const worker = async (username: string, permission: number) =>
      db
        .insertInto('workers')
        .values({
          workspaceId: id,
          subjectId: await server.userId(username),
          subjectName: username,
          permission,
        })
        .execute();
    await worker('editor', PERMISSION.editor);
    await worker('wsmanager', PERMISSION.manager);
  }
  return id;
}

/** A template linked to `parentId` in a workspace. */
export async function insertTemplate(
  server: TestServer,
  options: { workspaceId: string; parentId: string; name?: string; isPublished?: boolean },
): Promise<string> {
  const id = newId();
  await server.app.store.db
    .insertInto('templates')
    .values({
      id,
      name: options.name ?? `tpl-${id.slice(0, 6)}`,
      description: '',
      audience: '',
      iso: '',
      networks: 'lan',
      guestinfo: '',
      isHidden: 0,
      isPublished: options.isPublished ? 1 : 0,
      isLinked: 1,
      detail: null,
      parentId: options.parentId,
      replicas: 0,
      variant: 0,
      workspaceId: options.workspaceId,
      whenCreated: Date.now(),
    })
    .execute();
  return id;
}

/**
 * A started gamespace of a workspace of its own, managed by `managerId` (also its Manager
 * player): the manager's relaunch of that workspace gives it back, so its launch ticket can be
 * had as G's is.
 */
export async function freshGame(
  server: TestServer,
  options: { managerId: string; audience?: string },
): Promise<GameRef> {
  const workspaceId = await freshWorkspace(server, { audience: options.audience ?? 'alpha' });
  const { id, graderKey } = await insertGamespace(server.app.store.db, {
    workspaceId,
    managerId: options.managerId,
  });
  return { id, workspaceId, graderKey };
}

/** A machine deployed straight through the driver under a gamespace's tag. */
export async function freshVm(server: TestServer, tag: string): Promise<string> {
  const name = `vm${newId().slice(0, 8)}`;
  const vm = await server.app.driver.deploy(
    toMachineSpec(
      toVmTemplate({
        Name: name,
        IsolationTag: tag,
        AutoStart: false,
        Eth: [{ Net: 'lan', Type: 'e1000' }],
        Disks: [{ Path: `[ds] ${EMPTY_GUID}/${name}.vmdk`, Source: '' }],
      }),
    ),
    false,
  );
  return vm.id;
}

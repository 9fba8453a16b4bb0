import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, strToU8, zipSync } from 'fflate';
import { newId } from '../../../server/core/ids';
import { createAccount } from '../../../server/identity';
import { SEED_PASSWORD } from '../harness';
import { DISPATCH_POLICY } from './dispatchPolicy';
import {
  ACTORS,
  freshGame,
  freshVm,
  freshWorkspace,
  insertTemplate,
  isoBytes,
  JWT_ACTORS,
  multipart,
  PNG_BYTES,
  type ActorKind,
  type GameRef,
  type Req,
  type World,
} from './fixtures';

// The written authorization policy: one row per route of the server (HEAD twins are checked
// with their GET row), and for each the actor kinds that may call it. It is the reference's
// (wire reference §1 "Authz", §5) with the rules issue 12 adds:
// 1. credentials scoped to a gamespace (grader key, launch ticket and its cookie) reach only
//    that gamespace's play and console routes and the credential's own routes, with no roles;
// 2. only admins (and accounts allowed to register others) name players other than themselves;
// 3. the grader key appears in no answer but an admin's;
// 4. a machine mounts only ISOs its workspace may use;
// 5. relinking and the sibling list stay within the workspace or published templates;
// 6. the guide below the cut line only for those who may edit the workspace.
// Every actor not allowed must be refused: 401 or 403 (anonymous on a protected route: 401).

/** What a check is about: `game` is the gamespace whose scoped credentials are used. */
export interface Target {
  game: GameRef;
  id: string;
  key?: string;
}

export interface Case {
  /** What sets this case apart from the route's others. */
  name?: string;
  allow: readonly ActorKind[];
  /**
   * An anonymous endpoint whose answer does not depend on the caller (the identity provider's
   * own errors, the SPA page missing in tests): every actor must get one of these statuses.
   */
  everyone?: readonly number[];
  /** Statuses that count as a refusal here; 401 or 403 when not given. */
  deny?: readonly number[];
  /** Actors the policy says nothing about for this case: not sent. */
  unchecked?: readonly ActorKind[];
  /** The shared resource of the check (G when not given). */
  shared?: (w: World) => Target;
  /**
   * A destructive case: refused actors act on the shared resource (which must stay as it was),
   * each allowed actor on a throwaway one of its own.
   */
  fresh?: (w: World) => Promise<Target>;
  /** For destructive cases: why the shared resource is no longer as it was, or null. */
  intact?: (w: World) => Promise<string | null>;
  request(w: World, t: Target): Req | Promise<Req>;
  /** Something in the answer only some actors may see. */
  secret?: Secret;
}

export interface Secret {
  what: string;
  value(w: World): string;
  /** Must see it (so the check has teeth); everyone else allowed must not. */
  seenBy: readonly ActorKind[];
  /** May see it or not: the policy leaves them open. */
  either?: readonly ActorKind[];
}

export interface PolicyRow {
  method: string;
  url: string;
  /** The server does not authenticate the route (its own credential checks, if any, apply). */
  anonymous?: true;
  cases: Case[];
}

// --- Actor groups.

const EVERYONE: readonly ActorKind[] = ACTORS;
/** Anyone signed in with a full credential the default policy accepts (not the grader key). */
const SIGNED_IN: readonly ActorKind[] = [...JWT_ACTORS, 'apiKey'];
/** gs.CanInteract / gs.CanManage of G on a default-policy route (JWT or API key). */
const G_PLAYER: readonly ActorKind[] = ['player', 'apiKey', 'admin'];
/** gs.CanManage of G on an AnyUser route: tickets, cookies and G's launch credentials too. */
const G_MANAGER_ANY: readonly ActorKind[] = [
  'player',
  'apiKey',
  'userTicket',
  'userCookie',
  'admin',
  'launchTicket',
  'launchCookie',
];
/** gs.CanInteract or G's grader key on an AnyUser route. */
const G_PLAY_ANY: readonly ActorKind[] = [...G_MANAGER_ANY, 'graderKey'];
/** The player's other gamespace P2 on an AnyUser route: G's scoped credentials do not reach it. */
const P2_ANY: readonly ActorKind[] = ['player', 'apiKey', 'userTicket', 'userCookie', 'admin'];
/** CanManageVm of G's machines on a default-policy route. */
const VM_G: readonly ActorKind[] = ['player', 'apiKey', 'observerIn', 'admin', 'graderKey'];
/** CanManageVm of G's machines on an AnyUser route. */
const VM_G_ANY: readonly ActorKind[] = [
  ...VM_G,
  'userTicket',
  'userCookie',
  'launchTicket',
  'launchCookie',
];
const VM_P2_ANY: readonly ActorKind[] = [...P2_ANY, 'observerIn'];
/** Who may drive G's machine (keys, paste, files): not an observer, who only watches it. */
const VM_G_DRIVE = VM_G_ANY.filter((a) => a !== 'observerIn');
const VM_P2_DRIVE = VM_P2_ANY.filter((a) => a !== 'observerIn');
/** ws.CanEdit of W. */
const W_EDIT: readonly ActorKind[] = ['editor', 'wsManager', 'admin'];
/** ws.CanManage of W. */
const W_MANAGE: readonly ActorKind[] = ['wsManager', 'admin'];
/** CanManageVm of W's builder machines: its workers, observers of its audience, admins. */
const W_VM: readonly ActorKind[] = ['editor', 'wsManager', 'observerIn', 'admin'];
const ADMIN: readonly ActorKind[] = ['admin'];
const NOBODY: readonly ActorKind[] = [];

const g = (w: World): Target => ({ game: w.G, id: w.G.id });

/** A console recording of G (server/console/recordings.ts): its row and its file. */
const recordings = new WeakMap<World, Promise<string>>();
function recordingOfG(w: World): Promise<string> {
  let made = recordings.get(w);
  if (!made) {
    made = (async () => {
      const id = newId();
      const folder = join(w.server.dataDir, 'recordings', w.G.id);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `${id}.rec.gz`), gzipSync(strToU8('\0\0\0\0\0\0\0\0\0')));
      await w.server.app.store.db
        .insertInto('consoleRecordings')
        .values({
          id,
          gamespaceId: w.G.id,
          machineId: w.gVm,
          machineName: 'vm',
          userId: w.ids.player,
          userName: 'player',
          startedAt: Date.now(),
          endedAt: Date.now(),
          durationMs: 0,
          bytes: 9,
          truncated: 0,
          file: `${w.G.id}/${id}.rec.gz`,
        })
        .execute();
      return id;
    })();
    recordings.set(w, made);
  }
  return made;
}
/** What G's help request says (server/core/helpRequests.ts): only its readers may see it. */
const HELP_MESSAGE = `HELP-${newId()}`;

/** The open help request of `game`, raised by player: the one there, or a new one. */
async function openHelpOf(w: World, game: GameRef): Promise<string> {
  const db = w.server.app.store.db;
  const open = await db
    .selectFrom('helpRequests')
    .select('id')
    .where('gamespaceId', '=', game.id)
    .where('status', '=', 'open')
    .executeTakeFirst();
  if (open) return open.id;
  const id = newId();
  await db
    .insertInto('helpRequests')
    .values({
      id,
      gamespaceId: game.id,
      workspaceId: game.workspaceId,
      gamespaceName: 'game',
      playerId: w.ids.player,
      playerName: 'player',
      message: HELP_MESSAGE,
      status: 'open',
      raisedAt: Date.now(),
      claimedById: '',
      claimedByName: '',
      claimedAt: 0,
      answer: '',
      answeredById: '',
      answeredByName: '',
      closedAt: 0,
    })
    .execute();
  return id;
}

/** A throwaway gamespace of player's, in an `alpha` workspace, with an open help request. */
async function freshHelp(w: World): Promise<Target> {
  const game = await freshGame(w.server, { managerId: w.ids.player, audience: 'alpha' });
  return { game: w.G, id: await openHelpOf(w, game) };
}

/** Why G's help request is no longer open and unclaimed, or null. */
async function helpIntact(w: World): Promise<string | null> {
  const row = await w.server.app.store.db
    .selectFrom('helpRequests')
    .select(['status', 'claimedById'])
    .where('id', '=', await openHelpOf(w, w.G))
    .executeTakeFirst();
  if (!row) return "G's help request is gone";
  if (row.status !== 'open') return `G's help request is ${row.status}`;
  return row.claimedById ? "G's help request was claimed" : null;
}

/** A workspace archive with no workspace in it. */
const EMPTY_ARCHIVE = Buffer.from(zipSync({ '_data.json': strToU8('[]') }));

const json = (method: string, url: string, payload: object): Req => ({ method, url, payload });
const text = (method: string, url: string, body: string): Req => ({
  method,
  url,
  payload: body,
  headers: { 'content-type': 'text/plain' },
});
const inFuture = () => new Date(Date.now() + 2 * 3_600_000).toISOString();

/** An invitation code to a gamespace, minted by an admin. */
async function inviteCode(w: World, gamespaceId: string): Promise<string> {
  const reply = await w.send(
    { method: 'POST', url: `/api/gamespace/${gamespaceId}/invite` },
    await w.credentials('admin', w.G),
  );
  return (JSON.parse(reply.body) as { code: string }).code;
}

/** A fresh raw disk image name. */
const diskImageName = () => `d-${newId().slice(0, 8)}.raw`;

/** A disk image upload of 512 bytes started by an admin (and sent whole when `sent`): its id. */
async function diskUpload(w: World, sent = false): Promise<string> {
  const admin = await w.credentials('admin', w.G);
  const reply = await w.send(
    json('POST', '/api/admin/diskimage', { name: diskImageName(), size: 512 }),
    admin,
  );
  const id = (JSON.parse(reply.body) as { id: string }).id;
  if (sent) {
    await w.send(
      {
        method: 'PUT',
        url: `/api/admin/diskimage/${id}/chunk?offset=0`,
        payload: Buffer.alloc(512),
        headers: { 'content-type': 'application/octet-stream' },
      },
      admin,
    );
  }
  return id;
}

const BELOW_CUT = { what: 'the guide below the cut', value: (w: World) => w.belowCut };
const ISO_X = { what: "another workspace's ISO", value: (w: World) => w.isoX, seenBy: NOBODY };

async function exists(w: World, table: 'workspaces' | 'templates' | 'gamespaces', id: string) {
  const row = await w.server.app.store.db
    .selectFrom(table)
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? null : `${table} ${id} is gone`;
}

async function gActive(w: World): Promise<string | null> {
  const row = await w.server.app.store.db
    .selectFrom('gamespaces')
    .select('endTime')
    .where('id', '=', w.G.id)
    .executeTakeFirst();
  return row && row.endTime <= 0 ? null : 'G ended or is gone';
}

async function vmExists(w: World, id: string): Promise<string | null> {
  return (await w.server.app.driver.load(id)) ? null : `machine ${id} is gone`;
}

/** A throwaway gamespace of the player, whose launch credentials are its own. */
const playerGame = async (w: World): Promise<Target> => {
  const game = await freshGame(w.server, { managerId: w.ids.player });
  return { game, id: game.id };
};

/** A stored user nobody of the matrix is, with an API key: what refused deletions try. */
const KEEPER_USER = newId();
const KEEPER_KEY = newId();
/** A local account of nobody in the matrix (not the keeper user's: that one has none). */
const KEEPER_ACCOUNT = newId();

function userRow(id: string) {
  return {
    id,
    name: `keeper ${id.slice(0, 6)}`,
    scope: '',
    workspaceLimit: 0,
    gamespaceLimit: 0,
    gamespaceMaxMinutes: 0,
    gamespaceCleanupGraceMinutes: 0,
    role: 0,
    lastIdpAssignedRole: null,
    serviceAccountClientId: null,
    registrar: 0,
    whenCreated: Date.now(),
  };
}

function keyRow(id: string, userId: string) {
  return { id, userId, name: 'authz', hash: newId(), whenCreated: Date.now() };
}

async function ensureKeeper(w: World): Promise<void> {
  const db = w.server.app.store.db;
  await db
    .insertInto('users')
    .values(userRow(KEEPER_USER))
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  await db
    .insertInto('apiKeys')
    .values(keyRow(KEEPER_KEY, KEEPER_USER))
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** The keeper local account, enabled (the disabled route sets what it has already). */
async function ensureKeeperAccount(w: World): Promise<void> {
  const db = w.server.app.store.db;
  const row = await db
    .selectFrom('identityAccounts')
    .select('id')
    .where('id', '=', KEEPER_ACCOUNT)
    .executeTakeFirst();
  if (!row) {
    const username = `keeper-${KEEPER_ACCOUNT}`;
    await createAccount(db, { id: KEEPER_ACCOUNT, username, name: 'keeper', password: username });
  }
}

/** Null while the keeper user still has no local account. */
async function keeperHasNoAccount(w: World): Promise<string | null> {
  const row = await w.server.app.store.db
    .selectFrom('identityAccounts')
    .select('id')
    .where('id', '=', KEEPER_USER)
    .executeTakeFirst();
  return row ? 'the keeper user was given a local account' : null;
}

async function throwawayUser(w: World): Promise<string> {
  const id = newId();
  await w.server.app.store.db.insertInto('users').values(userRow(id)).execute();
  return id;
}

/** A key of the player's own: what refused revocations of "one's own key" try. */
const PLAYER_KEY = newId();

async function ensurePlayerKey(w: World): Promise<void> {
  await w.server.app.store.db
    .insertInto('apiKeys')
    .values(keyRow(PLAYER_KEY, w.ids.player))
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

async function throwawayPlayerKey(w: World): Promise<string> {
  const id = newId();
  await w.server.app.store.db.insertInto('apiKeys').values(keyRow(id, w.ids.player)).execute();
  return id;
}

async function throwawayKey(w: World): Promise<string> {
  await ensureKeeper(w);
  const id = newId();
  await w.server.app.store.db.insertInto('apiKeys').values(keyRow(id, KEEPER_USER)).execute();
  return id;
}

async function userExists(w: World, id: string): Promise<string | null> {
  const row = await w.server.app.store.db
    .selectFrom('users')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? null : `user ${id} is gone`;
}

async function keyExists(w: World, id: string): Promise<string | null> {
  const row = await w.server.app.store.db
    .selectFrom('apiKeys')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? null : `API key ${id} is gone`;
}

// --- The table.

export const POLICY: PolicyRow[] = [
  // The dispatcher (wire reference §1.5).
  ...DISPATCH_POLICY,
  // The embedded identity provider (OpenID Connect): anonymous by nature; the provider answers
  // its own errors whoever calls, and its userinfo takes the provider's access tokens only.
  {
    method: 'GET',
    url: '/identity/interaction/:uid',
    anonymous: true,
    cases: [
      { allow: NOBODY, everyone: [400], request: () => ({ url: '/identity/interaction/x' }) },
    ],
  },
  {
    method: 'POST',
    url: '/identity/interaction/:uid/login',
    anonymous: true,
    cases: [
      {
        allow: NOBODY,
        everyone: [400],
        request: () => ({ method: 'POST', url: '/identity/interaction/x/login' }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/identity/interaction/:uid/abort',
    anonymous: true,
    cases: [
      { allow: NOBODY, everyone: [400], request: () => ({ url: '/identity/interaction/x/abort' }) },
    ],
  },
  ...(['GET', 'POST'] as const).map((method): PolicyRow => ({
    method,
    url: '/identity/me',
    anonymous: true,
    cases: [{ allow: JWT_ACTORS, deny: [401], request: () => ({ method, url: '/identity/me' }) }],
  })),
  {
    method: 'OPTIONS',
    url: '/identity/me',
    anonymous: true,
    cases: [
      {
        allow: NOBODY,
        everyone: [204],
        request: () => ({ method: 'OPTIONS', url: '/identity/me' }),
      },
    ],
  },
  ...(['GET', 'POST', 'OPTIONS'] as const).map((method): PolicyRow => ({
    method,
    url: '/identity',
    anonymous: true,
    cases: [{ allow: NOBODY, everyone: [404], request: () => ({ method, url: '/identity' }) }],
  })),
  {
    method: 'GET',
    url: '/identity/*',
    anonymous: true,
    cases: [
      { allow: EVERYONE, request: () => ({ url: '/identity/.well-known/openid-configuration' }) },
    ],
  },
  {
    method: 'POST',
    url: '/identity/*',
    anonymous: true,
    cases: [
      {
        allow: NOBODY,
        everyone: [400],
        request: () => ({ method: 'POST', url: '/identity/token' }),
      },
    ],
  },
  {
    method: 'OPTIONS',
    url: '/identity/*',
    anonymous: true,
    cases: [
      {
        allow: NOBODY,
        everyone: [404],
        request: () => ({ method: 'OPTIONS', url: '/identity/.well-known/openid-configuration' }),
      },
    ],
  },

  // Users, tickets and the console cookie (§1.7). The scoped credentials keep their own routes
  // (rule 1): who they are, the cookie and hub ticket made from them, ping and logout.
  {
    method: 'POST',
    url: '/api/user/register',
    cases: [{ allow: SIGNED_IN, request: () => ({ method: 'POST', url: '/api/user/register' }) }],
  },
  {
    method: 'GET',
    url: '/api/user',
    cases: [{ allow: [...SIGNED_IN, 'graderKey'], request: () => ({ url: '/api/user' }) }],
  },
  {
    method: 'GET',
    url: '/api/user/ticket',
    cases: [{ allow: [...SIGNED_IN, 'graderKey'], request: () => ({ url: '/api/user/ticket' }) }],
  },
  {
    method: 'POST',
    url: '/api/user/login',
    cases: [
      {
        allow: ACTORS.filter((a) => a !== 'anonymous'),
        request: () => ({ method: 'POST', url: '/api/user/login' }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/user/logout',
    cases: [
      {
        allow: ['userCookie', 'launchCookie'],
        request: () => ({ method: 'POST', url: '/api/user/logout' }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/user/ping',
    cases: [{ allow: ['userCookie', 'launchCookie'], request: () => ({ url: '/api/user/ping' }) }],
  },
  // Users and API keys (§1.7): AdminOnly, or "admin or self"; no scoped credential reaches them.
  {
    method: 'GET',
    url: '/api/user/:id',
    cases: [
      { name: 'self', allow: G_PLAYER, request: (w) => ({ url: `/api/user/${w.ids.player}` }) },
      {
        name: 'another user',
        allow: ['creator', 'admin'],
        request: (w) => ({ url: `/api/user/${w.ids.creator}` }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/users',
    cases: [{ allow: ADMIN, request: () => ({ url: '/api/users?term=player' }) }],
  },
  {
    method: 'GET',
    url: '/api/user/scopes',
    cases: [{ allow: ADMIN, request: () => ({ url: '/api/user/scopes' }) }],
  },
  {
    method: 'POST',
    url: '/api/user',
    cases: [
      {
        // Sets what observerOut has already: allowed calls change nothing either.
        allow: ADMIN,
        request: (w) => json('POST', '/api/user', { id: w.ids.observerOut, scope: 'beta' }),
      },
    ],
  },
  {
    method: 'DELETE',
    url: '/api/user/:id',
    cases: [
      {
        // The user itself may too (tests/server/users); here the target is nobody of the matrix.
        allow: ADMIN,
        shared: (w) => ({ game: w.G, id: KEEPER_USER }),
        fresh: async (w) => ({ game: w.G, id: await throwawayUser(w) }),
        intact: (w) => userExists(w, KEEPER_USER),
        request: async (w, t) => {
          await ensureKeeper(w);
          return { method: 'DELETE', url: `/api/user/${t.id}` };
        },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/user/:id/workspaces',
    cases: [{ allow: G_PLAYER, request: (w) => ({ url: `/api/user/${w.ids.player}/workspaces` }) }],
  },
  {
    method: 'GET',
    url: '/api/user/:id/gamespaces',
    cases: [{ allow: G_PLAYER, request: (w) => ({ url: `/api/user/${w.ids.player}/gamespaces` }) }],
  },
  {
    method: 'GET',
    url: '/api/user/:id/worker',
    cases: [{ allow: SIGNED_IN, request: (w) => ({ url: `/api/user/${w.ids.editor}/worker` }) }],
  },
  // The key routes are AdminOnly in the reference; ours also answer the user itself (issue 29),
  // signed in interactively only: the player's own API key is refused its own keys.
  {
    method: 'GET',
    url: '/api/user/:id/keys',
    cases: [
      {
        name: 'self',
        allow: ['player', 'admin'],
        request: (w) => ({ url: `/api/user/${w.ids.player}/keys` }),
      },
      {
        // Nobody of the matrix: each actor's own keys would be its "self".
        name: 'another user',
        allow: ADMIN,
        request: async (w) => {
          await ensureKeeper(w);
          return { url: `/api/user/${KEEPER_USER}/keys` };
        },
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/apikey/:id',
    cases: [
      {
        name: 'self',
        allow: ['player', 'admin'],
        request: (w) => ({ method: 'POST', url: `/api/apikey/${w.ids.player}` }),
      },
      {
        name: 'another user',
        allow: ADMIN,
        request: async (w) => {
          await ensureKeeper(w);
          return { method: 'POST', url: `/api/apikey/${KEEPER_USER}` };
        },
      },
    ],
  },
  {
    method: 'DELETE',
    url: '/api/apikey/:keyId',
    cases: [
      {
        name: "one's own key",
        allow: ['player', 'admin'],
        shared: (w) => ({ game: w.G, id: PLAYER_KEY }),
        fresh: async (w) => ({ game: w.G, id: await throwawayPlayerKey(w) }),
        intact: (w) => keyExists(w, PLAYER_KEY),
        request: async (w, t) => {
          await ensurePlayerKey(w);
          return { method: 'DELETE', url: `/api/apikey/${t.id}` };
        },
      },
      {
        name: "another user's key",
        allow: ADMIN,
        shared: (w) => ({ game: w.G, id: KEEPER_KEY }),
        fresh: async (w) => ({ game: w.G, id: await throwawayKey(w) }),
        intact: (w) => keyExists(w, KEEPER_KEY),
        request: async (w, t) => {
          await ensureKeeper(w);
          return { method: 'DELETE', url: `/api/apikey/${t.id}` };
        },
      },
    ],
  },
  // Our own (issue 17): an administrator manages local accounts of the embedded provider.
  {
    method: 'GET',
    url: '/api/user/:id/account',
    cases: [
      {
        // Whether its profile offers a password change (issue 29).
        name: 'self',
        allow: G_PLAYER,
        request: (w) => ({ url: `/api/user/${w.ids.player}/account` }),
      },
      {
        name: 'another user',
        allow: ADMIN,
        request: async (w) => {
          await ensureKeeperAccount(w);
          return { url: `/api/user/${KEEPER_ACCOUNT}/account` };
        },
      },
    ],
  },
  {
    // Our own (issue 29): one's own password, with the current one, from an interactive sign-in
    // only. Every allowed call sets the password it checks, so it changes nothing.
    method: 'PUT',
    url: '/api/user/password',
    cases: [
      {
        allow: JWT_ACTORS,
        request: () =>
          json('PUT', '/api/user/password', {
            currentPassword: SEED_PASSWORD,
            password: SEED_PASSWORD,
          }),
      },
    ],
  },
  {
    method: 'PUT',
    url: '/api/user/:id/password',
    cases: [
      {
        // Gives a user without one a local account: refused callers must not give the keeper one.
        allow: ADMIN,
        shared: (w) => ({ game: w.G, id: KEEPER_USER }),
        fresh: async (w) => ({ game: w.G, id: await throwawayUser(w) }),
        intact: keeperHasNoAccount,
        request: async (w, t) => {
          await ensureKeeper(w);
          return json('PUT', `/api/user/${t.id}/password`, {
            password: 'a new password',
            username: `u-${t.id}`,
          });
        },
      },
    ],
  },
  {
    method: 'PUT',
    url: '/api/user/:id/disabled',
    cases: [
      {
        // Leaves the keeper's account enabled: allowed calls change nothing either.
        allow: ADMIN,
        request: async (w) => {
          await ensureKeeperAccount(w);
          return json('PUT', `/api/user/${KEEPER_ACCOUNT}/disabled`, { disabled: false });
        },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/version',
    cases: [{ allow: SIGNED_IN, request: () => ({ url: '/api/version' }) }],
  },
  {
    method: 'GET',
    url: '/api/health/version',
    anonymous: true,
    cases: [{ allow: EVERYONE, request: () => ({ url: '/api/health/version' }) }],
  },
  // The probes (server/http/health.ts): for the orchestrator, which holds no credential.
  {
    method: 'GET',
    url: '/api/health/live',
    anonymous: true,
    cases: [{ allow: EVERYONE, request: () => ({ url: '/api/health/live' }) }],
  },
  {
    method: 'GET',
    url: '/api/health/ready',
    anonymous: true,
    cases: [{ allow: EVERYONE, request: () => ({ url: '/api/health/ready' }) }],
  },
  {
    // Prometheus metrics (server/metrics.ts; the matrix sets METRICS_TOKEN): to the bearer of
    // that token only, which no actor holds.
    method: 'GET',
    url: '/metrics',
    anonymous: true,
    cases: [{ allow: NOBODY, everyone: [401], request: () => ({ url: '/metrics' }) }],
  },

  // Workspaces (§1.1).
  {
    method: 'GET',
    url: '/api/workspaces',
    cases: [
      { allow: SIGNED_IN, request: () => ({ url: '/api/workspaces' }) },
      {
        name: 'doc=1',
        allow: SIGNED_IN,
        request: () => ({ url: '/api/workspaces?doc=1' }),
        secret: { ...BELOW_CUT, seenBy: NOBODY },
      },
      {
        // Rule 6.
        name: 'doc=2',
        allow: SIGNED_IN,
        request: () => ({ url: '/api/workspaces?doc=2' }),
        secret: { ...BELOW_CUT, seenBy: W_EDIT },
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/workspace',
    cases: [
      {
        // Creators; others under their workspace limit (wsManager's is 100, the default 0).
        allow: ['creator', 'admin', 'wsManager'],
        request: () => json('POST', '/api/workspace', { name: 'made by authz' }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/workspace/:id',
    cases: [{ allow: W_EDIT, request: (w) => ({ url: `/api/workspace/${w.W}` }) }],
  },
  {
    method: 'PUT',
    url: '/api/workspace',
    cases: [
      { allow: W_EDIT, request: (w) => json('PUT', '/api/workspace', { id: w.W, name: 'W' }) },
    ],
  },
  {
    method: 'PUT',
    url: '/api/workspace/priv',
    cases: [
      {
        allow: ADMIN,
        request: (w) =>
          json('PUT', '/api/workspace/priv', { id: w.W, name: 'W', templateLimit: 100 }),
      },
    ],
  },
  {
    method: 'DELETE',
    url: '/api/workspace/:id',
    cases: [
      {
        allow: W_MANAGE,
        shared: (w) => ({ game: w.G, id: w.W }),
        fresh: async (w) => ({ game: w.G, id: await freshWorkspace(w.server) }),
        intact: (w) => exists(w, 'workspaces', w.W),
        request: (_w, t) => ({ method: 'DELETE', url: `/api/workspace/${t.id}` }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/workspace/:id/clone',
    cases: [
      {
        // ws.CanEdit of the source and allowed to create (stricter than the reference).
        allow: ['wsManager', 'admin'],
        request: (w) => ({ method: 'POST', url: `/api/workspace/${w.W}/clone` }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/workspace/:id/stats',
    cases: [{ allow: W_EDIT, request: (w) => ({ url: `/api/workspace/${w.W}/stats` }) }],
  },
  {
    method: 'DELETE',
    url: '/api/workspace/:id/games',
    cases: [
      {
        allow: W_EDIT,
        shared: (w) => ({ game: w.G, id: w.W }),
        fresh: async (w) => ({ game: w.G, id: await freshWorkspace(w.server) }),
        intact: gActive,
        request: (_w, t) => ({ method: 'DELETE', url: `/api/workspace/${t.id}/games` }),
      },
    ],
  },
  {
    method: 'PUT',
    url: '/api/workspace/:id/invite',
    cases: [
      { allow: W_MANAGE, request: (w) => ({ method: 'PUT', url: `/api/workspace/${w.W}/invite` }) },
    ],
  },
  {
    method: 'POST',
    url: '/api/worker/:code',
    cases: [
      {
        // Anyone signed in who holds the code joins (not a gamespace's agent).
        allow: SIGNED_IN,
        shared: (w) => ({ game: w.G, id: w.W }),
        fresh: async (w) => ({ game: w.G, id: await freshWorkspace(w.server, { workers: false }) }),
        intact: async (w) => {
          const workers = await w.server.app.store.db
            .selectFrom('workers')
            .select('subjectId')
            .where('workspaceId', '=', w.W)
            .execute();
          return workers.length === 2 ? null : `W has ${workers.length} workers`;
        },
        request: async (w, t) => {
          const ws = await w.server.app.store.db
            .selectFrom('workspaces')
            .select('shareCode')
            .where('id', '=', t.id)
            .executeTakeFirstOrThrow();
          return { method: 'POST', url: `/api/worker/${ws.shareCode}` };
        },
      },
    ],
  },
  {
    method: 'DELETE',
    url: '/api/workspace/:id/worker/:subjectId',
    cases: [
      {
        allow: W_MANAGE,
        shared: (w) => ({ game: w.G, id: w.W }),
        fresh: async (w) => ({ game: w.G, id: await freshWorkspace(w.server) }),
        intact: async (w) => {
          const row = await w.server.app.store.db
            .selectFrom('workers')
            .select('subjectId')
            .where('workspaceId', '=', w.W)
            .where('subjectId', '=', w.ids.editor)
            .executeTakeFirst();
          return row ? null : 'the editor was removed from W';
        },
        request: (w, t) => ({
          method: 'DELETE',
          url: `/api/workspace/${t.id}/worker/${w.ids.editor}`,
        }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/workspace-favorites',
    cases: [{ allow: SIGNED_IN, request: () => ({ url: '/api/workspace-favorites' }) }],
  },
  ...(['PUT', 'DELETE'] as const).map((method): PolicyRow => ({
    method,
    url: '/api/workspace-favorite/:workspaceId',
    cases: [
      { allow: SIGNED_IN, request: (w) => ({ method, url: `/api/workspace-favorite/${w.W}` }) },
    ],
  })),
  {
    method: 'GET',
    url: '/api/challenge/:id',
    cases: [{ allow: W_EDIT, request: (w) => ({ url: `/api/challenge/${w.W}` }) }],
  },
  {
    method: 'PUT',
    url: '/api/challenge/:id',
    cases: [{ allow: W_EDIT, request: (w) => json('PUT', `/api/challenge/${w.W}`, w.challenge) }],
  },

  // Templates (§1.3).
  {
    method: 'GET',
    url: '/api/templates',
    cases: [{ allow: SIGNED_IN, request: () => ({ url: '/api/templates' }) }],
  },
  {
    method: 'GET',
    url: '/api/template/:id/siblings',
    cases: [
      {
        // Rule 5: another workspace's unpublished template is nobody's business here (admins
        // see everything anyway).
        allow: W_EDIT,
        request: (w) => ({ url: `/api/template/${w.T}/siblings` }),
        secret: {
          what: "another workspace's unpublished template",
          value: (w) => w.Sx,
          seenBy: NOBODY,
          either: ADMIN,
        },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/template/:id',
    cases: [{ allow: W_EDIT, request: (w) => ({ url: `/api/template/${w.T}` }) }],
  },
  {
    method: 'PUT',
    url: '/api/template',
    cases: [
      {
        allow: W_EDIT,
        request: (w) => json('PUT', '/api/template', { id: w.T, name: 'alpha-box' }),
      },
    ],
  },
  {
    method: 'DELETE',
    url: '/api/template/:id',
    cases: [
      {
        allow: W_EDIT,
        shared: (w) => ({ game: w.G, id: w.T }),
        fresh: async (w) => ({
          game: w.G,
          id: await insertTemplate(w.server, {
            workspaceId: await freshWorkspace(w.server),
            parentId: w.stock,
          }),
        }),
        intact: (w) => exists(w, 'templates', w.T),
        request: (_w, t) => ({ method: 'DELETE', url: `/api/template/${t.id}` }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/template',
    cases: [
      {
        // Linking into a workspace needs ws.CanEdit of it (stricter than the reference).
        allow: W_EDIT,
        shared: (w) => ({ game: w.G, id: w.W }),
        fresh: async (w) => ({ game: w.G, id: await freshWorkspace(w.server) }),
        intact: async (w) => {
          const rows = await w.server.app.store.db
            .selectFrom('templates')
            .select('id')
            .where('workspaceId', '=', w.W)
            .execute();
          return rows.length === 2 ? null : `W has ${rows.length} templates`;
        },
        request: (w, t) =>
          json('POST', '/api/template', { templateId: w.stock, workspaceId: t.id }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/template/unlink',
    cases: [
      {
        allow: W_EDIT,
        shared: (w) => ({ game: w.G, id: w.T, key: w.W }),
        fresh: async (w) => {
          const workspaceId = await freshWorkspace(w.server);
          const id = await insertTemplate(w.server, { workspaceId, parentId: w.stock });
          return { game: w.G, id, key: workspaceId };
        },
        intact: async (w) => {
          const row = await w.server.app.store.db
            .selectFrom('templates')
            .select('isLinked')
            .where('id', '=', w.T)
            .executeTakeFirst();
          return row?.isLinked ? null : 'T was unlinked';
        },
        request: (_w, t) =>
          json('POST', '/api/template/unlink', { templateId: t.id, workspaceId: t.key }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/template/relink',
    cases: [
      {
        name: 'to a sibling of the same workspace',
        allow: W_EDIT,
        shared: (w) => ({ game: w.G, id: w.T, key: w.SW }),
        fresh: async (w) => {
          const workspaceId = await freshWorkspace(w.server);
          const id = await insertTemplate(w.server, { workspaceId, parentId: w.stock });
          const sibling = await insertTemplate(w.server, { workspaceId, parentId: w.stock });
          return { game: w.G, id, key: sibling };
        },
        intact: async (w) => {
          const row = await w.server.app.store.db
            .selectFrom('templates')
            .select('parentId')
            .where('id', '=', w.T)
            .executeTakeFirst();
          return row?.parentId === w.stock ? null : 'T was relinked';
        },
        request: async (w, t) => {
          const row = await w.server.app.store.db
            .selectFrom('templates')
            .select('workspaceId')
            .where('id', '=', t.id)
            .executeTakeFirstOrThrow();
          return json('POST', '/api/template/relink', {
            templateId: t.id,
            parentId: t.key,
            workspaceId: row.workspaceId,
          });
        },
      },
      {
        // Rule 5: not onto another workspace's unpublished template (the policy leaves admins
        // open).
        name: "to another workspace's unpublished sibling",
        allow: NOBODY,
        deny: [400, 401, 403],
        unchecked: ADMIN,
        request: (w) =>
          json('POST', '/api/template/relink', {
            templateId: w.T,
            parentId: w.Sx,
            workspaceId: w.W,
          }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/workspace/:id/templates',
    cases: [{ allow: W_EDIT, request: (w) => ({ url: `/api/workspace/${w.W}/templates` }) }],
  },
  {
    method: 'GET',
    url: '/api/template-detail/:id',
    cases: [{ allow: ADMIN, request: (w) => ({ url: `/api/template-detail/${w.stock}` }) }],
  },
  {
    method: 'POST',
    url: '/api/template-detail',
    cases: [
      {
        allow: ADMIN,
        request: (w) =>
          json('POST', '/api/template-detail', {
            ...w.stockDetail,
            id: newId(),
            name: 'made-by-authz',
          }),
      },
    ],
  },
  {
    method: 'PUT',
    url: '/api/template-detail',
    cases: [{ allow: ADMIN, request: (w) => json('PUT', '/api/template-detail', w.stockDetail) }],
  },
  {
    method: 'POST',
    url: '/api/template/clone',
    cases: [{ allow: ADMIN, request: (w) => json('POST', '/api/template/clone', { id: w.stock }) }],
  },

  // Gamespaces (§1.2).
  {
    method: 'GET',
    url: '/api/gamespaces',
    cases: [
      { allow: SIGNED_IN, request: () => ({ url: '/api/gamespaces' }) },
      {
        name: 'filter=all',
        allow: SIGNED_IN,
        request: () => ({ url: '/api/gamespaces?filter=all' }),
        secret: {
          what: 'gamespace G',
          value: (w) => w.G.id,
          seenBy: ['player', 'apiKey', 'observerIn', 'admin'],
        },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/preview/:id',
    cases: [
      {
        // HasValidUserScope: W's audience matches the scope, or a worker of W.
        allow: ['player', 'apiKey', 'editor', 'wsManager', 'observerIn', 'admin'],
        request: (w) => ({ url: `/api/preview/${w.W}` }),
        secret: { ...BELOW_CUT, seenBy: NOBODY },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/gamespace/:id',
    cases: [
      { name: 'G', allow: G_PLAY_ANY, request: (w) => ({ url: `/api/gamespace/${w.G.id}` }) },
      {
        name: "player's other gamespace",
        allow: P2_ANY,
        request: (w) => ({ url: `/api/gamespace/${w.P2.id}` }),
      },
      {
        name: "otherPlayer's gamespace",
        allow: ['otherPlayer', 'admin'],
        request: (w) => ({ url: `/api/gamespace/${w.H.id}` }),
      },
      {
        // The caller's active gamespace of the workspace, else its preview (HasValidUserScope).
        name: 'a workspace id',
        allow: [
          'player',
          'apiKey',
          'userTicket',
          'userCookie',
          'editor',
          'wsManager',
          'observerIn',
          'admin',
        ],
        request: (w) => ({ url: `/api/gamespace/${w.W}` }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/gamespace',
    cases: [
      {
        name: 'as oneself',
        allow: ['player', 'apiKey', 'observerIn', 'admin'],
        request: (w) => json('POST', '/api/gamespace', { resourceId: w.Wr }),
      },
      {
        // Rule 2: naming someone else (here the admin, who has an active gamespace of Wr).
        name: 'naming another player',
        allow: ADMIN,
        request: (w) =>
          json('POST', '/api/gamespace', {
            resourceId: w.Wr,
            players: [{ subjectId: w.ids.admin, subjectName: 'admin' }],
          }),
      },
    ],
  },
  {
    method: 'PUT',
    url: '/api/gamespace',
    cases: [
      {
        allow: G_MANAGER_ANY,
        request: (w) => json('PUT', '/api/gamespace', { id: w.G.id, expirationTime: inFuture() }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/gamespace/:id/start',
    cases: [
      {
        allow: G_MANAGER_ANY,
        request: (w) => ({ method: 'POST', url: `/api/gamespace/${w.G.id}/start` }),
      },
    ],
  },
  ...(['stop', 'complete'] as const).map((action): PolicyRow => ({
    method: 'POST',
    url: `/api/gamespace/:id/${action}`,
    cases: [
      {
        allow: G_MANAGER_ANY,
        shared: g,
        fresh: playerGame,
        intact: action === 'stop' ? (w) => vmExists(w, w.gVm) : gActive,
        request: (_w, t) => ({ method: 'POST', url: `/api/gamespace/${t.id}/${action}` }),
      },
    ],
  })),
  {
    method: 'DELETE',
    url: '/api/gamespace/:id',
    cases: [
      {
        // gs.CanInteract, and the gamespace allows reset (admins always).
        allow: G_PLAYER,
        shared: g,
        fresh: playerGame,
        intact: (w) => exists(w, 'gamespaces', w.G.id),
        request: (_w, t) => ({ method: 'DELETE', url: `/api/gamespace/${t.id}` }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/gamespace/:id/invite',
    cases: [
      {
        allow: G_MANAGER_ANY,
        request: (w) => ({ method: 'POST', url: `/api/gamespace/${w.G.id}/invite` }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/player/:code',
    cases: [
      {
        allow: SIGNED_IN,
        shared: g,
        fresh: async (w) => {
          const game = await freshGame(w.server, { managerId: w.ids.bystander });
          return { game: w.G, id: game.id };
        },
        intact: async (w) => {
          const rows = await w.server.app.store.db
            .selectFrom('players')
            .select('subjectId')
            .where('gamespaceId', '=', w.G.id)
            .execute();
          return rows.length === 1 ? null : `G has ${rows.length} players`;
        },
        request: async (w, t) => ({
          method: 'POST',
          url: `/api/player/${await inviteCode(w, t.id)}`,
        }),
      },
    ],
  },
  {
    method: 'PUT',
    url: '/api/player/enlist',
    anonymous: true,
    cases: [
      {
        // Anyone holding a gamespace's invitation code (the code is the credential).
        allow: EVERYONE,
        request: async (w) =>
          json('PUT', '/api/player/enlist', {
            code: await inviteCode(w, w.E.id),
            subjectName: 'guest',
          }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/players/:id',
    cases: [{ allow: G_PLAYER, request: (w) => ({ url: `/api/players/${w.G.id}` }) }],
  },
  {
    method: 'DELETE',
    url: '/api/gamespace/:id/player/:subjectId',
    cases: [
      {
        allow: G_PLAYER,
        shared: g,
        fresh: playerGame,
        intact: async (w) => {
          const row = await w.server.app.store.db
            .selectFrom('players')
            .select('subjectId')
            .where('gamespaceId', '=', w.G.id)
            .where('subjectId', '=', w.ids.player)
            .executeTakeFirst();
          return row ? null : 'the player was removed from G';
        },
        request: (w, t) => ({
          method: 'DELETE',
          url: `/api/gamespace/${t.id}/player/${w.ids.player}`,
        }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/gamespace-favorites',
    cases: [{ allow: SIGNED_IN, request: () => ({ url: '/api/gamespace-favorites' }) }],
  },
  ...(['PUT', 'DELETE'] as const).map((method): PolicyRow => ({
    method,
    url: '/api/gamespace-favorite/:id',
    cases: [
      { allow: SIGNED_IN, request: (w) => ({ method, url: `/api/gamespace-favorite/${w.G.id}` }) },
    ],
  })),

  // The real-time hub (§3): a one-time ticket is its credential (G's launch ticket reaches it
  // too: the hub's Listen then holds it to G).
  {
    method: 'POST',
    url: '/hub/negotiate',
    anonymous: true,
    cases: [
      {
        allow: ['userTicket', 'launchTicket'],
        request: () => ({ method: 'POST', url: '/hub/negotiate?negotiateVersion=1' }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/hub',
    anonymous: true,
    cases: [{ allow: ['userTicket', 'launchTicket'], request: () => ({ url: '/hub', ws: true }) }],
  },

  // Grading (§1.2, §4.4).
  {
    method: 'GET',
    url: '/api/gamespace/:id/challenge/progress',
    cases: [
      {
        name: 'G',
        allow: G_PLAY_ANY,
        request: (w) => ({ url: `/api/gamespace/${w.G.id}/challenge/progress` }),
      },
      {
        name: "player's other gamespace",
        allow: P2_ANY,
        request: (w) => ({ url: `/api/gamespace/${w.P2.id}/challenge/progress` }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/gamespace/:id/challenge',
    cases: [
      {
        // Rule 3: observers of the audience see the challenge, without the grader key.
        allow: ['observerIn', 'admin'],
        request: (w) => ({ url: `/api/gamespace/${w.G.id}/challenge` }),
        secret: { what: "G's grader key", value: (w) => w.G.graderKey, seenBy: ADMIN },
      },
    ],
  },
  // Console recordings: observers of the audience and admins replay; the players do not.
  {
    method: 'GET',
    url: '/api/gamespace/:id/recordings',
    cases: [
      {
        allow: ['observerIn', 'admin'],
        request: async (w) => {
          await recordingOfG(w);
          return { url: `/api/gamespace/${w.G.id}/recordings` };
        },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/recording/:id/stream',
    cases: [
      {
        allow: ['observerIn', 'admin'],
        request: async (w) => ({ url: `/api/recording/${await recordingOfG(w)}/stream` }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/gamespace/:id/events',
    cases: [
      {
        // The gamespace browser's rule: observers of the audience and admins; not its players.
        allow: ['observerIn', 'admin'],
        request: (w) => ({ url: `/api/gamespace/${w.G.id}/events` }),
      },
    ],
  },
  // Results (ours): a workspace's table and its CSV for observers of its audience and admins,
  // not its workers; each caller's own games to that caller only.
  {
    method: 'GET',
    url: '/api/workspace/:id/results',
    cases: [
      {
        allow: ['observerIn', 'admin'],
        request: (w) => ({ url: `/api/workspace/${w.W}/results` }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/workspace/:id/results.csv',
    cases: [
      {
        allow: ['observerIn', 'admin'],
        request: (w) => ({ url: `/api/workspace/${w.W}/results.csv` }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/my/results',
    cases: [
      {
        allow: SIGNED_IN,
        request: () => ({ url: '/api/my/results' }),
        secret: { what: 'gamespace G', value: (w) => w.G.id, seenBy: ['player', 'apiKey'] },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/alerts',
    cases: [
      {
        name: 'of W',
        // The event log's rule: observers of the audience and admins; not the players.
        allow: ['observerIn', 'admin'],
        request: (w) => ({ url: `/api/alerts?workspaceId=${w.W}` }),
      },
      {
        name: 'of every workspace',
        // Observers (creators are observers too) all read, each the alerts of workspaces their
        // audience reaches (an empty list when none); everyone else is refused.
        allow: ['observerIn', 'observerOut', 'creator', 'admin'],
        request: () => ({ url: '/api/alerts' }),
      },
    ],
  },
  // Help requests (ours, server/core/helpRequests.ts): G's players raise a hand and cancel it,
  // observers of the audience and admins read the queue, claim and answer.
  {
    method: 'POST',
    url: '/api/gamespace/:id/help',
    cases: [
      {
        // Raising again while one is open answers that one: not destructive.
        allow: G_PLAYER,
        request: (w) => json('POST', `/api/gamespace/${w.G.id}/help`, { message: HELP_MESSAGE }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/gamespace/:id/help',
    cases: [
      {
        allow: [...G_PLAYER, 'observerIn'],
        request: async (w) => {
          await openHelpOf(w, w.G);
          return { url: `/api/gamespace/${w.G.id}/help` };
        },
        secret: {
          what: "G's help message",
          value: () => HELP_MESSAGE,
          seenBy: [...G_PLAYER, 'observerIn'],
        },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/help',
    cases: [
      {
        name: 'W',
        allow: ['observerIn', 'admin'],
        request: async (w) => {
          await openHelpOf(w, w.G);
          return { url: `/api/help?workspaceId=${w.W}` };
        },
      },
      {
        // Every workspace the caller observes: any observer asks, only W's readers see G's.
        name: 'every workspace',
        allow: ['observerIn', 'observerOut', 'creator', 'admin'],
        request: async (w) => {
          await openHelpOf(w, w.G);
          return { url: '/api/help' };
        },
        secret: {
          what: "G's help message",
          value: () => HELP_MESSAGE,
          seenBy: ['observerIn', 'admin'],
        },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/help/workspaces',
    cases: [
      {
        // Any observer asks; only W's readers are told of W (G runs there).
        allow: ['observerIn', 'observerOut', 'creator', 'admin'],
        request: () => ({ url: '/api/help/workspaces' }),
        secret: { what: 'W', value: (w) => w.W, seenBy: ['observerIn', 'admin'] },
      },
    ],
  },
  ...(['claim', 'answer'] as const).map((action): PolicyRow => ({
    method: 'POST',
    url: `/api/help/:id/${action}`,
    cases: [
      {
        allow: ['observerIn', 'admin'],
        shared: (w) => ({ game: w.G, id: 'G-help' }),
        fresh: freshHelp,
        intact: helpIntact,
        request: async (w, t) => {
          const id = t.id === 'G-help' ? await openHelpOf(w, w.G) : t.id;
          return json('POST', `/api/help/${id}/${action}`, { text: 'Try the other NIC.' });
        },
      },
    ],
  })),
  {
    method: 'POST',
    url: '/api/help/:id/cancel',
    cases: [
      {
        allow: G_PLAYER,
        shared: (w) => ({ game: w.G, id: 'G-help' }),
        fresh: freshHelp,
        intact: helpIntact,
        request: async (w, t) => {
          const id = t.id === 'G-help' ? await openHelpOf(w, w.G) : t.id;
          return json('POST', `/api/help/${id}/cancel`, {});
        },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/wall',
    cases: [
      {
        // Observers (creators are observers too) see the running gamespaces of the audiences
        // their scope reaches, administrators all of them; players and their credentials none.
        allow: ['observerIn', 'observerOut', 'creator', 'admin'],
        request: () => ({ url: '/api/wall' }),
        secret: { what: 'G', value: (w) => w.G.id, seenBy: ['observerIn', 'admin'] },
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/gamespace/grade',
    cases: [
      {
        name: 'G',
        allow: G_PLAY_ANY,
        request: (w) =>
          json('POST', '/api/gamespace/grade', {
            id: w.G.id,
            sectionIndex: 0,
            questions: [{ answer: 'wrong' }, { answer: 'wrong' }],
          }),
      },
      {
        // G's launch ticket and cookie answer for G only.
        name: "player's other gamespace",
        allow: P2_ANY,
        request: (w) =>
          json('POST', '/api/gamespace/grade', {
            id: w.P2.id,
            sectionIndex: 0,
            questions: [{ answer: 'wrong' }],
          }),
      },
    ],
  },
  ...(['regrade', 'audit'] as const).map((action): PolicyRow => ({
    method: 'POST',
    url: `/api/gamespace/:id/${action}`,
    cases: [
      {
        allow: G_PLAYER,
        request: (w) => ({ method: 'POST', url: `/api/gamespace/${w.G.id}/${action}` }),
      },
    ],
  })),

  // Administration (§1.8).
  ...(['/api/admin/janitor', '/api/admin/janitor/idlewsvms'] as const).map((url): PolicyRow => ({
    method: 'POST',
    url,
    cases: [{ allow: ADMIN, request: () => json('POST', url, { dryRun: true }) }],
  })),
  {
    method: 'GET',
    url: '/api/admin/live',
    cases: [{ allow: ADMIN, request: () => ({ url: '/api/admin/live' }) }],
  },
  {
    method: 'POST',
    url: '/api/admin/announce',
    cases: [{ allow: ADMIN, request: () => text('POST', '/api/admin/announce', 'hello') }],
  },
  {
    method: 'GET',
    url: '/api/admin/log',
    cases: [{ allow: ADMIN, request: () => ({ url: '/api/admin/log?since=0' }) }],
  },
  {
    method: 'GET',
    url: '/api/admin/hypervisor',
    cases: [{ allow: ADMIN, request: () => ({ url: '/api/admin/hypervisor' }) }],
  },
  // Warm pools (core/pools). A size of 0 and a launch scheduled hours ahead warm nothing, so the
  // matrix's world keeps no pooled machines.
  {
    method: 'GET',
    url: '/api/admin/pools',
    cases: [{ allow: ADMIN, request: () => ({ url: '/api/admin/pools' }) }],
  },
  {
    method: 'GET',
    url: '/api/admin/pools/:id',
    cases: [{ allow: ADMIN, request: (w) => ({ url: `/api/admin/pools/${w.W}` }) }],
  },
  {
    method: 'PUT',
    url: '/api/admin/pools/:id',
    cases: [{ allow: ADMIN, request: (w) => json('PUT', `/api/admin/pools/${w.W}`, { size: 0 }) }],
  },
  {
    method: 'POST',
    url: '/api/admin/pools/:id/schedule',
    cases: [
      {
        allow: ADMIN,
        request: (w) =>
          json('POST', `/api/admin/pools/${w.W}/schedule`, { count: 3, at: inFuture() }),
      },
    ],
  },
  // Workspace archives (issue 17).
  ...(['/api/admin/export', '/api/admin/download'] as const).map((url): PolicyRow => ({
    method: 'POST',
    url,
    cases: [{ allow: ADMIN, request: (w) => json('POST', url, [w.W]) }],
  })),
  {
    method: 'GET',
    url: '/api/admin/import',
    cases: [{ allow: ADMIN, request: () => ({ url: '/api/admin/import' }) }],
  },
  {
    method: 'POST',
    url: '/api/admin/upload',
    cases: [
      {
        allow: ADMIN,
        request: () => ({
          method: 'POST',
          url: '/api/admin/upload',
          ...multipart([{ name: 'files', filename: 'empty.zip', data: EMPTY_ARCHIVE }]),
        }),
      },
    ],
  },
  // Disk images imported into the qemu images folder (issue 31).
  {
    method: 'GET',
    url: '/api/admin/diskimages',
    cases: [{ allow: ADMIN, request: () => ({ url: '/api/admin/diskimages' }) }],
  },
  {
    method: 'POST',
    url: '/api/admin/diskimage',
    cases: [
      {
        allow: ADMIN,
        request: () => json('POST', '/api/admin/diskimage', { name: diskImageName(), size: 512 }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/admin/diskimage/:id',
    cases: [
      {
        allow: ADMIN,
        request: async (w) => ({ url: `/api/admin/diskimage/${await diskUpload(w)}` }),
      },
    ],
  },
  {
    method: 'PUT',
    url: '/api/admin/diskimage/:id/chunk',
    cases: [
      {
        allow: ADMIN,
        request: async (w) => ({
          method: 'PUT',
          url: `/api/admin/diskimage/${await diskUpload(w)}/chunk?offset=0`,
          payload: Buffer.alloc(512),
          headers: { 'content-type': 'application/octet-stream' },
        }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/admin/diskimage/:id/complete',
    cases: [
      {
        allow: ADMIN,
        request: async (w) => ({
          method: 'POST',
          url: `/api/admin/diskimage/${await diskUpload(w, true)}/complete`,
        }),
      },
    ],
  },
  {
    method: 'DELETE',
    url: '/api/admin/diskimage/:id/upload',
    cases: [
      {
        allow: ADMIN,
        request: async (w) => ({
          method: 'DELETE',
          url: `/api/admin/diskimage/${await diskUpload(w)}/upload`,
        }),
      },
    ],
  },
  {
    method: 'DELETE',
    url: '/api/admin/diskimage/:name',
    cases: [
      {
        allow: ADMIN,
        request: (w) => {
          // An image no template names, one per request: refused actors leave theirs.
          const name = diskImageName();
          const dir = join(w.server.dataDir, 'images');
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, name), Buffer.alloc(512));
          return { method: 'DELETE', url: `/api/admin/diskimage/${name}` };
        },
      },
    ],
  },

  // Machines (§1.4): CanManageVm = admin, the gamespace's agent, an observer of the audience, a
  // player or manager of the gamespace (or a worker of the workspace); CanDeleteVm without the
  // agent and observers.
  {
    method: 'GET',
    url: '/api/vms',
    cases: [
      {
        // Observers (creators are observers too), each seeing only machines it may manage.
        allow: ['observerIn', 'observerOut', 'creator', 'admin'],
        request: () => ({ url: '/api/vms' }),
        secret: { what: "G's machine", value: (w) => w.gVm, seenBy: ['observerIn', 'admin'] },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/vm/:id',
    cases: [
      { name: "G's machine", allow: VM_G, request: (w) => ({ url: `/api/vm/${w.gVm}` }) },
      {
        name: "P2's machine",
        allow: ['player', 'apiKey', 'observerIn', 'admin'],
        request: (w) => ({ url: `/api/vm/${w.p2Vm}` }),
      },
    ],
  },
  {
    method: 'PUT',
    url: '/api/vm',
    cases: [
      {
        name: "G's machine",
        allow: VM_G_ANY,
        request: (w) => json('PUT', '/api/vm', { id: w.gVm, type: 'start' }),
      },
      {
        name: "P2's machine",
        allow: VM_P2_ANY,
        request: (w) => json('PUT', '/api/vm', { id: w.p2Vm, type: 'start' }),
      },
    ],
  },
  {
    method: 'DELETE',
    url: '/api/vm/:id',
    cases: [
      {
        allow: G_PLAYER,
        shared: (w) => ({ game: w.G, id: w.gVm }),
        fresh: async (w) => ({ game: w.G, id: await freshVm(w.server, w.G.id) }),
        intact: (w) => vmExists(w, w.gVm),
        request: (_w, t) => ({ method: 'DELETE', url: `/api/vm/${t.id}` }),
      },
    ],
  },
  {
    method: 'PUT',
    url: '/api/vm/:id/change',
    cases: [
      {
        name: 'net: one of its own isolated nets',
        allow: VM_G_ANY,
        request: (w) =>
          json('PUT', `/api/vm/${w.gVm}/change`, { key: 'net', value: `lan#${w.G.id}:0` }),
      },
      {
        name: "iso: one of its workspace's",
        allow: VM_G_ANY,
        request: (w) => json('PUT', `/api/vm/${w.gVm}/change`, { key: 'iso', value: w.isoW }),
      },
      {
        name: 'iso: a public one',
        allow: VM_G_ANY,
        request: (w) => json('PUT', `/api/vm/${w.gVm}/change`, { key: 'iso', value: w.isoPublic }),
      },
      {
        // Rule 4 (the policy leaves admins open here).
        name: "iso: another workspace's",
        allow: NOBODY,
        deny: [400, 401, 403],
        unchecked: ADMIN,
        request: (w) => json('PUT', `/api/vm/${w.gVm}/change`, { key: 'iso', value: w.isoX }),
      },
      {
        // Not an ISO anyone may use, admins included.
        name: 'iso: a path out of the ISO folder',
        allow: NOBODY,
        deny: [400, 401, 403],
        request: (w) =>
          json('PUT', `/api/vm/${w.gVm}/change`, { key: 'iso', value: '../../etc/passwd' }),
      },
    ],
  },
  {
    method: 'PUT',
    url: '/api/vm/:id/answer',
    cases: [
      {
        allow: VM_G_ANY,
        request: (w) => json('PUT', `/api/vm/${w.gVm}/answer`, { questionId: 'q', choiceKey: 'c' }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/vm/:id/isos',
    cases: [
      {
        allow: VM_G_ANY,
        request: (w) => ({ url: `/api/vm/${w.gVm}/isos` }),
        secret: ISO_X,
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/vm/:id/nets',
    cases: [{ allow: VM_G_ANY, request: (w) => ({ url: `/api/vm/${w.gVm}/nets` }) }],
  },
  {
    method: 'GET',
    url: '/api/vm-console/:id',
    cases: [
      {
        name: "G's machine",
        allow: VM_G_ANY,
        request: (w) => ({ url: `/api/vm-console/${w.gVm}` }),
      },
      {
        name: "P2's machine",
        allow: VM_P2_ANY,
        request: (w) => ({ url: `/api/vm-console/${w.p2Vm}` }),
      },
      {
        // Ours: control of a console; an observer only watches.
        name: "control of G's machine",
        allow: VM_G_DRIVE,
        request: (w) => ({ url: `/api/vm-console/${w.gVm}?control=true` }),
      },
    ],
  },
  // The wall's console thumbnails: an observer's view, as the gamespace's event log (not its
  // players: they have the console itself).
  {
    method: 'GET',
    url: '/api/vm/:id/thumbnail',
    cases: [
      {
        name: "G's machine",
        allow: ['observerIn', 'admin'],
        request: (w) => ({ url: `/api/vm/${w.gVm}/thumbnail` }),
      },
    ],
  },
  // The console's clipboard: whoever may open the machine's console; pasting, whoever may drive it.
  {
    method: 'GET',
    url: '/api/vm/:id/clipboard',
    cases: [
      {
        name: "G's machine",
        allow: VM_G_ANY,
        request: (w) => ({ url: `/api/vm/${w.gVm}/clipboard` }),
      },
      {
        name: "P2's machine",
        allow: VM_P2_ANY,
        request: (w) => ({ url: `/api/vm/${w.p2Vm}/clipboard` }),
      },
    ],
  },
  {
    // G's machine runs (the fixture starts it): what its shell copied last.
    method: 'POST',
    url: '/api/vm/:id/clipboard/copy',
    cases: [
      {
        allow: VM_G_ANY,
        request: (w) => ({ method: 'POST', url: `/api/vm/${w.gVm}/clipboard/copy` }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/vm/:id/clipboard/paste',
    cases: [
      {
        name: "G's machine",
        allow: VM_G_DRIVE,
        request: (w) => ({ method: 'POST', url: `/api/vm/${w.gVm}/clipboard/paste` }),
      },
      {
        name: "P2's machine",
        allow: VM_P2_DRIVE,
        request: (w) => ({ method: 'POST', url: `/api/vm/${w.p2Vm}/clipboard/paste` }),
      },
    ],
  },
  // Files into a machine: whoever may drive it from its console (server/core/guestFiles.ts).
  {
    method: 'GET',
    url: '/api/vm/:id/files',
    cases: [
      { name: "G's machine", allow: VM_G_ANY, request: (w) => ({ url: `/api/vm/${w.gVm}/files` }) },
      {
        name: "P2's machine",
        allow: VM_P2_ANY,
        request: (w) => ({ url: `/api/vm/${w.p2Vm}/files` }),
      },
    ],
  },
  {
    method: 'POST',
    url: '/api/vm/:id/files',
    cases: [
      {
        name: "G's machine",
        allow: VM_G_DRIVE,
        request: (w) => ({
          method: 'POST',
          url: `/api/vm/${w.gVm}/files`,
          ...multipart([{ name: 'file', filename: 'notes.txt', data: Buffer.from('notes\n') }]),
        }),
      },
      {
        // Not a name anyone may put, admins included.
        name: 'a name out of the uploads folder',
        allow: NOBODY,
        deny: [400, 401, 403],
        request: (w) => ({
          method: 'POST',
          url: `/api/vm/${w.gVm}/files`,
          ...multipart([{ name: 'file', filename: '../../etc/passwd', data: Buffer.from('x') }]),
        }),
      },
    ],
  },
  ...(['GET', 'POST', 'PUT'] as const).map((method): PolicyRow => ({
    method,
    url: '/api/vm-template/:id',
    cases: [{ allow: W_VM, request: (w) => ({ method, url: `/api/vm-template/${w.T}` }) }],
  })),
  {
    method: 'POST',
    url: '/api/pod/:id',
    cases: [{ allow: ADMIN, request: () => ({ method: 'POST', url: '/api/pod/host1' }) }],
  },
  {
    // The console's WebSocket: its one-time console ticket is the credential. A viewer who also
    // says who they are (the console tab's cookie) must be the one it was handed to: the
    // administrator's ticket opens nothing for a player's cookie.
    method: 'GET',
    url: '/api/console/vnc/:id',
    anonymous: true,
    cases: [
      {
        name: "with an administrator's console ticket",
        allow: EVERYONE.filter((a) => a !== 'userCookie' && a !== 'launchCookie'),
        deny: [403],
        request: async (w) => {
          const reply = await w.send(
            { url: `/api/vm-console/${w.gVm}` },
            await w.credentials('admin', w.G),
          );
          const { url } = JSON.parse(reply.body) as { url: string };
          const { pathname, search } = new URL(url);
          return { url: `${pathname}${search}`, ws: true };
        },
      },
      {
        name: 'without one',
        allow: NOBODY,
        deny: [403],
        request: (w) => ({ url: `/api/console/vnc/${w.gVm}`, ws: true }),
      },
    ],
  },

  // ISO files (§1.6, §4.9).
  {
    method: 'POST',
    url: '/api/file/upload',
    cases: [
      {
        allow: W_EDIT,
        request: (w) => {
          const data = isoBytes();
          return {
            method: 'POST',
            url: '/api/file/upload',
            ...multipart([
              { name: 'meta', value: `size=${data.length}&group-key=${w.W}` },
              { name: 'file', filename: `up-${newId().slice(0, 8)}.iso`, data },
            ]),
          };
        },
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/file/progress/:key',
    cases: [{ allow: SIGNED_IN, request: () => ({ url: '/api/file/progress/some-key' }) }],
  },
  {
    method: 'GET',
    url: '/api/workspace/:id/isos',
    cases: [
      {
        allow: W_EDIT,
        request: (w) => ({ url: `/api/workspace/${w.W}/isos` }),
        secret: ISO_X,
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/workspace/:id/nets',
    cases: [{ allow: W_EDIT, request: (w) => ({ url: `/api/workspace/${w.W}/nets` }) }],
  },
  {
    method: 'GET',
    url: '/api/workspace/:id/iso-usage',
    cases: [
      {
        allow: W_EDIT,
        request: (w) => ({
          url: `/api/workspace/${w.W}/iso-usage?path=${encodeURIComponent(w.isoW)}`,
        }),
      },
    ],
  },
  {
    method: 'DELETE',
    url: '/api/workspace/:id/iso',
    cases: [
      {
        allow: W_EDIT,
        shared: (w) => ({ game: w.G, id: w.W, key: w.isoW }),
        fresh: async (w) => {
          const name = `gone-${newId().slice(0, 8)}.iso`;
          const dir = join(w.server.dataDir, 'isos', w.W);
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, name), isoBytes());
          return { game: w.G, id: w.W, key: `${w.W}/${name}` };
        },
        intact: async (w) =>
          existsSync(join(w.server.dataDir, 'isos', w.isoW)) ? null : "W's ISO is gone",
        request: (_w, t) => ({
          method: 'DELETE',
          url: `/api/workspace/${t.id}/iso?path=${encodeURIComponent(t.key ?? '')}`,
        }),
      },
    ],
  },

  // Documents and images (§1.6).
  ...(['', '/crdt'] as const).map((tail): PolicyRow => ({
    method: 'GET',
    url: `/api/document/:id${tail}`,
    cases: [{ allow: W_EDIT, request: (w) => ({ url: `/api/document/${w.W}${tail}` }) }],
  })),
  {
    method: 'PUT',
    url: '/api/document/:id',
    cases: [{ allow: W_EDIT, request: (w) => text('PUT', `/api/document/${w.W}`, w.document) }],
  },
  {
    method: 'GET',
    url: '/api/images/:id',
    cases: [{ allow: W_EDIT, request: (w) => ({ url: `/api/images/${w.W}` }) }],
  },
  {
    method: 'POST',
    url: '/api/image/:id',
    cases: [
      {
        allow: W_EDIT,
        request: (w) => ({
          method: 'POST',
          url: `/api/image/${w.W}`,
          ...multipart([{ name: 'file', filename: 'pic.png', data: PNG_BYTES }]),
        }),
      },
    ],
  },
  {
    method: 'DELETE',
    url: '/api/image/:id',
    cases: [
      {
        allow: W_EDIT,
        shared: (w) => ({ game: w.G, id: w.W, key: w.image }),
        fresh: async (w) => {
          const reply = await w.send(
            {
              method: 'POST',
              url: `/api/image/${w.W}`,
              ...multipart([{ name: 'file', filename: 'gone.png', data: PNG_BYTES }]),
            },
            await w.credentials('admin', w.G),
          );
          return {
            game: w.G,
            id: w.W,
            key: (JSON.parse(reply.body) as { filename: string }).filename,
          };
        },
        intact: async (w) => {
          const reply = await w.send({ url: `/docs/${w.W}/${w.image}` });
          return reply.status === 200 ? null : "W's image is gone";
        },
        request: (_w, t) => ({
          method: 'DELETE',
          url: `/api/image/${t.id}?filename=${encodeURIComponent(t.key ?? '')}`,
        }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/docs/:workspaceId/:file',
    anonymous: true,
    cases: [{ allow: EVERYONE, request: (w) => ({ url: `/docs/${w.W}/${w.image}` }) }],
  },

  // The API's description and its interactive page (server/http/openapi.ts): for everyone.
  ...(
    [
      ['/api/openapi.json', '/api/openapi.json'],
      ['/api', '/api'],
      ['/api/json', '/api/json'],
      ['/api/yaml', '/api/yaml'],
      ['/api/static/swagger-initializer.js', '/api/static/swagger-initializer.js'],
      ['/api/static/*', '/api/static/swagger-ui.css'],
    ] as const
  ).map(([url, path]): PolicyRow => ({
    method: 'GET',
    url,
    anonymous: true,
    cases: [{ allow: EVERYONE, request: () => ({ url: path }) }],
  })),
  {
    // The page under its other address; Fastify records only the HEAD twin of it.
    method: 'HEAD',
    url: '/api/',
    anonymous: true,
    cases: [{ allow: EVERYONE, request: () => ({ method: 'HEAD', url: '/api/' }) }],
  },
  {
    method: 'GET',
    url: '/api/static/index.html',
    anonymous: true,
    cases: [{ allow: NOBODY, everyone: [302], request: () => ({ url: '/api/static/index.html' }) }],
  },

  // The SPA's settings and page (tests run without a built SPA: the page answers 503).
  {
    method: 'GET',
    url: '/assets/settings.json',
    anonymous: true,
    cases: [{ allow: EVERYONE, request: () => ({ url: '/assets/settings.json' }) }],
  },
  {
    method: 'GET',
    url: '/',
    anonymous: true,
    cases: [{ allow: NOBODY, everyone: [503], request: () => ({ url: '/' }) }],
  },
];

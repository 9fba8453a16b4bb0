import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_NUMBERS, type RoleName } from '../../../server/core/roles';
import { HIDDEN_GRADER_KEY } from '../../../server/core/grading';
import { newId } from '../../../server/core/ids';
import { CSRF_HEADER } from '../../../server/http/security';
import { createAccount } from '../../../server/identity';
import { testEngines } from '../databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { apiKey, connect, type Client } from '../hubClients';
import { signIn } from '../oidc';
import { apiRequest, type Json, type Reply } from '../api';

// Who a credential stands for, and how far it reaches (issue: "close an impersonation hole"):
// registering other people, launch tickets and the console cookie made from them, grader keys,
// the grader key hidden from observers, ISO paths, sibling templates, the hidden part of the
// guide, a malformed cookie, and hub groups left when the right to them ends.

const GRADER_KEY = 'a-grader-key-for-the-tests';

const CHALLENGE = {
  text: 'Find the flag.',
  transforms: [
    { key: 'flag', value: 'hex:12' },
    { key: 'agentkey', value: 'grader_key' },
  ],
  variants: [
    {
      text: 'The agent uses ##agentkey##.',
      iso: null,
      sections: [
        {
          name: 'Only',
          text: '',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [{ text: 'The flag?', answer: '##flag##', weight: 100 }],
        },
      ],
    },
  ],
};

describe.each(testEngines())('credentials and their reach on %s', (engine) => {
  let server: TestServer;
  const users: Record<string, { id: string; headers: Record<string, string> }> = {};
  const clients: Client[] = [];
  let workspaceId = '';
  let otherWorkspaceId = '';
  /** The player's gamespace, launched with GRADER_KEY. */
  let game: Json;
  /** The friend's gamespace. */
  let friendGame: Json;

  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, users[who]!.headers, method, path, body);
  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  async function addUser(username: string, role: RoleName, scope = '') {
    const db = server.app.store.db;
    if (!['admin', 'creator', 'observer', 'player'].includes(username)) {
      await createAccount(db, { username, name: username, password: SEED_PASSWORD });
      const { accessToken } = await signIn(server.url, username, SEED_PASSWORD);
      const registered = await apiRequest(
        server.url,
        { authorization: `Bearer ${accessToken}` },
        'POST',
        '/user/register',
      );
      expect(registered.status).toBe(200);
    }
    const id = await server.userId(username);
    await db
      .updateTable('users')
      .set({ role: ROLE_NUMBERS[role], scope, gamespaceLimit: 0 })
      .where('id', '=', id)
      .execute();
    users[username] = { id, headers: apiKey(await server.apiKeyFor(username)) };
  }

  async function template(
    wsId: string | null,
    name: string,
    fields: { parentId?: string; isPublished?: 0 | 1; iso?: string } = {},
  ): Promise<string> {
    const id = newId();
    await server.app.store.db
      .insertInto('templates')
      .values({
        id,
        name,
        description: '',
        audience: '',
        iso: fields.iso ?? '',
        networks: 'lan',
        guestinfo: '',
        isHidden: 0,
        isPublished: fields.isPublished ?? 0,
        isLinked: 0,
        detail: null,
        parentId: fields.parentId ?? null,
        replicas: 1,
        variant: 0,
        workspaceId: wsId,
        whenCreated: Date.now(),
      })
      .execute();
    return id;
  }

  function isoFile(folder: string, name: string) {
    mkdirSync(join(server.dataDir, 'isos', folder), { recursive: true });
    writeFileSync(join(server.dataDir, 'isos', folder, name), 'iso');
  }

  /** The topomojo.mks cookie that POST /api/user/login sets for a ticket. */
  async function cookieOf(ticket: string): Promise<Record<string, string>> {
    const login = await apiRequest(
      server.url,
      { authorization: `Ticket ${ticket}` },
      'POST',
      '/user/login',
    );
    expect(login.status, login.text).toBe(200);
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('topomojo.mks='));
    expect(cookie).toBeDefined();
    // As the console page sends it: changes made with the cookie need the CSRF header.
    return { cookie: cookie!.split(';')[0]!, [CSRF_HEADER]: 'XMLHttpRequest' };
  }

  const launchTicket = (state: Json) => new URL(state.launchpointUrl).searchParams.get('t')!;

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    await addUser('admin', 'administrator');
    await addUser('creator', 'creator');
    await addUser('observer', 'observer', 'blue');
    await addUser('player', 'user');
    await addUser('friend', 'user');
    await addUser('registrar', 'user');
    await server.app.store.db
      .updateTable('users')
      .set({ registrar: 1 })
      .where('id', '=', users.registrar!.id)
      .execute();

    const ws = await ok(
      call('creator', 'POST', '/workspace', { name: 'Lab', audience: 'everyone blue' }),
    );
    workspaceId = ws.id;
    await ok(call('creator', 'PUT', `/challenge/${workspaceId}`, CHALLENGE));
    mkdirSync(join(server.dataDir, 'docs'), { recursive: true });
    writeFileSync(
      join(server.dataDir, 'docs', `${workspaceId}.md`),
      'Welcome.\n<!-- cut -->\nThe secret part.',
    );
    await template(workspaceId, 'kali');
    const other = await ok(call('admin', 'POST', '/workspace', { name: 'Elsewhere' }));
    otherWorkspaceId = other.id;

    game = await ok(
      call('player', 'POST', '/gamespace', {
        resourceId: workspaceId,
        startGamespace: true,
        graderKey: GRADER_KEY,
        players: [{ subjectId: users.player!.id, subjectName: 'player' }],
      }),
    );
    friendGame = await ok(
      call('friend', 'POST', '/gamespace', { resourceId: workspaceId, startGamespace: true }),
    );
    expect(game.vms.length).toBe(1);
    expect(friendGame.id).not.toBe(game.id);
  }, 90_000);

  afterAll(async () => {
    for (const c of clients) await c.stop();
    await server?.close();
  });

  it('refuses a player who names anyone else, so nobody receives another one’s game or ticket', async () => {
    for (const subjectId of [users.admin!.id, users.player!.id]) {
      const named = await call('friend', 'POST', '/gamespace', {
        resourceId: workspaceId,
        players: [{ subjectId, subjectName: 'someone' }],
      });
      expect(named.status).toBe(403);
      expect(named.text).toBe('');
    }
    // Naming oneself is fine, and answers one's own game.
    const own = await ok(
      call('friend', 'POST', '/gamespace', {
        resourceId: workspaceId,
        players: [{ subjectId: users.friend!.id, subjectName: 'friend' }],
      }),
    );
    expect(own.id).toBe(friendGame.id);
  });

  it('lets admins and registrar accounts register other people', async () => {
    const byRegistrar = await ok(
      call('registrar', 'POST', '/gamespace', {
        resourceId: workspaceId,
        players: [{ subjectId: users.player!.id, subjectName: 'player' }],
      }),
    );
    // The player's active game of the workspace, as the reference answers.
    expect(byRegistrar.id).toBe(game.id);
    expect((await call('registrar', 'GET', '/user')).body.isRegistrar).toBe(true);
    expect((await call('friend', 'GET', '/user')).body.isRegistrar).toBe(false);
  });

  it('holds a launch ticket, and the cookie made from it, to its gamespace', async () => {
    const state = await ok(
      call('admin', 'POST', '/gamespace', {
        resourceId: workspaceId,
        players: [{ subjectId: users.player!.id, subjectName: 'player' }],
      }),
    );
    expect(state.id).toBe(game.id);
    const cookie = await cookieOf(launchTicket(state));
    const as = (method: string, path: string, body?: unknown) =>
      apiRequest(server.url, cookie, method, path, body);

    expect((await as('GET', `/gamespace/${game.id}`)).status).toBe(200);
    expect((await as('GET', `/gamespace/${game.id}/challenge/progress`)).status).toBe(200);
    expect((await as('GET', `/vm-console/${game.vms[0].id}`)).status).toBe(200);
    expect((await as('POST', '/user/login')).status).toBe(200);
    expect((await as('GET', '/user/ping')).status).toBe(200);

    // Another gamespace, its machines, or anything else the player could reach: refused.
    expect((await as('GET', `/gamespace/${friendGame.id}`)).status).toBe(403);
    expect((await as('GET', `/vm-console/${friendGame.vms[0].id}`)).status).toBe(403);
    expect((await as('PUT', '/vm', { id: friendGame.vms[0].id, type: 'stop' })).status).toBe(403);
    expect((await as('GET', `/gamespace/${workspaceId}`)).status).toBe(403);
    // Routes of the default policy never took cookies.
    expect((await as('GET', '/gamespaces')).status).toBe(401);
  });

  it('gives an admin’s launch ticket none of the admin’s powers', async () => {
    const state = await ok(
      call('admin', 'POST', '/gamespace', {
        resourceId: otherWorkspaceId,
        players: [{ subjectId: users.admin!.id, subjectName: 'admin' }],
      }),
    );
    const cookie = await cookieOf(launchTicket(state));
    // With a full credential the admin reads any game; the launch cookie reads only its own.
    expect((await call('admin', 'GET', `/gamespace/${friendGame.id}`)).status).toBe(200);
    expect(
      (await apiRequest(server.url, cookie, 'GET', `/gamespace/${friendGame.id}`)).status,
    ).toBe(403);
    expect((await apiRequest(server.url, cookie, 'GET', `/gamespace/${state.id}`)).status).toBe(
      200,
    );
    const user = await apiRequest(server.url, cookie, 'GET', '/user');
    expect(user.status).toBe(401);
  });

  it('holds an enlisted guest’s ticket to the gamespace it joined', async () => {
    const invite = await ok(call('player', 'POST', `/gamespace/${game.id}/invite`));
    const enlisted = await ok(
      apiRequest(server.url, {}, 'PUT', '/player/enlist', {
        code: invite.code,
        subjectName: 'Guest',
      }),
    );
    const cookie = await cookieOf(enlisted.token);
    expect((await apiRequest(server.url, cookie, 'GET', `/gamespace/${game.id}`)).status).toBe(200);
    expect(
      (await apiRequest(server.url, cookie, 'GET', `/gamespace/${friendGame.id}`)).status,
    ).toBe(403);
    // The guest's subject has an id of its own, not its ticket (tests/server/security/guests).
    const players = await ok(call('player', 'GET', `/players/${game.id}`));
    const guest = players.find((p: Json) => p.subjectName === 'Guest');
    await ok(call('player', 'DELETE', `/gamespace/${game.id}/player/${guest.subjectId}`));
    expect((await apiRequest(server.url, cookie, 'GET', `/gamespace/${game.id}`)).status).toBe(403);
  });

  it('holds the grader key, and its tickets, to its own gamespace', async () => {
    const agent = apiKey(GRADER_KEY);
    expect((await apiRequest(server.url, agent, 'GET', `/gamespace/${game.id}`)).status).toBe(200);
    expect((await apiRequest(server.url, agent, 'GET', `/gamespace/${friendGame.id}`)).status).toBe(
      403,
    );
    expect((await apiRequest(server.url, agent, 'GET', '/workspaces')).status).toBe(403);
    expect((await apiRequest(server.url, agent, 'GET', `/workspace/${workspaceId}`)).status).toBe(
      403,
    );
    expect((await apiRequest(server.url, agent, 'POST', '/user/register')).status).toBe(403);

    const ticket = (await ok(apiRequest(server.url, agent, 'GET', '/user/ticket'))).ticket;
    const byTicket = await apiRequest(
      server.url,
      {},
      'GET',
      `/gamespace/${game.id}?ticket=${ticket}`,
    );
    expect(byTicket.status).toBe(200);

    // On the hub, the agent listens on its gamespace and nowhere else.
    const client = await connect(server.url, agent);
    clients.push(client);
    await client.connection.invoke('Listen', game.id);
    await expect(client.connection.invoke('Listen', friendGame.id)).rejects.toThrow(
      /ActionForbidden/,
    );
    await expect(client.connection.invoke('Listen', workspaceId)).rejects.toThrow(
      /ActionForbidden/,
    );
  });

  it('hides the grader key from observers, not from admins', async () => {
    const observed = await call('observer', 'GET', `/gamespace/${game.id}/challenge`);
    expect(observed.status).toBe(200);
    expect(observed.text).not.toContain(GRADER_KEY);
    const shown = (t: Json) => t.key === 'agentkey';
    expect(observed.body.transforms.find(shown).value).toBe(HIDDEN_GRADER_KEY);
    expect(observed.body.challenge.text).toBe(`The agent uses ${HIDDEN_GRADER_KEY}.`);

    const admin = await ok(call('admin', 'GET', `/gamespace/${game.id}/challenge`));
    expect(admin.transforms.find(shown).value).toBe(GRADER_KEY);
  });

  it('keeps a registration’s maxAttempts 0 (unlimited) and points 0', async () => {
    const state = await ok(
      call('creator', 'POST', '/gamespace', { resourceId: workspaceId, maxAttempts: 0, points: 0 }),
    );
    const specOf = async (id: string) => {
      const row = await server.app.store.db
        .selectFrom('gamespaces')
        .select('challenge')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return JSON.parse(row.challenge);
    };
    expect(await specOf(state.id)).toMatchObject({ maxAttempts: 0, maxPoints: 0 });
    // Absent and null still mean the defaults.
    const defaults = await ok(
      call('admin', 'POST', '/gamespace', { resourceId: workspaceId, maxAttempts: null }),
    );
    expect(await specOf(defaults.id)).toMatchObject({ maxAttempts: 3, maxPoints: 100 });
  });

  it('mounts only the ISOs of the machine’s workspace and the public ones', async () => {
    isoFile(workspaceId, 'tools.iso');
    isoFile(otherWorkspaceId, 'private.iso');
    isoFile('00000000-0000-0000-0000-000000000000', 'public.iso');
    const vm = game.vms[0].id;
    const options = await ok(call('player', 'GET', `/vm/${vm}/isos`));
    expect(options.iso).toEqual(
      expect.arrayContaining([
        `${workspaceId}/tools.iso`,
        '00000000-0000-0000-0000-000000000000/public.iso',
      ]),
    );
    expect(options.iso).not.toContain(`${otherWorkspaceId}/private.iso`);

    for (const value of ['../../etc/passwd', `${otherWorkspaceId}/private.iso`, '/etc/passwd']) {
      const refused = await call('player', 'PUT', `/vm/${vm}/change`, { key: 'iso', value });
      expect(refused.status, value).toBe(400);
      expect(refused.body).toEqual({ message: 'ActionForbidden' });
    }
    await ok(
      call('player', 'PUT', `/vm/${vm}/change`, {
        key: 'iso',
        value: `${workspaceId}/tools.iso:Tools`,
      }),
    );
    // Ejecting is always allowed.
    await ok(call('player', 'PUT', `/vm/${vm}/change`, { key: 'iso', value: '' }));
    // Admins mount any file of the store, nothing outside it.
    await ok(
      call('admin', 'PUT', `/vm/${vm}/change`, {
        key: 'iso',
        value: `${otherWorkspaceId}/private.iso`,
      }),
    );
    for (const value of ['../../etc/passwd', '/etc/passwd', `${workspaceId}/../x.iso`]) {
      const refused = await call('admin', 'PUT', `/vm/${vm}/change`, { key: 'iso', value });
      expect(refused.status, value).toBe(400);
    }
  });

  it('relinks and lists siblings only within the workspace or among published templates', async () => {
    const stock = await template(null, 'stock', { isPublished: 1 });
    const mine = await template(workspaceId, 'mine', { parentId: stock });
    const sameWorkspace = await template(workspaceId, 'mine-v2', { parentId: stock });
    const foreign = await template(otherWorkspaceId, 'theirs', { parentId: stock });
    const published = await template(otherWorkspaceId, 'shared', {
      parentId: stock,
      isPublished: 1,
    });

    const siblings = await ok(call('creator', 'GET', `/template/${mine}/siblings`));
    const ids = siblings.map((t: Json) => t.id);
    expect(ids).toEqual(expect.arrayContaining([sameWorkspace, published]));
    expect(ids).not.toContain(foreign);

    const relink = (parentId: string) =>
      call('creator', 'POST', '/template/relink', { templateId: mine, parentId, workspaceId });
    const refused = await relink(foreign);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'TemplateNotPublished' });
    expect((await ok(relink(sameWorkspace))).parentId).toBe(sameWorkspace);
  });

  it('lists the hidden part of the guide (doc=2) only to those who may edit', async () => {
    const markdownOf = async (who: string) => {
      const list = await ok(call(who, 'GET', '/workspaces?doc=2'));
      return list.find((w: Json) => w.id === workspaceId)?.text as string;
    };
    expect(await markdownOf('player')).toBe('Welcome.\n');
    expect(await markdownOf('creator')).toContain('The secret part.');
    expect(await markdownOf('admin')).toContain('The secret part.');
  });

  it('ignores a console cookie that is not valid percent-encoding', async () => {
    const headers = { ...users.player!.headers, cookie: 'topomojo.mks=%E0%A4%A' };
    expect((await apiRequest(server.url, headers, 'GET', '/workspaces')).status).toBe(200);
    expect((await apiRequest(server.url, headers, 'GET', `/gamespace/${game.id}`)).status).toBe(
      200,
    );
    const cookieOnly = await apiRequest(
      server.url,
      { cookie: 'topomojo.mks=%E0%A4%A' },
      'GET',
      '/user/ping',
    );
    expect(cookieOnly.status).toBe(401);
  });

  it('takes a removed player out of the gamespace’s hub group at once', async () => {
    const invite = await ok(call('player', 'POST', `/gamespace/${game.id}/invite`));
    await ok(call('friend', 'POST', `/player/${invite.code}`));
    const manager = await connect(server.url, users.player!.headers);
    const removed = await connect(server.url, users.friend!.headers);
    clients.push(manager, removed);
    await manager.connection.invoke('Listen', game.id);
    await removed.connection.invoke('Listen', game.id);

    await ok(call('player', 'DELETE', `/gamespace/${game.id}/player/${users.friend!.id}`));
    // The others see the removed player leave the group.
    await manager.next(
      (e) =>
        e.name === 'PresenceEvent' &&
        e.payload.action === 'PRESENCE.DEPARTED' &&
        e.payload.actor.id === users.friend!.id,
    );
    // A later event of the gamespace reaches the manager, not the removed player (the same
    // server writes both in one pass, so it would have arrived by now).
    const expiration = new Date(Date.now() + 3_600_000).toISOString();
    await ok(call('player', 'PUT', '/gamespace', { id: game.id, expirationTime: expiration }));
    await manager.next(
      (e) =>
        e.name === 'GameEvent' &&
        e.payload.model?.expirationTime?.startsWith(expiration.slice(0, 16)),
    );
    expect(
      removed.events.some(
        (e) =>
          e.name === 'GameEvent' &&
          e.payload.model?.expirationTime?.startsWith(expiration.slice(0, 16)),
      ),
    ).toBe(false);
    await expect(removed.connection.invoke('Listen', game.id)).rejects.toThrow(/ActionForbidden/);
  });

  it('takes a removed worker out of the workspace’s hub group', async () => {
    const share = await ok(call('creator', 'PUT', `/workspace/${workspaceId}/invite`));
    await ok(call('friend', 'POST', `/worker/${share.code}`));
    const worker = await connect(server.url, users.friend!.headers);
    const owner = await connect(server.url, users.creator!.headers);
    clients.push(worker, owner);
    await worker.connection.invoke('Listen', workspaceId);
    await owner.connection.invoke('Listen', workspaceId);
    await ok(call('creator', 'DELETE', `/workspace/${workspaceId}/worker/${users.friend!.id}`));
    await owner.next(
      (e) =>
        e.name === 'PresenceEvent' &&
        e.payload.action === 'PRESENCE.DEPARTED' &&
        e.payload.actor.id === users.friend!.id,
    );
    await expect(worker.connection.invoke('Listen', workspaceId)).rejects.toThrow(
      /ActionForbidden/,
    );
  });

  it('takes everyone out of a deleted gamespace’s group', async () => {
    const owner = await connect(server.url, users.friend!.headers);
    const admin = await connect(server.url, users.admin!.headers);
    clients.push(owner, admin);
    await owner.connection.invoke('Listen', friendGame.id);
    await admin.connection.invoke('Listen', friendGame.id);
    await ok(call('admin', 'DELETE', `/gamespace/${friendGame.id}`));
    await admin.next(
      (e) =>
        e.name === 'PresenceEvent' &&
        e.payload.action === 'PRESENCE.DEPARTED' &&
        e.payload.actor.id === users.friend!.id,
    );
  });

  it('closes the hub connections of a user who is disabled', async () => {
    const client = await connect(server.url, users.registrar!.headers);
    clients.push(client);
    await client.connection.invoke('Listen', workspaceId).catch(() => undefined);
    const closed = new Promise<void>((resolve) => client.connection.onclose(() => resolve()));
    await server.app.store.db
      .updateTable('users')
      .set({ role: ROLE_NUMBERS.disabled })
      .where('id', '=', users.registrar!.id)
      .execute();
    // As POST /api/user does when it disables someone (tests/server/users covers the route).
    server.app.hub.revoke({ subjectId: users.registrar!.id });
    await closed;
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketKey, ticketValue } from '../../server/core/tickets';
import { ROLE_NUMBERS, type RoleName } from '../../server/core/roles';
import { newId, sha256Hex } from '../../server/core/ids';
import { DEFAULT_GAMESPACE_MINUTES, EXTENSION_MINUTES } from '../../src/domain/gameLength';
import { LAUNCH_TICKET_MS } from '../../server/core/play/service';
import { createAccount } from '../../server/identity';
import { testEngines } from './databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { apiKey, connect, type Client } from './hubClients';
import { signIn } from './oidc';

// Playing a workspace through the real server and the sim driver (wire reference §1.2, §4.2,
// §4.5, §4.7): launch, reuse, limits and the launch lock, deploy by variant and replicas, the
// game state before and after the start, start/stop/complete, delete, invitations, players and
// favorites, and who may do each of these.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Reply {
  status: number;
  text: string;
  body: Json;
}

async function request(
  url: string,
  headers: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<Reply> {
  const res = await fetch(`${url}/api${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': contentType },
    body: body === undefined ? undefined : JSON.stringify(body),
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

const CHALLENGE = {
  text: 'Find the flags.',
  transforms: [
    { key: 'flag', value: 'hex:12' },
    { key: 'gid', value: 'id' },
  ],
  variants: [
    {
      text: 'Variant one: ##flag##',
      iso: { file: 'challenge.iso', targets: 'kali', manifest: [] },
      sections: [
        {
          name: 'First',
          text: 'Section one',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [
            { text: 'The flag?', answer: '##flag##', weight: 60, grader: 'match' },
            { text: 'Hidden', answer: 'x', weight: 0, hidden: true },
          ],
        },
        {
          name: 'Second',
          text: 'Section two',
          preReqPrevSection: 0.5,
          preReqTotal: 0,
          questions: [{ text: 'More?', answer: 'y', weight: 20 }],
        },
      ],
    },
    { text: 'Variant two', sections: [], iso: null },
  ],
};

const DOCUMENT = 'Welcome aboard.\n<!-- cut -->\nThe secret part.';

describe.each(testEngines())('play on %s', (engine) => {
  let server: TestServer;
  const users: Record<string, { id: string; headers: Record<string, string> }> = {};
  const clients: Client[] = [];
  let workspaceId = '';
  let restrictedId = '';

  const call = (who: string, method: string, path: string, body?: unknown) =>
    request(server.url, users[who]!.headers, method, path, body);

  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  async function addUser(username: string, role: RoleName, scope = '', gamespaceLimit = 0) {
    const db = server.app.store.db;
    if (!['admin', 'creator', 'observer', 'player'].includes(username)) {
      await createAccount(db, { username, name: username, password: SEED_PASSWORD });
      const { accessToken } = await signIn(server.url, username, SEED_PASSWORD);
      const registered = await request(
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
      .set({ role: ROLE_NUMBERS[role], scope, gamespaceLimit })
      .where('id', '=', id)
      .execute();
    users[username] = { id, headers: apiKey(await server.apiKeyFor(username)) };
  }

  async function template(
    wsId: string,
    name: string,
    extra: { variant?: number; replicas?: number; isHidden?: 0 | 1; guestinfo?: string } = {},
  ) {
    await server.app.store.db
      .insertInto('templates')
      .values({
        id: newId(),
        name,
        description: '',
        audience: '',
        iso: '',
        networks: 'lan',
        guestinfo: extra.guestinfo ?? '',
        isHidden: extra.isHidden ?? 0,
        isPublished: 0,
        isLinked: 0,
        detail: null,
        parentId: null,
        replicas: extra.replicas ?? 1,
        variant: extra.variant ?? 0,
        workspaceId: wsId,
        whenCreated: Date.now(),
      })
      .execute();
  }

  async function workspace(name: string, audience: string): Promise<string> {
    const ws = await ok(call('creator', 'POST', '/workspace', { name, audience }));
    await ok(call('creator', 'PUT', `/challenge/${ws.id}`, CHALLENGE));
    mkdirSync(join(server.dataDir, 'docs'), { recursive: true });
    writeFileSync(join(server.dataDir, 'docs', `${ws.id}.md`), DOCUMENT);
    return ws.id;
  }

  const row = (id: string) =>
    server.app.store.db
      .selectFrom('gamespaces')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  /** A launch by `who` of the main workspace, first variant. */
  const launch = (who: string, extra: Record<string, unknown> = {}) =>
    call(who, 'POST', '/gamespace', { resourceId: workspaceId, variant: 1, ...extra });

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    await addUser('admin', 'administrator');
    await addUser('creator', 'creator');
    await addUser('observer', 'observer');
    await addUser('player', 'user');
    await addUser('friend', 'user');
    await addUser('stranger', 'user', 'outsiders');
    await addUser('limited', 'user', '', 1);
    workspaceId = await workspace('Lab One', 'everyone');
    restrictedId = await workspace('Team Lab', 'red-team');
    await template(workspaceId, 'kali', { replicas: 2, guestinfo: 'flag=##flag##' });
    await template(workspaceId, 'server_v1', { variant: 1 });
    await template(workspaceId, 'other_v2', { variant: 2 });
    await template(workspaceId, 'grader', { isHidden: 1 });
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.stop();
    await server?.close();
  });

  it('launches a started gamespace with the variant, replicas and challenge resolved', async () => {
    const graderKey = 'grader-key-of-player';
    const state = await ok(
      launch('player', {
        startGamespace: true,
        graderKey,
        maxAttempts: 2,
        players: [{ subjectId: users.player!.id, subjectName: 'Player' }],
      }),
    );
    expect(state.launchpointUrl).toMatch(
      new RegExp(`^${server.url}/lp\\?t=[0-9a-f]{32}&g=${state.id}$`),
    );
    expect(state.isActive).toBe(true);
    expect(state.variant).toBe(0);
    expect(state.markdown).toBe(DOCUMENT);
    // Replicas named _1.._n, the variant suffix removed, the other variant's and hidden ones left out.
    expect(state.vms.map((vm: Json) => vm.name)).toEqual(['kali_1', 'kali_2', 'server']);
    expect(state.vms.every((vm: Json) => vm.isolationId === state.id && vm.isVisible)).toBe(true);
    expect(state.players).toEqual([
      {
        gamespaceId: state.id,
        subjectId: users.player!.id,
        subjectName: 'Player',
        permission: 'manager',
        isManager: true,
      },
    ]);
    // The hidden template's machine is deployed, only not listed.
    const machines = await server.app.driver.find(state.id);
    expect(machines.map((vm) => vm.name.split('#')[0]).sort()).toEqual([
      'grader',
      'kali_1',
      'kali_2',
      'server',
    ]);

    const stored = await row(state.id);
    expect(stored.graderKey).toBe(sha256Hex(graderKey));
    expect(stored.challenge).not.toContain('##');
    const spec = JSON.parse(stored.challenge);
    const flag = spec.transforms.find((t: Json) => t.key === 'flag').value;
    expect(flag).toMatch(/^[0-9a-f]{12}$/);
    expect(spec.transforms.find((t: Json) => t.key === 'gid').value).toBe(state.id);
    expect(spec.challenge.sections[0].questions[0].answer).toBe(flag);
    expect(spec.maxPoints).toBe(100);
    expect(spec.maxAttempts).toBe(2);

    // The challenge view: one section, hidden questions left out, weights in points.
    expect(state.challenge).toMatchObject({
      text: `Find the flags.\n\nVariant one: ${flag}`,
      maxPoints: 100,
      maxAttempts: 2,
      attempts: 0,
      score: 0,
      sectionCount: 2,
      sectionIndex: 0,
      sectionText: 'Section one',
    });
    expect(state.challenge.questions).toHaveLength(1);
    expect(state.challenge.questions[0]).toMatchObject({ weight: 60, answer: '' });

    // The launch ticket signs in the first player for 180 s, for this gamespace only.
    const token = new URL(state.launchpointUrl).searchParams.get('t')!;
    expect(await server.app.cache.get(ticketKey(token))).toBe(
      ticketValue({ id: users.player!.id, name: 'Player', gamespaceId: state.id }),
    );
    expect(LAUNCH_TICKET_MS).toBe(180_000);

    // The grader key reads its own gamespace; the workspace counted the launch.
    const agent = await request(server.url, apiKey(graderKey), 'GET', `/gamespace/${state.id}`);
    expect(agent.status).toBe(200);
    const ws = await server.app.store.db
      .selectFrom('workspaces')
      .select('launchCount')
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    expect(ws.launchCount).toBe(1);
  });

  it('reuses the active gamespace of the same workspace and player', async () => {
    const first = await ok(launch('player'));
    const again = await ok(launch('player'));
    expect(again.id).toBe(first.id);
  });

  it('shows only the document above the cut and no challenge before the start', async () => {
    const state = await ok(launch('friend', { maxAttempts: null }));
    expect(state.isActive).toBe(false);
    expect(state.markdown).toBe('Welcome aboard.\n');
    expect(state.challenge).toBeNull();
    expect(state.vms).toEqual([]);
    expect(state.players.map((p: Json) => p.subjectId)).toEqual([users.friend!.id]);
    expect(JSON.parse((await row(state.id)).challenge).maxAttempts).toBe(3);

    const started = await ok(call('friend', 'POST', `/gamespace/${state.id}/start`));
    expect(started.isActive).toBe(true);
    expect(started.markdown).toBe(DOCUMENT);
    expect(started.challenge.sectionCount).toBe(2);
  });

  it('previews the whole document and challenge when the registration allows it', async () => {
    await addUser('previewer', 'user');
    const state = await ok(launch('previewer', { allowPreview: true }));
    expect(state.isActive).toBe(false);
    expect(state.markdown).toBe(DOCUMENT);
    expect(state.challenge.sectionCount).toBe(2);
    // Not stored: loading it again shows the part above the cut.
    const loaded = await ok(call('previewer', 'GET', `/gamespace/${state.id}`));
    expect(loaded.markdown).toBe('Welcome aboard.\n');
  });

  it('refuses a launch beyond the gamespace limit', async () => {
    const first = await ok(launch('limited', { startGamespace: true }));
    expect(first.isActive).toBe(true);
    const other = await call('limited', 'POST', '/gamespace', {
      resourceId: restrictedId,
    });
    // Outside the audience first: 403; with the audience, the limit.
    expect(other.status).toBe(403);
    await server.app.store.db
      .updateTable('users')
      .set({ scope: 'red-team' })
      .where('id', '=', users.limited!.id)
      .execute();
    const limited = await call('limited', 'POST', '/gamespace', { resourceId: restrictedId });
    expect(limited.status).toBe(400);
    expect(limited.body).toEqual({ message: 'ClientGamespaceLimitReached' });
  });

  it('refuses a second launch while one holds the lock', async () => {
    await addUser('racer', 'user');
    await server.app.cache.setIfAbsent(`:lck:${users.racer!.id}${workspaceId}`, 'x', 60_000);
    const locked = await launch('racer');
    expect(locked.status).toBe(400);
    expect(locked.body).toEqual({ message: 'ResourceIsLocked' });
    await server.app.cache.delete(`:lck:${users.racer!.id}${workspaceId}`);
    expect((await launch('racer')).status).toBe(200);
  });

  it('lets only the audience, workers and admins launch or preview a workspace', async () => {
    expect(
      (await call('stranger', 'POST', '/gamespace', { resourceId: restrictedId })).status,
    ).toBe(403);
    expect((await call('stranger', 'GET', `/preview/${restrictedId}`)).status).toBe(403);
    const preview = await ok(call('creator', 'GET', `/preview/${restrictedId}`));
    expect(preview).toMatchObject({ id: null, name: 'Team Lab', markdown: 'Welcome aboard.\n' });
    expect((await call('admin', 'GET', `/preview/${restrictedId}`)).status).toBe(200);
    const missing = await call('player', 'POST', '/gamespace', { resourceId: newId() });
    expect(missing.status).toBe(400);
  });

  it('answers a workspace id with the actor’s active gamespace, else its preview', async () => {
    const mine = await ok(launch('player'));
    const byWorkspace = await ok(call('player', 'GET', `/gamespace/${workspaceId}`));
    expect(byWorkspace.id).toBe(mine.id);
    const preview = await ok(call('observer', 'GET', `/gamespace/${workspaceId}`));
    expect(preview).toMatchObject({ id: null, name: 'Lab One', markdown: 'Welcome aboard.\n' });
  });

  it('keeps other players, strangers and other grader keys out of a gamespace', async () => {
    const game = await ok(launch('player'));
    await ok(launch('friend'));
    const otherKey = 'another-grader-key';
    await addUser('keyholder', 'user');
    await ok(launch('keyholder', { graderKey: otherKey }));
    const paths: Array<[string, string]> = [
      ['GET', `/gamespace/${game.id}`],
      ['GET', `/players/${game.id}`],
      ['POST', `/gamespace/${game.id}/start`],
      ['POST', `/gamespace/${game.id}/stop`],
      ['POST', `/gamespace/${game.id}/complete`],
      ['POST', `/gamespace/${game.id}/invite`],
      ['DELETE', `/gamespace/${game.id}`],
      ['DELETE', `/gamespace/${game.id}/player/${users.player!.id}`],
    ];
    for (const [method, path] of paths) {
      for (const who of ['friend', 'stranger', 'observer']) {
        expect((await call(who, method, path)).status, `${who} ${method} ${path}`).toBe(403);
      }
      const agent = await request(server.url, apiKey(otherKey), method, path);
      expect(agent.status, `other key ${method} ${path}`).toBe(403);
    }
    const update = await call('friend', 'PUT', '/gamespace', {
      id: game.id,
      expirationTime: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(update.status).toBe(403);
    expect((await call('player', 'GET', `/gamespace/${game.id}`)).status).toBe(200);
    expect((await call('admin', 'GET', `/gamespace/${game.id}`)).status).toBe(200);
  });

  it('stops, starts and completes a gamespace, telling its group', async () => {
    await addUser('gamer', 'user');
    const game = await ok(launch('gamer', { startGamespace: true }));
    const client = await connect(server.url, users.gamer!.headers);
    clients.push(client);
    await client.connection.invoke('Listen', game.id);

    const stopped = await ok(call('gamer', 'POST', `/gamespace/${game.id}/stop`));
    expect(await server.app.driver.find(game.id)).toEqual([]);
    expect(stopped.endTime).toMatch(/^0001-/);
    expect(stopped.vms).toEqual([]);
    const update = await client.next(
      (e) => e.name === 'GameEvent' && e.payload.action === 'GAME.UPDATE',
    );
    expect(update.payload.model.id).toBe(game.id);
    expect(
      client.events.some((e) => e.name === 'VmEvent' && e.payload.action === 'VM.DELETE'),
    ).toBe(true);

    const restarted = await ok(call('gamer', 'POST', `/gamespace/${game.id}/start`));
    expect(restarted.vms).toHaveLength(3);
    // The start time is set once, by the first deploy.
    expect(restarted.startTime).toBe(game.startTime);

    const completed = await ok(call('gamer', 'POST', `/gamespace/${game.id}/complete`));
    expect(completed.endTime).not.toMatch(/^0001-/);
    expect(completed.isActive).toBe(false);
    expect(completed.vms).toEqual([]);
    await client.next(
      (e) =>
        e.name === 'GameEvent' &&
        e.payload.action === 'GAME.UPDATE' &&
        !e.payload.model.endTime.startsWith('0001-'),
    );
  });

  it('refuses deleting a gamespace without allowReset before touching its machines', async () => {
    await addUser('keeper', 'user');
    const game = await ok(launch('keeper', { startGamespace: true }));
    const refused = await call('keeper', 'DELETE', `/gamespace/${game.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'ActionForbidden' });
    expect(await server.app.driver.find(game.id)).toHaveLength(4);
    expect((await row(game.id)).id).toBe(game.id);

    // Admins may; so may players of a gamespace that allows a reset.
    await ok(call('admin', 'DELETE', `/gamespace/${game.id}`));
    expect(await server.app.driver.find(game.id)).toEqual([]);
    const resettable = await ok(launch('keeper', { startGamespace: true, allowReset: true }));
    const client = await connect(server.url, users.keeper!.headers);
    clients.push(client);
    await client.connection.invoke('Listen', resettable.id);
    await ok(call('keeper', 'DELETE', `/gamespace/${resettable.id}`));
    const over = await client.next((e) => e.payload.action === 'GAME.OVER');
    expect(over.payload.model).toEqual({ id: resettable.id });
    expect(await server.app.driver.find(resettable.id)).toEqual([]);
  });

  it('extends the expiration for its managers (JSON patch bodies too)', async () => {
    const game = await ok(launch('player'));
    const later = new Date(Date.now() + 30 * 60_000);
    const res = await request(
      server.url,
      users.player!.headers,
      'PUT',
      '/gamespace',
      { id: game.id, expirationTime: later.toISOString() },
      'application/json-patch+json',
    );
    expect(res.status, res.text).toBe(200);
    expect((await row(game.id)).expirationTime).toBe(later.getTime());
  });

  it('refuses to extend beyond one game length and one Extend from now, saying how far', async () => {
    const game = await ok(launch('player'));
    const before = (await row(game.id)).expirationTime;
    // No cap of the account nor of the workspace: the default game length.
    const length = DEFAULT_GAMESPACE_MINUTES + EXTENSION_MINUTES;
    const tooLate = new Date(Date.now() + (length + 5) * 60_000);
    const res = await call('player', 'PUT', '/gamespace', {
      id: game.id,
      expirationTime: tooLate.toISOString(),
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({
      message: 'GamespaceExtensionTooLong',
      maxMinutes: length,
    });
    expect((await row(game.id)).expirationTime).toBe(before);
    // An administrator is held to the same length: the game's machines would outlive it.
    expect(
      (await call('admin', 'PUT', '/gamespace', { id: game.id, expirationTime: tooLate })).status,
    ).toBe(400);
    const latest = new Date(Date.now() + (length - 1) * 60_000);
    await ok(call('player', 'PUT', '/gamespace', { id: game.id, expirationTime: latest }));
    expect((await row(game.id)).expirationTime).toBe(latest.getTime());
  });

  it('tells each caller whether it may manage the gamespace; hub events, shared, do not', async () => {
    await addUser('lead', 'user');
    await addUser('member', 'user');
    const game = await ok(launch('lead'));
    expect(game.canManage).toBe(true);
    const { code } = await ok(call('lead', 'POST', `/gamespace/${game.id}/invite`));
    await ok(call('member', 'POST', `/player/${code}`, {}));
    const client = await connect(server.url, users.lead!.headers);
    clients.push(client);
    await client.connection.invoke('Listen', game.id);
    // Twice each: the second answer comes from the kept state, serialized once per kind of caller.
    for (let i = 0; i < 2; i++) {
      expect((await ok(call('lead', 'GET', `/gamespace/${game.id}`))).canManage).toBe(true);
      expect((await ok(call('member', 'GET', `/gamespace/${game.id}`))).canManage).toBe(false);
      expect((await ok(call('admin', 'GET', `/gamespace/${game.id}`))).canManage).toBe(true);
    }
    // By the workspace's id: the caller's active game, or the preview, which nobody manages.
    expect((await ok(call('lead', 'GET', `/gamespace/${workspaceId}`))).canManage).toBe(true);
    const preview = await ok(call('creator', 'GET', `/gamespace/${workspaceId}`));
    expect([preview.id, preview.canManage]).toEqual([null, false]);
    // An extension by the manager reaches every listener, without anyone's rights in it.
    const later = new Date(Date.now() + 45 * 60_000).toISOString();
    expect(
      (await call('member', 'PUT', '/gamespace', { id: game.id, expirationTime: later })).status,
    ).toBe(403);
    await ok(call('lead', 'PUT', '/gamespace', { id: game.id, expirationTime: later }));
    const update = await client.next(
      (e) => e.name === 'GameEvent' && e.payload.action === 'GAME.UPDATE',
    );
    expect(update.payload.model.expirationTime).toBe(later.replace('Z', '+00:00'));
    expect(update.payload.model).not.toHaveProperty('canManage');
  });

  it('invites players by a code that a new code revokes', async () => {
    await addUser('host', 'user');
    await addUser('guest', 'user');
    const game = await ok(launch('host'));
    const first = await ok(call('host', 'POST', `/gamespace/${game.id}/invite`));
    expect(first).toEqual({ id: game.id, code: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const second = await ok(call('host', 'POST', `/gamespace/${game.id}/invite`));
    const revoked = await call('guest', 'POST', `/player/${first.code}`, {});
    expect(revoked.body).toEqual({ message: 'InvalidInvitation' });

    await ok(call('guest', 'POST', `/player/${second.code}`, {}));
    await ok(call('guest', 'POST', `/player/${second.code}`, {}));
    const players = await ok(call('guest', 'GET', `/players/${game.id}`));
    expect(players.map((p: Json) => [p.subjectId, p.permission])).toEqual(
      expect.arrayContaining([
        [users.host!.id, 'manager'],
        [users.guest!.id, 'none'],
      ]),
    );
    expect(players).toHaveLength(2);
    // A plain player plays but does not manage.
    expect((await call('guest', 'POST', `/gamespace/${game.id}/invite`)).status).toBe(403);

    // Anonymous enlistment: a player with a subject id of its own, and a ticket for it.
    const enlisted = await request(server.url, {}, 'PUT', '/player/enlist', {
      code: second.code,
      subjectName: 'Visitor',
    });
    expect(enlisted.status, enlisted.text).toBe(200);
    expect(enlisted.body.gamespaceId).toBe(game.id);
    const viaTicket = await request(
      server.url,
      {},
      'GET',
      `/gamespace/${game.id}?ticket=${enlisted.body.token}`,
    );
    expect(viaTicket.status, viaTicket.text).toBe(200);
    expect(viaTicket.body.players.map((p: Json) => p.subjectName)).toContain('Visitor');
    const bad = await request(server.url, {}, 'PUT', '/player/enlist', { code: 'nope' });
    expect(bad.body).toEqual({ message: 'InvalidInvitation' });

    await ok(call('host', 'DELETE', `/gamespace/${game.id}/player/${users.guest!.id}`));
    expect((await call('guest', 'GET', `/gamespace/${game.id}`)).status).toBe(403);
  });

  it('keeps gamespace favorites per user', async () => {
    const game = await ok(launch('player'));
    expect((await call('player', 'PUT', `/gamespace-favorite/${newId()}`)).status).toBe(404);
    await ok(call('player', 'PUT', `/gamespace-favorite/${game.id}`));
    await ok(call('player', 'PUT', `/gamespace-favorite/${game.id}`));
    expect(await ok(call('player', 'GET', '/gamespace-favorites'))).toEqual([game.id]);
    expect(await ok(call('friend', 'GET', '/gamespace-favorites'))).toEqual([]);
    await ok(call('player', 'DELETE', `/gamespace-favorite/${game.id}`));
    expect(await ok(call('player', 'GET', '/gamespace-favorites'))).toEqual([]);
  });

  it('lists the gamespaces the actor plays', async () => {
    const game = await ok(launch('player'));
    const list = await ok(call('player', 'GET', '/gamespaces?filter=active'));
    expect(list.map((g: Json) => g.id)).toContain(game.id);
    const others = await ok(call('stranger', 'GET', '/gamespaces'));
    expect(others.map((g: Json) => g.id)).not.toContain(game.id);
  });
});

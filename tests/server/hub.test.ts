import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../server/app';
import { loadConfig } from '../../server/config';
import { newApiKey, newId, sha256Hex } from '../../server/core/ids';
import { createTestDatabase, testEngines } from './databases';
import { freePort, SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import {
  apiKey,
  connect,
  EVENT_NAMES,
  HANDSHAKE,
  rawConnect,
  RS,
  ticketFor,
  until,
  type Client,
  type Received,
} from './hubClients';
import { signIn } from './oidc';

// The real-time hub on one server process, driven by the real @microsoft/signalr client (both
// the skipNegotiation style of the SPA and the default negotiate) and by raw WebSockets.

const KEEP_ALIVE_MS = 300;

describe.each(testEngines())('hub on %s', (engine) => {
  let server: TestServer;
  const keys: Record<string, Record<string, string>> = {};
  let creatorBearer: Record<string, string> = {};
  let workspaceId = '';
  let otherWorkspaceId = '';
  const clients: Client[] = [];

  const open = async (
    who: Record<string, string>,
    options: Parameters<typeof connect>[2] = {},
  ): Promise<Client> => {
    const client = await connect(server.url, who, options);
    clients.push(client);
    return client;
  };
  const hub = () => server.app.hub;
  const actorOf = async (username: string, name: string) => ({
    id: await server.userId(username),
    name,
  });

  /**
   * Every member of `room` gets a marker event after whatever was sent before it, so once a
   * client has the marker, an event it has not received by then was not sent to it.
   */
  async function settle(room: string, ...members: Client[]) {
    const marker = newId();
    hub()
      .toGroup(room)
      .send('GlobalEvent', { action: 'TEST.MARKER', actor: { id: '', name: '' }, model: marker });
    await Promise.all(members.map((m) => m.next((e) => e.payload.model === marker)));
  }

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { HUB_KEEP_ALIVE_MS: String(KEEP_ALIVE_MS) } });
    for (const username of ['admin', 'creator', 'observer', 'player']) {
      keys[username] = apiKey(await server.apiKeyFor(username));
    }
    const { accessToken } = await signIn(server.url, 'creator', SEED_PASSWORD);
    creatorBearer = { authorization: `Bearer ${accessToken}` };
    const create = async (name: string) => {
      const res = await fetch(`${server.url}/api/workspace`, {
        method: 'POST',
        headers: { ...creatorBearer, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      return ((await res.json()) as { id: string }).id;
    };
    workspaceId = await create('Hub lab');
    otherWorkspaceId = await create('Other lab');
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.stop().catch(() => {})));
    await server?.close();
  });

  describe('connecting', () => {
    it('accepts the real client with skipNegotiation, the ticket in the Authorization header', async () => {
      const client = await open(keys.creator!);
      expect(client.connection.state).toBe('Connected');
      await expect(client.connection.invoke('Listen', workspaceId)).resolves.toBeUndefined();
    });

    it('accepts a browser-style connection with the ticket in ?access_token= or ?ticket=', async () => {
      for (const key of ['access_token', 'Ticket']) {
        const ticket = await ticketFor(server.url, keys.player!);
        const raw = await rawConnect(server.url, `?${key}=${ticket}`);
        raw.send(HANDSHAKE);
        expect(await raw.next(() => true)).toEqual({});
        raw.socket.close();
      }
    });

    it('accepts the real client through negotiate, then the WebSocket with the connection token', async () => {
      const client = await open(keys.creator!, { negotiate: true });
      expect(client.connection.state).toBe('Connected');
      expect(client.connection.connectionId).toMatch(/^[0-9a-f]{32}$/);
      await expect(client.connection.invoke('Listen', workspaceId)).resolves.toBeUndefined();
    });

    it('answers negotiate with WebSockets only and a single-use connection token', async () => {
      const ticket = await ticketFor(server.url, keys.player!);
      const res = await fetch(`${server.url}/hub/negotiate?negotiateVersion=1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ticket}` },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { connectionId: string; connectionToken: string };
      expect(body).toEqual({
        negotiateVersion: 1,
        connectionId: expect.stringMatching(/^[0-9a-f]{32}$/),
        connectionToken: expect.stringMatching(/^[0-9a-f]{32}$/),
        availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text', 'Binary'] }],
      });
      expect(body.connectionToken).not.toBe(body.connectionId);
      const raw = await rawConnect(server.url, `?id=${body.connectionToken}`);
      raw.send(HANDSHAKE);
      expect(await raw.next(() => true)).toEqual({});
      raw.socket.close();
      await expect(rawConnect(server.url, `?id=${body.connectionToken}`)).rejects.toThrow(
        'status 404',
      );
      // The ticket was spent by negotiate.
      const again = await fetch(`${server.url}/hub/negotiate?negotiateVersion=1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ticket}` },
      });
      expect(again.status).toBe(401);
    });

    it('refuses a missing or used ticket with 401 before the upgrade', async () => {
      await expect(rawConnect(server.url, '')).rejects.toThrow('status 401');
      const ticket = await ticketFor(server.url, keys.player!);
      const first = await rawConnect(server.url, `?access_token=${ticket}`);
      first.socket.close();
      await expect(rawConnect(server.url, `?access_token=${ticket}`)).rejects.toThrow('status 401');
      await expect(
        rawConnect(server.url, '', { authorization: `Bearer ${ticket}` }),
      ).rejects.toThrow('status 401');
      // A bearer JWT is not a ticket: the hub takes tickets only.
      await expect(rawConnect(server.url, '', creatorBearer)).rejects.toThrow('status 401');
    });

    it('rejects the real client when the ticket factory gives a used ticket', async () => {
      const ticket = await ticketFor(server.url, keys.player!);
      await (await rawConnect(server.url, `?access_token=${ticket}`)).socket.close();
      const connection = new HubConnectionBuilder()
        .withUrl(`${server.url}/hub`, {
          skipNegotiation: true,
          transport: HttpTransportType.WebSockets,
          accessTokenFactory: () => ticket,
        })
        .configureLogging(LogLevel.None)
        .build();
      // With skipNegotiation the client reports a failed WebSocket, not the status.
      await expect(connection.start()).rejects.toThrow(/WebSocket failed to connect/);
      expect(connection.state).toBe('Disconnected');
    });
  });

  describe('Listen', () => {
    it('lets a worker of a workspace created through the API listen on it', async () => {
      const client = await open(creatorBearer);
      await expect(client.connection.invoke('Listen', workspaceId)).resolves.toBeUndefined();
    });

    it('lets an administrator listen anywhere', async () => {
      const client = await open(keys.admin!);
      await expect(client.connection.invoke('Listen', otherWorkspaceId)).resolves.toBeUndefined();
      await expect(client.connection.invoke('listen', newId())).resolves.toBeUndefined();
    });

    it("answers a player listening on someone else's workspace with the error ActionForbidden", async () => {
      const client = await open(keys.player!);
      await expect(client.connection.invoke('Listen', workspaceId)).rejects.toThrow(
        'ActionForbidden',
      );
      // The connection stays usable.
      await expect(client.connection.invoke('Listen', await server.userId('player'))).resolves.toBe(
        undefined,
      );
    });

    it('lets the players and the manager of a gamespace listen on it, and its agent', async () => {
      const gamespaceId = newId();
      const graderKey = newApiKey();
      const db = server.app.store.db;
      await db
        .insertInto('gamespaces')
        .values({
          id: gamespaceId,
          name: 'Game',
          managerId: await server.userId('observer'),
          managerName: 'Observer',
          graderKey: sha256Hex(graderKey),
          whenCreated: Date.now(),
          startTime: 0,
          endTime: 0,
          expirationTime: 0,
          cleanupGraceMinutes: 0,
          cleaned: 0,
          allowReset: 0,
          challenge: '',
          workspaceId,
          variant: 0,
          playerCount: 1,
        })
        .execute();
      await db
        .insertInto('players')
        .values({
          subjectId: await server.userId('player'),
          gamespaceId,
          subjectName: 'Player',
          permission: 0,
        })
        .execute();
      for (const who of [keys.player!, keys.observer!, apiKey(graderKey)]) {
        const client = await open(who);
        await expect(client.connection.invoke('Listen', gamespaceId)).resolves.toBeUndefined();
      }
      const agent = await open(apiKey(graderKey));
      await expect(agent.connection.invoke('Listen', workspaceId)).rejects.toThrow(
        'ActionForbidden',
      );
      const stranger = await open(keys.creator!);
      await expect(stranger.connection.invoke('Listen', gamespaceId)).rejects.toThrow(
        'ActionForbidden',
      );
    });
  });

  describe('presence and relays', () => {
    it('tells the others, not the caller, who arrived, greeted and departed', async () => {
      const room = otherWorkspaceId;
      const creator = await open(keys.creator!);
      const admin = await open(keys.admin!);
      const creatorActor = await actorOf('creator', 'Creator');
      const adminActor = await actorOf('admin', 'Administrator');
      await creator.connection.invoke('Listen', room);
      await admin.connection.invoke('Listen', room);
      const arrived = await creator.next((e) => e.payload.action === 'PRESENCE.ARRIVED');
      expect(arrived).toEqual({
        name: 'PresenceEvent',
        payload: { action: 'PRESENCE.ARRIVED', actor: adminActor },
      });
      await creator.connection.invoke('Greet', room);
      expect((await admin.next((e) => e.payload.action === 'PRESENCE.GREETED')).payload).toEqual({
        action: 'PRESENCE.GREETED',
        actor: creatorActor,
      });
      await admin.connection.invoke('Leave', room);
      expect((await creator.next((e) => e.payload.action === 'PRESENCE.DEPARTED')).payload).toEqual(
        { action: 'PRESENCE.DEPARTED', actor: adminActor },
      );
      await settle(room, creator);
      const presence = (c: Client) =>
        c.events.filter((e) => e.name === 'PresenceEvent').map((e) => e.payload.action);
      expect(presence(creator)).toEqual(['PRESENCE.ARRIVED', 'PRESENCE.DEPARTED']);
      expect(presence(admin)).toEqual(['PRESENCE.GREETED']);

      // A disconnect departs from every joined channel.
      await admin.connection.invoke('Listen', room);
      await admin.connection.invoke('Listen', workspaceId);
      const watcher = await open(keys.creator!);
      await watcher.connection.invoke('Listen', workspaceId);
      await admin.stop();
      await until(() => presence(creator).filter((a) => a === 'PRESENCE.DEPARTED').length === 2);
      expect(
        (await watcher.next((e) => e.payload.action === 'PRESENCE.DEPARTED')).payload.actor,
      ).toEqual(adminActor);
    });

    it('relays edits, cursors and template messages to the others in the channel', async () => {
      const a = await open(keys.creator!);
      const b = await open(keys.admin!);
      await a.connection.invoke('Listen', workspaceId);
      await b.connection.invoke('Listen', workspaceId);
      const actor = await actorOf('creator', 'Creator');
      const changes = [{ range: { startLineNumber: 1 }, text: 'hello' }];
      await a.connection.invoke('Edited', workspaceId, changes);
      // Fire-and-forget invocations (no invocationId) run too.
      await a.connection.send('cursorChanged', workspaceId, [{ lineNumber: 2, column: 3 }]);
      const template = { id: newId(), name: 'kali', workspaceId };
      await a.connection.invoke('TemplateMessage', 'TEMPLATE.UPDATED', template);
      expect(await b.next((e) => e.payload.action === 'DOCUMENT.UPDATED')).toEqual({
        name: 'DocumentEvent',
        payload: { action: 'DOCUMENT.UPDATED', actor, model: changes },
      });
      expect((await b.next((e) => e.payload.action === 'DOCUMENT.CURSOR')).payload).toEqual({
        action: 'DOCUMENT.CURSOR',
        actor,
        model: [{ lineNumber: 2, column: 3 }],
      });
      expect(await b.next((e) => e.name === 'TemplateEvent')).toEqual({
        name: 'TemplateEvent',
        payload: { action: 'TEMPLATE.UPDATED', actor, model: template },
      });
      await settle(workspaceId, a);
      expect(
        a.events.filter((e) => e.name !== 'GlobalEvent' && e.name !== 'PresenceEvent'),
      ).toEqual([]);
    });

    it('refuses Edited, CursorChanged, Greet, Leave and TemplateMessage on a channel not joined', async () => {
      const client = await open(keys.creator!);
      const template = { id: newId(), workspaceId };
      for (const [method, ...args] of [
        ['Edited', workspaceId, []],
        ['CursorChanged', workspaceId, []],
        ['Greet', workspaceId],
        ['Leave', workspaceId],
        ['TemplateMessage', 'TEMPLATE.UPDATED', template],
      ] as const) {
        await expect(client.connection.invoke(method, ...args)).rejects.toThrow('ActionForbidden');
      }
    });

    it('answers an unknown method or a wrong argument count with an error completion', async () => {
      const client = await open(keys.creator!);
      await expect(client.connection.invoke('Shout', 'x')).rejects.toThrow(
        "Failed to invoke 'Shout' due to an error on the server. HubException: Method does not exist.",
      );
      await expect(client.connection.invoke('constructor')).rejects.toThrow(
        'Method does not exist.',
      );
      await expect(client.connection.invoke('Listen')).rejects.toThrow(
        'Invocation provides 0 argument(s) but target expects 1.',
      );
      await expect(client.connection.invoke('Listen', 42)).rejects.toThrow(
        'Error binding arguments',
      );
    });
  });

  describe('publishing', () => {
    it('delivers each event kind to its group only', async () => {
      const inRoom = await open(keys.admin!);
      const elsewhere = await open(keys.admin!);
      const room = newId();
      const other = newId();
      await inRoom.connection.invoke('Listen', room);
      await elsewhere.connection.invoke('Listen', other);
      const actor = { id: 'system', name: 'Topoplay' };
      for (const name of EVENT_NAMES) {
        hub()
          .toGroup(room)
          .send(name, { action: `${name}.TEST`, actor, model: { id: room, kind: name } });
      }
      await settle(room, inRoom);
      await settle(other, elsewhere);
      const kinds = (events: Received[]) =>
        events.filter((e) => e.payload.action.endsWith('.TEST')).map((e) => e.name);
      expect(kinds(inRoom.events)).toEqual(EVENT_NAMES);
      expect(kinds(elsewhere.events)).toEqual([]);
      const vm = inRoom.events.find((e) => e.name === 'VmEvent');
      expect(vm?.payload).toEqual({
        action: 'VmEvent.TEST',
        actor,
        model: { id: room, kind: 'VmEvent' },
      });
    });

    it('leaves out one connection with toGroupExcept and reaches everyone with toAll', async () => {
      const a = await open(keys.admin!, { negotiate: true });
      const b = await open(keys.admin!);
      const idle = await open(keys.player!);
      const room = newId();
      await a.connection.invoke('Listen', room);
      await b.connection.invoke('Listen', room);
      const actor = { id: 'system', name: 'Topoplay' };
      hub()
        .toGroupExcept(room, a.connection.connectionId!)
        .send('TopoEvent', { action: 'TOPO.UPDATED', actor, model: { id: room } });
      await b.next((e) => e.name === 'TopoEvent');
      await settle(room, a);
      expect(a.events.some((e) => e.name === 'TopoEvent')).toBe(false);
      hub().toAll().send('GlobalEvent', { action: 'GLOBAL.ANNOUNCE', actor, model: 'hi' });
      for (const c of [a, b, idle]) {
        expect((await c.next((e) => e.payload.model === 'hi')).name).toBe('GlobalEvent');
      }
    });
  });

  describe('protocol', () => {
    async function handshaken(who = keys.admin!) {
      const raw = await rawConnect(server.url, `?access_token=${await ticketFor(server.url, who)}`);
      raw.send(HANDSHAKE);
      await raw.next((m) => Object.keys(m).length === 0);
      return raw;
    }

    it('pings every connection within the keep-alive interval', async () => {
      const raw = await handshaken();
      const start = Date.now();
      await raw.next((m) => m.type === 6, KEEP_ALIVE_MS * 3);
      expect(Date.now() - start).toBeLessThan(KEEP_ALIVE_MS * 2 + 200);
      raw.socket.close();
    });

    it('reads several messages in one frame and matches method names case-insensitively', async () => {
      const raw = await rawConnect(
        server.url,
        `?access_token=${await ticketFor(server.url, keys.admin!)}`,
      );
      const room = newId();
      raw.send(
        HANDSHAKE +
          `{"type":1,"invocationId":"1","target":"LISTEN","arguments":["${room}"]}${RS}` +
          `{"type":6}${RS}` +
          `{"type":1,"target":"greet","arguments":["${room}"]}${RS}` +
          `{"type":1,"invocationId":"2","target":"Greet","arguments":["${room}"]}${RS}`,
      );
      expect(await raw.next((m) => m.type === 3 && m.invocationId === '2')).toEqual({
        type: 3,
        invocationId: '2',
      });
      expect(raw.messages.filter((m) => m.type === 3)).toEqual([
        { type: 3, invocationId: '1' },
        { type: 3, invocationId: '2' },
      ]);
      raw.socket.close();
    });

    it('answers stream invocations with an error completion', async () => {
      const raw = await handshaken();
      raw.send(`{"type":4,"invocationId":"s1","target":"Counter","arguments":[]}${RS}`);
      raw.send(`{"type":5,"invocationId":"s1"}${RS}`);
      raw.send(
        `{"type":1,"invocationId":"u1","target":"Listen","arguments":["x"],"streamIds":["1"]}${RS}`,
      );
      const errors = await Promise.all([
        raw.next((m) => m.type === 3 && m.invocationId === 's1'),
        raw.next((m) => m.type === 3 && m.invocationId === 'u1'),
      ]);
      for (const e of errors) expect(e.error).toMatch(/not supported/);
      raw.socket.close();
    });

    it('closes only the offending connection on garbage, and keeps serving the others', async () => {
      const bystander = await open(keys.admin!);
      const room = newId();
      await bystander.connection.invoke('Listen', room);

      const badProtocol = await rawConnect(
        server.url,
        `?access_token=${await ticketFor(server.url, keys.admin!)}`,
      );
      badProtocol.send(`{"protocol":"messagepack","version":1}${RS}`);
      expect(await badProtocol.next((m) => 'error' in m)).toEqual({
        error: "The protocol 'messagepack' is not supported.",
      });
      await badProtocol.closed;

      const notJson = await rawConnect(
        server.url,
        `?access_token=${await ticketFor(server.url, keys.admin!)}`,
      );
      notJson.send(`this is not json${RS}`);
      expect((await notJson.next((m) => 'error' in m)).error).toMatch(/handshake/);
      await notJson.closed;

      const binary = await handshaken();
      binary.socket.send(Buffer.from([1, 2, 3, 0x1e]), { binary: true });
      expect(await binary.next((m) => m.type === 7)).toEqual({
        type: 7,
        error: expect.stringMatching(/^Connection closed with an error\. .*Binary/),
      });
      await binary.closed;

      const malformed = await handshaken();
      malformed.send(`{"type":1,"target":${RS}`);
      expect((await malformed.next((m) => m.type === 7)).error).toMatch(/Error reading JSON/);
      await malformed.closed;

      const noType = await handshaken();
      noType.send(`[1,2,3]${RS}`);
      expect((await noType.next((m) => m.type === 7)).error).toMatch(/error/);
      await noType.closed;

      const huge = await handshaken();
      huge.send(`{"type":1,"target":"Greet","arguments":["${'x'.repeat(2 * 1024 * 1024)}"]}${RS}`);
      expect((await huge.closed).code).toBe(1009);

      await expect(bystander.connection.invoke('Greet', room)).resolves.toBeUndefined();
      const fresh = await open(keys.admin!);
      await expect(fresh.connection.invoke('Listen', room)).resolves.toBeUndefined();
    });
  });

  describe('admin', () => {
    it('lists live connections per room, for administrators only', async () => {
      const room = newId();
      const a = await open(keys.creator!, { negotiate: true });
      const b = await open(keys.player!, { negotiate: true });
      await a.connection.invoke('Listen', workspaceId);
      await b.connection.invoke('Listen', await server.userId('player'));
      const admin = await open(keys.admin!, { negotiate: true });
      await admin.connection.invoke('Listen', room);
      await admin.connection.invoke('Listen', workspaceId);

      expect((await fetch(`${server.url}/api/admin/live`)).status).toBe(401);
      const forbidden = await fetch(`${server.url}/api/admin/live`, { headers: keys.player });
      expect(forbidden.status).toBe(403);
      expect(await forbidden.text()).toBe('');

      const res = await fetch(`${server.url}/api/admin/live`, { headers: keys.admin });
      expect(res.status).toBe(200);
      const live = (await res.json()) as Array<Record<string, string>>;
      const mine = live.filter((row) =>
        [a, b, admin].some((c) => c.connection.connectionId === row.id),
      );
      expect(mine).toEqual(
        expect.arrayContaining([
          {
            id: a.connection.connectionId,
            room: workspaceId,
            profileId: await server.userId('creator'),
            profileName: 'Creator',
          },
          {
            id: b.connection.connectionId,
            room: await server.userId('player'),
            profileId: await server.userId('player'),
            profileName: 'Player',
          },
          expect.objectContaining({ id: admin.connection.connectionId, room }),
          expect.objectContaining({ id: admin.connection.connectionId, room: workspaceId }),
        ]),
      );
      expect(mine).toHaveLength(4);

      await admin.connection.invoke('Leave', room);
      await b.stop();
      const after = (await (
        await fetch(`${server.url}/api/admin/live`, { headers: keys.admin })
      ).json()) as Array<Record<string, string>>;
      expect(after.filter((row) => row.id === b.connection.connectionId)).toEqual([]);
      expect(
        after.filter((row) => row.id === admin.connection.connectionId).map((r) => r.room),
      ).toEqual([workspaceId]);
    });

    it('announces a text to every connection, for administrators only', async () => {
      const a = await open(keys.player!);
      const b = await open(keys.creator!, { negotiate: true });
      const post = (headers: Record<string, string>, body: string) =>
        fetch(`${server.url}/api/admin/announce`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'text/plain' },
          body,
        });
      expect((await post({}, 'nope')).status).toBe(401);
      const forbidden = await post(keys.player!, 'nope');
      expect(forbidden.status).toBe(403);
      expect(await forbidden.text()).toBe('');

      const res = await post(keys.admin!, 'Labs close at 17:00.');
      expect(res.status).toBe(200);
      expect(await res.json()).toBe(true);
      const expected = {
        name: 'GlobalEvent',
        payload: {
          action: 'GLOBAL.ANNOUNCE',
          actor: await actorOf('admin', 'Administrator'),
          model: 'Labs close at 17:00.',
        },
      };
      for (const c of [a, b]) {
        expect(await c.next((e) => e.payload.action === 'GLOBAL.ANNOUNCE')).toEqual(expected);
      }
      for (const c of [a, b]) {
        expect(c.events.filter((e) => e.payload.model === 'nope')).toEqual([]);
      }
    });
  });
});

describe('hub keep-alive', () => {
  const CLIENT_TIMEOUT_MS = 1_500;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { HUB_KEEP_ALIVE_MS: '200', HUB_CLIENT_TIMEOUT_MS: String(CLIENT_TIMEOUT_MS) },
    });
  });
  afterAll(async () => server?.close());

  it('drops a client that sends nothing for the client timeout, and keeps one that pings', async () => {
    const key = apiKey(await server.apiKeyFor('player'));
    const pinging = new HubConnectionBuilder()
      .withUrl(`${server.url}/hub`, {
        skipNegotiation: true,
        transport: HttpTransportType.WebSockets,
        accessTokenFactory: () => ticketFor(server.url, key),
      })
      .withKeepAliveInterval(200)
      .configureLogging(LogLevel.None)
      .build();
    await pinging.start();

    const silent = await rawConnect(
      server.url,
      `?access_token=${await ticketFor(server.url, key)}`,
    );
    silent.send(HANDSHAKE);
    const start = Date.now();
    expect(await silent.next((m) => m.type === 7, CLIENT_TIMEOUT_MS * 4)).toEqual({
      type: 7,
      error:
        'Connection closed with an error. Server timeout elapsed without receiving a message from the client.',
    });
    await silent.closed;
    expect(Date.now() - start).toBeGreaterThanOrEqual(CLIENT_TIMEOUT_MS);
    expect(pinging.state).toBe('Connected');
    await pinging.stop();
  });
});

describe('hub across a server restart', () => {
  it('lets clients reconnect with a fresh ticket and re-join their channel', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'topoplay-test-'));
    const database = await createTestDatabase('sqlite');
    const config = loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      TOPOPLAY_URL: url,
      TOPOPLAY_DATA: dataDir,
      TOPOPLAY_SPA: join(dataDir, 'no-spa'),
      TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
      DATABASE_URL: database.url,
    });
    const start = async () => {
      const app = await buildApp(config, { logger: false });
      await app.app.listen({ port, host: '127.0.0.1' });
      return app;
    };
    let app: App = await start();
    const clients: Client[] = [];
    try {
      const key = newApiKey();
      const admin = await app.store.db
        .selectFrom('users')
        .select('id')
        .where('name', '=', 'Administrator')
        .executeTakeFirstOrThrow();
      await app.store.db
        .insertInto('apiKeys')
        .values({ id: newId(), userId: admin.id, name: 't', hash: sha256Hex(key), whenCreated: 0 })
        .execute();

      const room = newId();
      const rejoined: string[] = [];
      for (const negotiate of [false, true]) {
        const client = await connect(url, apiKey(key), {
          negotiate,
          reconnectDelays: Array.from({ length: 60 }, () => 100),
        });
        // What the SPA's hub machine does on entering `connected` again.
        client.connection.onreconnected(() => {
          void client.connection
            .invoke('Listen', room)
            .then(() => rejoined.push(String(negotiate)));
        });
        await client.connection.invoke('Listen', room);
        clients.push(client);
      }

      const raw = await rawConnect(url, `?access_token=${await ticketFor(url, apiKey(key))}`);
      raw.send(HANDSHAKE);
      await raw.next((m) => Object.keys(m).length === 0);

      await app.close();
      // Shutdown tells clients they may reconnect; without it the stock client would stop.
      expect(await raw.next((m) => m.type === 7)).toEqual({ type: 7, allowReconnect: true });
      await until(() => clients.every((c) => c.connection.state === 'Reconnecting'));
      app = await start();
      await until(() => rejoined.length === 2, 10_000);
      expect(clients.map((c) => c.connection.state)).toEqual(['Connected', 'Connected']);

      app.hub.toGroup(room).send('GameEvent', {
        action: 'GAME.UPDATE',
        actor: { id: admin.id, name: 'Administrator' },
        model: { id: room },
      });
      for (const c of clients) {
        expect((await c.next((e) => e.name === 'GameEvent')).payload.model).toEqual({ id: room });
      }
      expect((await app.hub.live()).filter((row) => row.room === room)).toHaveLength(2);
    } finally {
      await Promise.all(clients.map((c) => c.stop()));
      await app.close();
      await database.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

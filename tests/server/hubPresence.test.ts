import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApiKey, newId, sha256Hex } from '../../server/core/ids';
import { PRESENCE_BATCH_MS } from '../../server/hub/presence';
import { startTestServer, type TestServer } from './harness';
import { apiKey, connect, until, type Client, type ClientOptions } from './hubClients';

// Presence in both forms (server/hub/presence.ts), with the real @microsoft/signalr client: the
// reference's per-member events with greetings, and the batched form the SPA asks for with
// `?presence=batched`. The server runs with HUB_PRESENCE_LIMIT=2, so that the limits' quirks show
// with three people: channels of at most 2 connections are small.

const LIMIT = 2;
const TOPOPLAY = { id: '00000000-0000-0000-0000-000000000000', name: 'Topoplay' };

describe('hub presence in the batched and reference forms', () => {
  let server: TestServer;
  const keys: Record<string, Record<string, string>> = {};
  const people: Record<string, { id: string; name: string }> = {};
  const clients: Client[] = [];
  /** The workspace the gamespaces play. */
  let workspaceId = '';

  /** A gamespace channel on which the admin, its manager (observer), its player and its agent may listen. */
  async function newChannel() {
    const gamespaceId = newId();
    const graderKey = newApiKey();
    const db = server.app.store.db;
    await db
      .insertInto('gamespaces')
      .values({
        id: gamespaceId,
        name: 'Game',
        managerId: people.observer!.id,
        managerName: people.observer!.name,
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
        subjectId: people.player!.id,
        gamespaceId,
        subjectName: people.player!.name,
        permission: 0,
      })
      .execute();
    return { room: gamespaceId, agentKey: apiKey(graderKey) };
  }

  /** A connected client that has listened on `room`. */
  async function join(who: Record<string, string>, room: string, options: ClientOptions = {}) {
    const client = await connect(server.url, who, options);
    clients.push(client);
    await client.connection.invoke('Listen', room);
    return client;
  }
  const batched = { batchedPresence: true };

  const presence = (client: Client) =>
    client.events.filter((e) => e.name === 'PresenceEvent').map((e) => e.payload);
  const perMember = (client: Client) =>
    presence(client)
      .filter((p) => !['PRESENCE.PRESENT', 'PRESENCE.CHANGED'].includes(p.action))
      .map((p) => `${p.action} ${p.actor.name}`);
  const changes = (client: Client) =>
    presence(client)
      .filter((p) => p.action === 'PRESENCE.CHANGED')
      .map((p) => p.model);

  /**
   * Every client gets a marker after what the hub sent it before: after it, a message a client
   * has not received was not sent to it. (A batch still waiting for its window is not sent yet:
   * tests wait for the batch they expect.)
   */
  async function settle(room: string, ...members: Client[]) {
    const marker = newId();
    server.app.hub
      .toGroup(room)
      .send('GlobalEvent', { action: 'TEST.MARKER', actor: TOPOPLAY, model: marker });
    await Promise.all(members.map((m) => m.next((e) => e.payload.model === marker)));
  }

  beforeAll(async () => {
    server = await startTestServer({ env: { HUB_PRESENCE_LIMIT: String(LIMIT) } });
    for (const username of ['admin', 'observer', 'player']) {
      keys[username] = apiKey(await server.apiKeyFor(username));
      const id = await server.userId(username);
      const { name } = await server.app.store.db
        .selectFrom('users')
        .select('name')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      people[username] = { id, name };
    }
    const created = await fetch(`${server.url}/api/workspace`, {
      method: 'POST',
      headers: { ...apiKey(await server.apiKeyFor('creator')), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Presence lab' }),
    });
    workspaceId = ((await created.json()) as { id: string }).id;
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.stop().catch(() => {})));
    await server?.close();
  });

  describe('the batched form', () => {
    it('tells a newcomer who is present before its Listen completes, and the others in a batch, with no greeting', async () => {
      const { room } = await newChannel();
      const observer = await join(keys.observer!, room, batched);
      expect(presence(observer)).toEqual([
        { action: 'PRESENCE.PRESENT', actor: TOPOPLAY, model: { channelId: room, actors: [] } },
      ]);

      const admin = await join(keys.admin!, room, batched);
      // Recorded before Listen's completion resolved the invocation.
      expect(presence(admin)).toEqual([
        {
          action: 'PRESENCE.PRESENT',
          actor: TOPOPLAY,
          model: { channelId: room, actors: [people.observer] },
        },
      ]);
      const arrival = await observer.next((e) => e.payload.action === 'PRESENCE.CHANGED');
      expect(arrival.payload).toEqual({
        action: 'PRESENCE.CHANGED',
        actor: TOPOPLAY,
        model: { channelId: room, arrived: [people.admin], departed: [] },
      });

      await admin.connection.invoke('Leave', room);
      await until(() => changes(observer).length === 2);
      expect(changes(observer)[1]).toEqual({
        channelId: room,
        arrived: [],
        departed: [people.admin],
      });

      await settle(room, observer);
      expect(perMember(observer)).toEqual([]);
      expect(perMember(admin)).toEqual([]);
      expect(changes(admin)).toEqual([]);
    });

    it("shows a person's other tab to that person's tabs only, for as long as it listens", async () => {
      const { room } = await newChannel();
      const player = await join(keys.player!, room, batched);
      const tab = await join(keys.admin!, room, batched);
      await until(() => changes(player).length === 1);
      const otherTab = await join(keys.admin!, room, batched);
      // The admin's first tab is the admin elsewhere, to the second.
      expect(presence(otherTab)[0].model.actors).toEqual([people.player, people.admin]);
      await until(() =>
        changes(tab).some((c) => c.arrived.some((p: { id: string }) => p.id === people.admin!.id)),
      );

      await otherTab.stop();
      await until(() =>
        changes(tab).some((c) => c.departed.some((p: { id: string }) => p.id === people.admin!.id)),
      );
      await settle(room, player, tab);
      // To everyone else the admin stayed: one tab still listens.
      expect(changes(player).flatMap((c) => c.departed)).toEqual([]);
      expect(changes(player).flatMap((c) => c.arrived)).toContainEqual(people.admin);
    });

    it('sends one channel at most one batch every PRESENCE_BATCH_MS', async () => {
      const { room } = await newChannel();
      const observer = await join(keys.observer!, room, batched);
      const admin = await connect(server.url, keys.admin!, batched);
      clients.push(admin);
      // The first batch follows the admin's arrival, the second comes at least
      // PRESENCE_BATCH_MS after the first.
      const arriving = performance.now();
      await admin.connection.invoke('Listen', room);
      await until(() => changes(observer).length === 1);
      await admin.connection.invoke('Leave', room);
      await until(() => changes(observer).length === 2);
      // Timers may fire a millisecond early.
      expect(performance.now() - arriving).toBeGreaterThanOrEqual(PRESENCE_BATCH_MS - 1);
      expect(changes(observer)).toEqual([
        { channelId: room, arrived: [people.admin], departed: [] },
        { channelId: room, arrived: [], departed: [people.admin] },
      ]);
    });
  });

  describe('both forms on one channel', () => {
    it('greets a reference-form newcomer on behalf of batched-form members, who never greet', async () => {
      const { room } = await newChannel();
      const observer = await join(keys.observer!, room, batched);
      const admin = await join(keys.admin!, room);
      // The server's greeting, sent before the completion.
      expect(perMember(admin)).toEqual([`PRESENCE.GREETED ${people.observer!.name}`]);
      expect(presence(admin)[0].actor).toEqual(people.observer);
      await until(() => changes(observer).length === 1);
      expect(changes(observer)[0].arrived).toEqual([people.admin]);

      await admin.connection.invoke('Leave', room);
      await until(() => changes(observer).length === 2);
      await settle(room, observer);
      expect(perMember(observer)).toEqual([]);
    });

    it('announces a batched-form newcomer to reference-form members, whose greetings it does not need', async () => {
      const { room } = await newChannel();
      const observer = await join(keys.observer!, room);
      const admin = await join(keys.admin!, room, batched);
      expect(presence(admin)[0].model.actors).toEqual([people.observer]);
      await observer.next((e) => e.payload.action === 'PRESENCE.ARRIVED');
      // The reference UI greets every arrival; the batched-form newcomer is not sent it.
      await observer.connection.invoke('Greet', room);
      // Its completion comes after whatever was sent to it before.
      await admin.connection.invoke('Leave', room);
      await observer.next((e) => e.payload.action === 'PRESENCE.DEPARTED');
      await settle(room, observer);
      expect(perMember(observer)).toEqual([
        `PRESENCE.ARRIVED ${people.admin!.name}`,
        `PRESENCE.DEPARTED ${people.admin!.name}`,
      ]);
      expect(perMember(admin)).toEqual([]);
      expect(changes(admin)).toEqual([]);
    });

    it('leaves greeting to reference-form members in a small channel, as the reference does', async () => {
      const { room } = await newChannel();
      const observer = await join(keys.observer!, room);
      const admin = await join(keys.admin!, room);
      await observer.next((e) => e.payload.action === 'PRESENCE.ARRIVED');
      await settle(room, observer, admin);
      expect(perMember(admin)).toEqual([]);
    });
  });

  // Quirks: HUB_PRESENCE_LIMIT (here 2) bounds what one join costs.
  describe('above the limit', () => {
    it('tells reference-form members of no arrival or departure while the channel has more connections than the limit', async () => {
      const { room, agentKey } = await newChannel();
      const observer = await join(keys.observer!, room);
      const player = await join(keys.player!, room);
      await observer.next((e) => e.payload.action === 'PRESENCE.ARRIVED');
      const admin = await join(keys.admin!, room);
      // The third connection: nobody greets it, so the server greets it for everyone present.
      expect(perMember(admin)).toEqual([
        `PRESENCE.GREETED ${people.observer!.name}`,
        `PRESENCE.GREETED ${people.player!.name}`,
      ]);
      await admin.connection.invoke('Leave', room);

      // Back within the limit, per-member events flow again.
      await player.connection.invoke('Leave', room);
      await observer.next((e) => e.payload.action === 'PRESENCE.DEPARTED');
      await join(agentKey, room);
      await observer.next(
        (e) => e.payload.action === 'PRESENCE.ARRIVED' && e.payload.actor.id === room,
      );
      await settle(room, observer);
      expect(perMember(observer)).toEqual([
        `PRESENCE.ARRIVED ${people.player!.name}`,
        `PRESENCE.DEPARTED ${people.player!.name}`,
        `PRESENCE.ARRIVED Gamespace Agent`,
      ]);
      expect(perMember(player)).toEqual([]);
    });

    it('names only the first people to arrive, and the next one once one of them leaves', async () => {
      const { room } = await newChannel();
      const observer = await join(keys.observer!, room, batched);
      const player = await join(keys.player!, room, batched);
      await until(() => changes(observer).length === 1);
      const admin = await join(keys.admin!, room, batched);
      expect(presence(admin)[0].model.actors).toEqual([people.observer, people.player]);

      await player.stop();
      await until(() => changes(observer).some((c) => c.departed.length));
      await settle(room, observer, admin);
      // The admin was never named while third.
      expect(changes(observer)).toEqual([
        { channelId: room, arrived: [people.player], departed: [] },
        { channelId: room, arrived: [people.admin], departed: [people.player] },
      ]);
      expect(changes(admin).flatMap((c) => c.departed)).toEqual([people.player]);
    });
  });
});

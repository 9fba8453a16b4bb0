import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/core/ids';
import { startTestServer, type TestServer } from './harness';
import { apiKey, connect, type Client, type Received } from './hubClients';

// A user's own channel (their id): the news of the workspaces they can reach, for their workspace
// list in every tab, and nobody else's.

describe('the hub channel of a user', () => {
  let server: TestServer;
  const keys: Record<string, Record<string, string>> = {};
  const ids: Record<string, string> = {};
  const clients: Client[] = [];

  /** A connection of `username` listening on their own channel. */
  const listener = async (username: string): Promise<Client> => {
    const client = await connect(server.url, keys[username]!);
    clients.push(client);
    await client.connection.invoke('Listen', ids[username]);
    return client;
  };

  const call = async (username: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api/${path}`, {
      method,
      headers: {
        ...keys[username],
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    const text = await res.text();
    return text ? (JSON.parse(text) as { id: string; code?: string }) : null;
  };

  const topo = (action: string, workspaceId: string) => (e: Received) =>
    e.name === 'TopoEvent' && e.payload.action === action && e.payload.model?.id === workspaceId;

  /** Once `client` has this marker, whatever was sent to its channel before it has arrived. */
  async function settle(username: string, client: Client) {
    const marker = newId();
    server.app.hub
      .toGroup(ids[username]!)
      .send('GlobalEvent', { action: 'TEST.MARKER', actor: { id: '', name: '' }, model: marker });
    await client.next((e) => e.payload.model === marker);
  }

  beforeAll(async () => {
    server = await startTestServer();
    for (const username of ['creator', 'player', 'observer']) {
      keys[username] = apiKey(await server.apiKeyFor(username));
      ids[username] = await server.userId(username);
    }
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.stop().catch(() => {})));
    await server?.close();
  });

  it('tells the users concerned, and only them, of workspaces created, joined, cloned, left and deleted', async () => {
    const otherTab = await listener('creator');
    const collaborator = await listener('player');
    const stranger = await listener('observer');
    const creator = { id: ids.creator, name: 'Creator' };

    // Created: the creator's other tab hears of it.
    const created = (await call('creator', 'POST', 'workspace', { name: 'Shared lab' }))!;
    const added = await otherTab.next(topo('TOPO.ADDED', created.id));
    expect(added.payload).toEqual({
      action: 'TOPO.ADDED',
      actor: creator,
      model: expect.objectContaining({ id: created.id, name: 'Shared lab' }),
    });

    // Joined by invitation: the newcomer hears of it.
    const { code } = (await call('creator', 'PUT', `workspace/${created.id}/invite`))!;
    await call('player', 'POST', `worker/${code}`);
    await collaborator.next(topo('TOPO.ADDED', created.id));

    // Cloned: the copy keeps the workers, so both hear of it.
    const clone = (await call('creator', 'POST', `workspace/${created.id}/clone`))!;
    await otherTab.next(topo('TOPO.ADDED', clone.id));
    await collaborator.next(topo('TOPO.ADDED', clone.id));

    // Removed from the original: the collaborator learns it, and no more than its id and name.
    await call('creator', 'DELETE', `workspace/${created.id}/worker/${ids.player}`);
    const removed = await collaborator.next(topo('TOPO.REMOVED', created.id));
    expect(removed.payload.model).toEqual({ id: created.id, name: 'Shared lab' });

    // Deleted: every worker of it hears of it.
    await call('creator', 'DELETE', `workspace/${clone.id}`);
    await otherTab.next(topo('TOPO.DELETED', clone.id));
    await collaborator.next(topo('TOPO.DELETED', clone.id));

    // The stranger heard nothing of any of it, and the creator's tabs saw nobody arrive.
    await settle('observer', stranger);
    expect(stranger.events.filter((e) => e.name !== 'GlobalEvent')).toEqual([]);
    await settle('creator', otherTab);
    expect(otherTab.events.filter((e) => e.name === 'PresenceEvent')).toEqual([]);
  });

  it("refuses to let anyone but the user (or an administrator) listen on a user's channel", async () => {
    const stranger = await connect(server.url, keys.observer!);
    clients.push(stranger);
    await expect(stranger.connection.invoke('Listen', ids.creator)).rejects.toThrow(
      'ActionForbidden',
    );
  });

  it("does not announce a user's second tab on their own channel", async () => {
    const first = await listener('creator');
    await listener('creator');
    await settle('creator', first);
    expect(first.events.filter((e) => e.name === 'PresenceEvent')).toEqual([]);
  });
});

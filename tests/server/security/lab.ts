import { expect } from 'vitest';
import { ROLE_NUMBERS } from '../../../server/core/roles';
import { apiRequest, type Json } from '../api';
import { startTestServer } from '../harness';
import { apiKey } from '../hubClients';

// A lab for the security suites that need a running machine of a player's gamespace.

/**
 * The real server with the sim driver (machine tasks end at once) and `env`; an administrator, a
 * creator and a player with API keys; a workspace of one machine open to everyone; and the
 * player's started gamespace of it.
 */
export async function labServer(
  env: Record<string, string>,
  options: { engine?: 'sqlite' | 'postgres' } = {},
) {
  const server = await startTestServer({ ...options, env: { SIM_SPEED: '0', ...env } });
  const db = server.app.store.db;
  const keys: Record<string, Record<string, string>> = {};
  for (const [name, role] of [
    ['admin', 'administrator'],
    ['creator', 'creator'],
    ['player', 'user'],
  ] as const) {
    await db
      .updateTable('users')
      .set({ role: ROLE_NUMBERS[role], gamespaceLimit: 0 })
      .where('id', '=', await server.userId(name))
      .execute();
    keys[name] = apiKey(await server.apiKeyFor(name));
  }
  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, keys[who]!, method, path, body);
  const workspace = (
    await call('creator', 'POST', '/workspace', { name: 'Lab', audience: 'everyone' })
  ).body as Json;
  // The stock linux-server, linked as an author links it.
  const stock = (await call('creator', 'GET', '/templates?term=linux-server')).body as Json[];
  const parent = stock.find((t) => t.name === 'linux-server');
  const linked = await call('creator', 'POST', '/template', {
    templateId: parent.id,
    workspaceId: workspace.id,
  });
  expect(linked.status, linked.text).toBe(200);
  const game = (
    await call('player', 'POST', '/gamespace', { resourceId: workspace.id, startGamespace: true })
  ).body as Json;
  expect(game.vms).toHaveLength(1);
  const vmId = game.vms[0].id as string;
  /** A fresh console address (with its one-time ticket) for `who`. */
  const consoleUrl = async (who: string): Promise<string> => {
    const reply = await call(who, 'GET', `/vm-console/${vmId}`);
    expect(reply.status, reply.text).toBe(200);
    return reply.body.url as string;
  };
  return { server, consoleUrl, call, keys, gameId: game.id as string, vmId };
}

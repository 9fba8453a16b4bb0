import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness';
import { qemuFolders, removeQemuState, type QemuFolders } from './hypervisor/qemuMachines';

// A launch the qemu host has no room for (QEMU_MAX_RUNNING=1, one machine running already): the
// player is told why, in a sentence with what is in use, and nothing of the launch is left: no
// gamespace that a later launch would find empty, no machine.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('a launch beyond the qemu host’s capacity', () => {
  let server: TestServer;
  let folders: QemuFolders;
  let stateDir: string;
  const keys: Record<string, string> = {};

  const call = async (who: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers: {
        'x-api-key': keys[who]!,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  };

  beforeAll(async () => {
    folders = await qemuFolders();
    stateDir = mkdtempSync(join(tmpdir(), 'tql-'));
    server = await startTestServer({
      env: {
        HYPERVISOR: 'qemu',
        QEMU_IMAGES_DIR: folders.imagesDir,
        QEMU_STATE_DIR: stateDir,
        QEMU_MAX_RUNNING: '1',
      },
    });
    for (const u of ['creator', 'player', 'observer']) keys[u] = await server.apiKeyFor(u);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    removeQemuState(stateDir, folders);
  }, 60_000);

  it('refuses with what is in use, and leaves no gamespace and no machine behind', async () => {
    const workspace = (await call('creator', 'POST', '/workspace', { name: 'Full host' })).body;
    const stock = (await call('creator', 'GET', '/templates?term=tiny-linux')).body as Json[];
    const tiny = stock.find((t) => t.name === 'tiny-linux');
    expect(
      (
        await call('creator', 'POST', '/template', {
          templateId: tiny.id,
          workspaceId: workspace.id,
        })
      ).status,
    ).toBe(200);
    const settings = (await call('creator', 'GET', `/workspace/${workspace.id}`)).body;
    await call('creator', 'PUT', '/workspace', { ...settings, audience: 'everyone' });

    const launch = (who: string) =>
      call(who, 'POST', '/gamespace', { resourceId: workspace.id, startGamespace: true });
    const first = await launch('player');
    expect(first.status).toBe(200);
    expect(first.body.vms).toHaveLength(1);

    const refused = await launch('observer');
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      message: 'HypervisorCapacity',
      capacity: '1 of at most 1 machines are running; 1 more do not fit',
    });
    // Nothing of the refused launch is left: a second try is refused the same way, not answered
    // with an empty game, and the host has only the first player's machine.
    expect((await launch('observer')).body.message).toBe('HypervisorCapacity');
    const all = (await call('creator', 'GET', `/gamespaces?filter=all`)).body as Json[];
    expect(all.map((g: Json) => g.id)).toEqual([first.body.id]);
    expect(readdirSync(join(stateDir, 'machines'))).toHaveLength(1);
  }, 180_000);
});

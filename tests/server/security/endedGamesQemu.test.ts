import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { qemuProcessesUnder } from '../../../server/hypervisor/qemu/processes';
import { startTestServer, type TestServer } from '../harness';
import { qemuFolders, removeQemuState, type QemuFolders } from '../hypervisor/qemuMachines';
import { apiKey } from '../hubClients';
import { apiRequest, type Json } from '../api';

// Security issue 26, finding 6, on real machines: a completed gamespace's QEMU processes go right
// after the completion, not at the janitor's next run, so they stop holding the host's memory and
// its running-machine cap (QEMU_MAX_RUNNING=1 here: the next launch fits again).

/** Stopping a QEMU (a quit over its monitor, SIGKILL after 5 s) and its folder going. */
const GONE_WITHIN_MS = 30_000;

describe('a completed gamespace on the qemu host', () => {
  let server: TestServer;
  let folders: QemuFolders;
  let stateDir: string;
  const headers: Record<string, Record<string, string>> = {};

  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers[who]!, method, path, body);

  beforeAll(async () => {
    folders = await qemuFolders();
    stateDir = mkdtempSync(join(tmpdir(), 'tqe-'));
    server = await startTestServer({
      env: {
        HYPERVISOR: 'qemu',
        QEMU_IMAGES_DIR: folders.imagesDir,
        QEMU_STATE_DIR: stateDir,
        QEMU_MAX_RUNNING: '1',
      },
    });
    for (const who of ['creator', 'player', 'observer']) {
      headers[who] = apiKey(await server.apiKeyFor(who));
    }
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    removeQemuState(stateDir, folders);
  }, 60_000);

  it('leaves no QEMU process of it shortly after, and its room to the next launch', async () => {
    const workspace = (await call('creator', 'POST', '/workspace', { name: 'Completed lab' }))
      .body as Json;
    const stock = (await call('creator', 'GET', '/templates?term=tiny-linux')).body as Json[];
    const tiny = stock.find((t) => t.name === 'tiny-linux');
    const linked = await call('creator', 'POST', '/template', {
      templateId: tiny.id,
      workspaceId: workspace.id,
    });
    expect(linked.status, linked.text).toBe(200);
    const settings = (await call('creator', 'GET', `/workspace/${workspace.id}`)).body as Json;
    await call('creator', 'PUT', '/workspace', { ...settings, audience: 'everyone' });
    const launch = (who: string) =>
      call(who, 'POST', '/gamespace', { resourceId: workspace.id, startGamespace: true });

    const game = await launch('player');
    expect(game.status, game.text).toBe(200);
    const vmId = game.body.vms[0].id as string;
    const processesOf = async () =>
      (await qemuProcessesUnder(join(stateDir, 'machines'))).filter((p) => p.id === vmId);
    expect(await processesOf()).toHaveLength(1);

    const completed = await call('player', 'POST', `/gamespace/${game.body.id}/complete`);
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body).toMatchObject({ id: game.body.id, isActive: false, vms: [] });
    expect((await call('player', 'GET', `/vm-console/${vmId}`)).status).toBe(403);

    await vi.waitFor(async () => expect(await processesOf()).toEqual([]), {
      timeout: GONE_WITHIN_MS,
      interval: 200,
    });
    // The host's one running machine was the completed game's: another player's launch fits.
    const next = await launch('observer');
    expect(next.status, next.text).toBe(200);
    expect(next.body.vms).toHaveLength(1);
  }, 180_000);
});

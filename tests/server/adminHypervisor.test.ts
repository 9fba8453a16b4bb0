import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_GUID, newId } from '../../server/core/ids';
import { toMachineSpec } from '../../server/core/machineSpecs';
import { toVmTemplate } from '../../server/core/templates';
import { startTestServer, type TestServer } from './harness';

// GET /api/admin/hypervisor (ours): what the admin dashboard shows of the driver this server
// runs machines with, its caps and its orphans.

describe('admin hypervisor status', () => {
  let server: TestServer;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer({ env: { SIM_SPEED: '0' } });
    for (const u of ['admin', 'player']) keys[u] = await server.apiKeyFor(u);
  });
  afterAll(() => server?.close());

  const get = async (key?: string) => {
    const res = await fetch(`${server.url}/api/admin/hypervisor`, {
      headers: key ? { 'x-api-key': key } : {},
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? (JSON.parse(text) as unknown) : null };
  };

  it('is refused to anyone but an administrator', async () => {
    expect(await get(keys.player!)).toMatchObject({ status: 403, text: '' });
    expect((await get()).status).toBe(401);
  });

  it("answers the sim driver's status, counting the machines it runs, without caps", async () => {
    const before = await get(keys.admin!);
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      kind: 'sim',
      acceleration: 'simulated',
      running: 0,
      maxRunning: null,
      memoryMiBInUse: 0,
      maxMemoryMiB: null,
      orphans: 0,
    });

    const tag = newId();
    const vm = await server.app.driver.deploy(
      toMachineSpec(
        toVmTemplate({
          Name: 'kali',
          IsolationTag: tag,
          AutoStart: false,
          Eth: [{ Net: 'lan', Type: 'e1000' }],
          Disks: [{ Path: `[ds] ${EMPTY_GUID}/kali.vmdk`, Source: '' }],
        }),
      ),
      false,
    );
    await server.app.driver.start(vm.id);
    expect((await get(keys.admin!)).body).toMatchObject({ kind: 'sim', running: 1 });
  });
});

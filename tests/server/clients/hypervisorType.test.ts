import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../databases';
import { startTestServer, type TestServer } from '../harness';
import { gameboard, type Json, type WireReply } from './wire';

// The generated TopoMojo clients read `Vm.hypervisorType` into an enum of exactly `vsphere` and
// `proxmox` and throw on anything else, so every reply carrying a Vm keeps to those; what the SPA
// needs to know (may it revert?) travels in `operations`, a field those clients ignore.

const REFERENCE_TYPES = ['vsphere', 'proxmox'];
const OPERATIONS = ['start', 'stop', 'save', 'revert', 'delete', 'reset'];

/** What a client of the reference can read from a Vm, and what the SPA reads besides. */
function expectWireVm(vm: Json, where: string) {
  expect(REFERENCE_TYPES, `${where}: hypervisorType ${vm?.hypervisorType}`).toContain(
    vm?.hypervisorType,
  );
  expect(Array.isArray(vm.operations), `${where}: operations`).toBe(true);
  for (const op of vm.operations) expect(OPERATIONS, `${where}: operation`).toContain(op);
}

describe.each(testEngines())("Vm.hypervisorType in the reference's enum on %s", (engine) => {
  let server: TestServer;
  let client: ReturnType<typeof gameboard>;
  let templateId = '';
  let vmId = '';

  const ok = async (reply: Promise<WireReply>): Promise<Json> => {
    const res = await reply;
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    client = gameboard(server.url, await server.apiKeyFor('admin'));
    const ws = await ok(client.call('POST', '/api/workspace', { name: 'Hypervisor types' }));
    const stock = (await ok(client.get('/api/templates'))) as Json[];
    const linked = await ok(
      client.call('POST', '/api/template', { templateId: stock[0].id, workspaceId: ws.id }),
    );
    templateId = linked.id;
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it('answers every Vm-returning route with a reference type and the operations', async () => {
    expectWireVm(await ok(client.get(`/api/vm-template/${templateId}`)), 'GET vm-template');
    const deployed = await ok(client.call('POST', `/api/vm-template/${templateId}`, {}));
    expectWireVm(deployed, 'POST vm-template');
    vmId = deployed.id;
    expectWireVm(await ok(client.get(`/api/vm/${vmId}`)), 'GET vm');
    const listed = (await ok(client.get(`/api/vms?filter=${vmId}`))) as Json[];
    expect(listed).toHaveLength(1);
    expectWireVm(listed[0], 'GET vms');
    const changed = await ok(
      client.call('PUT', `/api/vm/${vmId}/change`, { key: 'boot', value: '5' }),
    );
    expectWireVm(changed, 'PUT vm change');
    const stopped = await ok(client.call('PUT', '/api/vm', { id: vmId, type: 'stop' }));
    expectWireVm(stopped, 'PUT vm');
  });

  it("says a simulated machine cannot revert, as proxmox's cannot", async () => {
    const vm = await ok(client.get(`/api/vm-template/${templateId}`));
    expect(vm.hypervisorType).toBe('proxmox');
    expect(vm.operations).toEqual(expect.arrayContaining(['start', 'stop', 'save', 'delete']));
    expect(vm.operations).not.toContain('revert');
  });

  it('resets a machine on PUT /api/vm as the .NET client sends it (PascalCase enum)', async () => {
    const reset = await ok(client.call('PUT', '/api/vm', { id: vmId, type: 'Reset' }));
    expect(reset.id).toBe(vmId);
    expectWireVm(reset, 'PUT vm Reset');
  });
});

import { get as httpsGet } from 'node:https';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { vncAuthResponse } from '../../server/hypervisor/proxmox/des';
import { createByteQueue } from '../../server/hypervisor/sim/console/byteQueue';
import { SCREEN_HEIGHT, SCREEN_WIDTH } from '../../server/hypervisor/sim/console/screen';
import { startPveSimulator, type PveSimulator, type PveSimulatorOptions } from './simulator';
import { call, data, taskLog, waitTask, type TaskStatus } from './testApi';

// The PVE API simulator through its HTTP API only (fetch and ws), as the proxmox driver will use
// it: PVE's behaviours the driver depends on, each in a test that fails without it.

/** Short task times so the tests run fast; each test overrides what it is about. */
const FAST: PveSimulatorOptions = {
  cloneMs: 50,
  fullCloneMs: 400,
  taskMs: 20,
  sdnReloadMs: 150,
  lockWaitMs: 100,
  agentDelayMs: 100,
};

const running: PveSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.close()));
});

async function start(options: PveSimulatorOptions = {}): Promise<PveSimulator> {
  const sim = await startPveSimulator({ ...FAST, ...options });
  running.push(sim);
  return sim;
}

/** A running linked clone of template 9000 on pve1. */
async function runningVm(sim: PveSimulator, newid: number, name = 'web'): Promise<void> {
  const clone = await data<string>(sim, 'POST', '/nodes/pve1/qemu/9000/clone', { newid, name });
  expect((await waitTask(sim, clone)).exitstatus).toBe('OK');
  const upid = await data<string>(sim, 'POST', `/nodes/pve1/qemu/${newid}/status/start`);
  expect((await waitTask(sim, upid)).exitstatus).toBe('OK');
}

describe('PVE API simulator: requests', () => {
  it('says it is the simulator, and refuses a caller without a valid token with 401', async () => {
    const sim = await start();
    expect(await data(sim, 'GET', '/version')).toEqual({
      version: '8.4.0',
      release: '8.4',
      repoid: 'topoplay-simulator',
    });
    const anonymous = await call(sim, 'GET', '/version', {}, {});
    expect([anonymous.status, anonymous.reason]).toEqual([401, 'authentication failure']);
    const wrong = await call(
      sim,
      'GET',
      '/version',
      {},
      {
        authorization: `PVEAPIToken=${sim.tokenId}=not-the-secret`,
      },
    );
    expect(wrong.status).toBe(401);
    expect(sim.requests()).toEqual([
      { method: 'GET', path: '/version', status: 200 },
      { method: 'GET', path: '/version', status: 401 },
      { method: 'GET', path: '/version', status: 401 },
    ]);
  });

  it('refuses a request that breaks the schema with 400 and per-parameter errors, an unknown path with 501', async () => {
    const sim = await start();
    const bad = await call(sim, 'POST', '/nodes/pve1/qemu/9000/clone', { newid: 99, bogus: 1 });
    expect(bad.status).toBe(400);
    expect(bad.reason).toBe('Parameter verification failed.');
    expect(bad.body.data).toBeNull();
    expect(Object.keys(bad.body.errors ?? {}).sort()).toEqual(['bogus', 'newid']);
    const unknown = await call(sim, 'GET', '/nodes/pve1/lxc');
    expect(unknown.status).toBe(501);
    expect(sim.vms().map((vm) => vm.vmid)).toEqual([9000]);
  });

  it('answers 500 when a reply does not match the PVE schema (strict mode), and passes it when not strict', async () => {
    const overrides = { 'GET /version': () => ({ version: { major: 8 } }) };
    const strict = await start({ overrides });
    const refused = await call(strict, 'GET', '/version');
    expect(refused.status).toBe(500);
    expect(refused.reason).toMatch(/^simulator reply does not match the PVE schema: /);
    const lax = await start({ overrides, strict: false });
    expect((await call(lax, 'GET', '/version')).status).toBe(200);
  });

  it('refuses `args` to an API token (root only) but takes it from a root@pam ticket with its CSRF token', async () => {
    const sim = await start({ rootPassword: 'pw' });
    await runningVm(sim, 100);
    const byToken = await call(sim, 'PUT', '/nodes/pve1/qemu/100/config', { args: '-no-reboot' });
    expect([byToken.status, byToken.reason]).toEqual([500, "only root can set 'args' config"]);

    const login = await call(
      sim,
      'POST',
      '/access/ticket',
      { username: 'root@pam', password: 'pw' },
      {},
    );
    const { ticket, CSRFPreventionToken } = login.body.data as Record<string, string>;
    const cookie = `PVEAuthCookie=${encodeURIComponent(ticket ?? '')}`;
    const noCsrf = await call(
      sim,
      'PUT',
      '/nodes/pve1/qemu/100/config',
      { args: '-no-reboot' },
      { cookie },
    );
    expect(noCsrf.status).toBe(401);
    const asRoot = await call(
      sim,
      'PUT',
      '/nodes/pve1/qemu/100/config',
      { args: '-no-reboot' },
      {
        cookie,
        csrfpreventiontoken: CSRFPreventionToken ?? '',
      },
    );
    expect(asRoot.status).toBe(200);
    expect(sim.vms().find((vm) => vm.vmid === 100)?.config.args).toBe('-no-reboot');
    const wrongPassword = await call(
      sim,
      'POST',
      '/access/ticket',
      { username: 'root@pam', password: 'x' },
      {},
    );
    expect(wrongPassword.status).toBe(401);
  });

  it('serves https with a self-signed certificate whose fingerprint it reports', async () => {
    const sim = await start({ tls: true });
    expect(sim.url).toMatch(/^https:/);
    const { fingerprint, body } = await new Promise<{ fingerprint: string; body: string }>(
      (resolve, reject) => {
        const request = httpsGet(
          `${sim.url}/api2/json/version`,
          {
            ca: sim.ca ?? '',
            headers: { authorization: `PVEAPIToken=${sim.tokenId}=${sim.tokenSecret}` },
          },
          (response) => {
            const peer = (response.socket as import('node:tls').TLSSocket).getPeerCertificate();
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.on('end', () => resolve({ fingerprint: peer.fingerprint256, body: text }));
          },
        );
        request.on('error', reject);
      },
    );
    expect(fingerprint).toBe(sim.fingerprint);
    expect(JSON.parse(body)).toMatchObject({ data: { repoid: 'topoplay-simulator' } });
  });
});

describe('PVE API simulator: clones and tasks', () => {
  it('hands two callers the same next id, and the second clone to use it fails', async () => {
    const sim = await start({
      templates: [
        { vmid: 9000, name: 'tiny', node: 'pve1', memoryMiB: 512 },
        { vmid: 9001, name: 'other', node: 'pve1', memoryMiB: 512 },
      ],
    });
    const [a, b] = await Promise.all([
      data<string>(sim, 'GET', '/cluster/nextid'),
      data<string>(sim, 'GET', '/cluster/nextid'),
    ]);
    expect(a).toBe('100');
    expect(b).toBe(a);
    await data(sim, 'POST', '/nodes/pve1/qemu/9000/clone', { newid: a });
    const second = await call(sim, 'POST', '/nodes/pve1/qemu/9001/clone', { newid: b });
    expect([second.status, second.reason]).toEqual([
      500,
      'unable to create VM 100: config file already exists',
    ]);
    expect(await data(sim, 'GET', '/cluster/nextid')).toBe('101');
    const taken = await call(sim, 'GET', '/cluster/nextid', { vmid: 100 });
    expect(taken.status).toBe(400);
    expect(taken.body.errors).toEqual({ vmid: 'VM 100 already exists' });
  });

  it('makes a second clone of a template wait for the first one’s lock, and fail when it waits too long', async () => {
    const sim = await start({ cloneMs: 1_000, lockWaitMs: 100 });
    const first = await data<string>(sim, 'POST', '/nodes/pve1/qemu/9000/clone', { newid: 100 });
    const blocked = await call(sim, 'POST', '/nodes/pve1/qemu/9000/clone', { newid: 101 });
    expect([blocked.status, blocked.reason]).toEqual([
      500,
      "can't lock file '/var/lock/qemu-server/lock-9000.conf' - got timeout",
    ]);
    expect(sim.vms().map((vm) => vm.vmid)).toEqual([100, 9000]);
    await waitTask(sim, first);
    expect((await call(sim, 'POST', '/nodes/pve1/qemu/9000/clone', { newid: 101 })).status).toBe(
      200,
    );
  });

  it('lets a waiting clone go once the lock is free within lockWaitMs', async () => {
    const sim = await start({ cloneMs: 200, lockWaitMs: 2_000 });
    const first = await data<string>(sim, 'POST', '/nodes/pve1/qemu/9000/clone', { newid: 100 });
    const second = await call(sim, 'POST', '/nodes/pve1/qemu/9000/clone', { newid: 101 });
    expect(second.status).toBe(200);
    // The second call was answered only once it held the lock, so the first clone had ended.
    const firstStatus = await data<TaskStatus>(
      sim,
      'GET',
      `/nodes/pve1/tasks/${encodeURIComponent(first)}/status`,
    );
    expect(firstStatus).toMatchObject({ status: 'stopped', exitstatus: 'OK' });
    expect((await waitTask(sim, second.body.data as string)).exitstatus).toBe('OK');
  });

  it('refuses a linked clone of a VM that is not a template', async () => {
    const sim = await start();
    const full = await data<string>(sim, 'POST', '/nodes/pve1/qemu/9000/clone', {
      newid: 100,
      full: 1,
    });
    await waitTask(sim, full);
    expect(sim.vms()[0]?.config.scsi0).toBe('local-lvm:vm-100-disk-0,size=2G');
    const linked = await call(sim, 'POST', '/nodes/pve1/qemu/100/clone', { newid: 101, full: 0 });
    expect([linked.status, linked.reason]).toEqual([
      500,
      "Linked clone feature is not supported for 'local-lvm:vm-100-disk-0' (scsi0)",
    ]);
  });

  it('reports a full clone’s progress in its task log and unlocks the clone when it ends', async () => {
    const sim = await start({ fullCloneMs: 1_000 });
    const upid = await data<string>(sim, 'POST', '/nodes/pve1/qemu/9000/clone', {
      newid: 100,
      full: 1,
      target: 'pve2',
    });
    expect(upid).toMatch(
      /^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:qmclone:9000:topoplay@pve!driver:$/,
    );
    // While it runs: the config exists and is locked, and the log shows partial progress.
    const running = await data<TaskStatus>(
      sim,
      'GET',
      `/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`,
    );
    expect(running.status).toBe('running');
    expect(sim.vms().find((vm) => vm.vmid === 100)?.lock).toBe('clone');
    await expect
      .poll(async () => (await taskLog(sim, upid)).join('\n'), { interval: 20, timeout: 5_000 })
      .toMatch(/transferred [\d.]+ GiB of 2\.00 GiB \((?!100)\d+\.\d{2}%\)/);
    const done = await waitTask(sim, upid);
    expect(done.exitstatus).toBe('OK');
    const log = await taskLog(sim, upid);
    expect(log).toContain('transferred 2.00 GiB of 2.00 GiB (100.00%)');
    expect(log.at(-1)).toBe('TASK OK');
    const vm = sim.vms().find((v) => v.vmid === 100);
    expect(vm?.lock).toBeUndefined();
    expect(vm?.node).toBe('pve2');
  });

  it('fails a start task for a template, and a destroy task for a template that linked clones use', async () => {
    const sim = await start();
    const startTemplate = await data<string>(sim, 'POST', '/nodes/pve1/qemu/9000/status/start');
    expect((await waitTask(sim, startTemplate)).exitstatus).toBe(
      "you can't start a vm if it's a template",
    );
    await runningVm(sim, 100);
    const destroyRunning = await call(sim, 'DELETE', '/nodes/pve1/qemu/100');
    expect([destroyRunning.status, destroyRunning.reason]).toEqual([
      500,
      'VM 100 is running - destroy failed',
    ]);
    const destroyTemplate = await data<string>(sim, 'DELETE', '/nodes/pve1/qemu/9000');
    expect((await waitTask(sim, destroyTemplate)).exitstatus).toBe(
      "base volume 'local-lvm:base-9000-disk-0' is still in use by linked cloned",
    );
  });

  it('rolls a VM back to a snapshot’s config and leaves it stopped', async () => {
    const sim = await start();
    await runningVm(sim, 100);
    const snap = await data<string>(sim, 'POST', '/nodes/pve1/qemu/100/snapshot', {
      snapname: 'before',
    });
    await waitTask(sim, snap);
    await data(sim, 'PUT', '/nodes/pve1/qemu/100/config', { memory: 1024 });
    const rollback = await data<string>(
      sim,
      'POST',
      '/nodes/pve1/qemu/100/snapshot/before/rollback',
    );
    expect((await waitTask(sim, rollback)).exitstatus).toBe('OK');
    const vm = sim.vms().find((v) => v.vmid === 100);
    expect(vm).toMatchObject({ status: 'stopped', snapshots: ['before'] });
    expect(vm?.config.memory).toBe('512');
    const list = await data<{ name: string; parent?: string }[]>(
      sim,
      'GET',
      '/nodes/pve1/qemu/100/snapshot',
    );
    expect(list.map((s) => [s.name, s.parent])).toEqual([
      ['before', undefined],
      ['current', 'before'],
    ]);
  });

  it('answers the guest agent only some time after the start, and keeps written files', async () => {
    const sim = await start({ agentDelayMs: 800 });
    await runningVm(sim, 100);
    const early = await call(sim, 'POST', '/nodes/pve1/qemu/100/agent/ping');
    expect([early.status, early.reason]).toEqual([500, 'QEMU guest agent is not running']);
    await vi.waitFor(
      async () =>
        expect((await call(sim, 'POST', '/nodes/pve1/qemu/100/agent/ping')).status).toBe(200),
      { timeout: 5_000, interval: 20 },
    );
    await data(sim, 'POST', '/nodes/pve1/qemu/100/agent/file-write', {
      file: '/etc/motd',
      content: 'hello',
    });
    expect(sim.agentFiles(100)).toEqual({ '/etc/motd': 'hello' });
  });

  it('reads files and runs commands through the guest agent, the command a repeated key', async () => {
    const sim = await start({ agentDelayMs: 0, taskMs: 200 });
    await runningVm(sim, 100);
    const agent = '/nodes/pve1/qemu/100/agent';
    const missing = await call(sim, 'GET', `${agent}/file-read`, { file: '/etc/motd' });
    expect(missing.status).toBe(500);
    expect(missing.reason).toContain('No such file or directory');
    await data(sim, 'POST', `${agent}/file-write`, { file: '/etc/motd', content: 'hello' });
    expect(await data(sim, 'GET', `${agent}/file-read`, { file: '/etc/motd' })).toEqual({
      content: 'hello',
    });
    // At most `count` bytes from `offset`, base64 with decode=0; truncated before the end.
    expect(
      await data(sim, 'GET', `${agent}/file-read`, {
        file: '/etc/motd',
        offset: 1,
        count: 3,
        decode: 0,
      }),
    ).toEqual({ content: Buffer.from('ell').toString('base64'), truncated: true });
    // What the guest wrote itself reads the same.
    sim.writeGuestFile(100, '/tmp/note', 'né');
    expect(
      await data(sim, 'GET', `${agent}/file-read`, { file: '/tmp/note', count: 9, decode: 0 }),
    ).toEqual({ content: Buffer.from('né').toString('base64') });
    const { pid } = await data<{ pid: number }>(sim, 'POST', `${agent}/exec`, {
      command: ['/bin/sh', '-c', 'true'],
    });
    expect(sim.agentExecs(100)).toEqual([
      { pid, command: ['/bin/sh', '-c', 'true'], startedAt: expect.any(Number) },
    ]);
    // It runs for the task time, then has exited with 0.
    expect(await data(sim, 'GET', `${agent}/exec-status`, { pid })).toEqual({ exited: false });
    await vi.waitFor(
      async () =>
        expect(await data(sim, 'GET', `${agent}/exec-status`, { pid })).toEqual({
          exited: true,
          exitcode: 0,
        }),
      { timeout: 5_000, interval: 20 },
    );
    const unknown = await call(sim, 'GET', `${agent}/exec-status`, { pid: pid + 1 });
    expect([unknown.status, unknown.reason]).toEqual([500, "Agent error: Invalid parameter 'pid'"]);
  });
});

describe('PVE API simulator: SDN', () => {
  it('starts a VM on a new vnet only once the SDN reload task has ended', async () => {
    const sim = await start({ sdnReloadMs: 1_000 });
    const clone = await data<string>(sim, 'POST', '/nodes/pve1/qemu/9000/clone', { newid: 100 });
    await waitTask(sim, clone);
    await data(sim, 'POST', '/cluster/sdn/vnets', { vnet: 'lan1', zone: 'topoplay', tag: 1001 });
    const dup = await call(sim, 'POST', '/cluster/sdn/vnets', {
      vnet: 'lan2',
      zone: 'topoplay',
      tag: 1001,
    });
    expect(dup.status).toBe(400);
    // A pending vnet may be named in a config, but its bridge does not exist yet.
    await data(sim, 'PUT', '/nodes/pve1/qemu/100/config', { net0: 'virtio,bridge=lan1' });
    expect(sim.vms().find((vm) => vm.vmid === 100)?.config.net0).toMatch(
      /^virtio=BC:24:11:[0-9A-F:]{8},bridge=lan1$/,
    );
    const unknown = await call(sim, 'PUT', '/nodes/pve1/qemu/100/config', {
      net1: 'virtio,bridge=lan9',
    });
    expect([unknown.status, unknown.reason]).toEqual([500, "bridge 'lan9' does not exist"]);
    const pending = await data<Record<string, unknown>[]>(sim, 'GET', '/cluster/sdn/vnets', {
      pending: 1,
    });
    expect(pending).toEqual([
      expect.objectContaining({
        vnet: 'lan1',
        state: 'new',
        pending: { zone: 'topoplay', tag: 1001 },
      }),
    ]);
    const early = await data<string>(sim, 'POST', '/nodes/pve1/qemu/100/status/start');
    expect((await waitTask(sim, early)).exitstatus).toBe("bridge 'lan1' does not exist");

    const reload = await data<string>(sim, 'PUT', '/cluster/sdn');
    expect(reload).toMatch(/:reloadnetworkall::/);
    // Committed at once (nothing pending any more), but the bridges come with the task's end.
    const committed = await data<Record<string, unknown>[]>(sim, 'GET', '/cluster/sdn/vnets', {
      pending: 1,
    });
    expect(committed[0]?.state).toBeUndefined();
    expect(sim.vnets()).toEqual([{ vnet: 'lan1', zone: 'topoplay', tag: 1001, state: 'new' }]);
    const tooSoon = await data<string>(sim, 'POST', '/nodes/pve1/qemu/100/status/start');
    expect((await waitTask(sim, tooSoon)).exitstatus).toBe("bridge 'lan1' does not exist");
    await waitTask(sim, reload);
    expect(sim.vnets()[0]?.state).toBe('applied');
    const started = await data<string>(sim, 'POST', '/nodes/pve1/qemu/100/status/start');
    expect((await waitTask(sim, started)).exitstatus).toBe('OK');

    await data(sim, 'DELETE', '/cluster/sdn/vnets/lan1');
    expect(sim.vnets()[0]?.state).toBe('deleted');
  });

  it('relabels a vnet in the configuration only, its bridge staying as it is', async () => {
    const sim = await start();
    await data(sim, 'POST', '/cluster/sdn/vnets', {
      vnet: 'lan1',
      zone: 'topoplay',
      tag: 1001,
      alias: 'lan--a',
    });
    await waitTask(sim, await data<string>(sim, 'PUT', '/cluster/sdn'));
    await data(sim, 'PUT', '/cluster/sdn/vnets/lan1', { alias: 'lan--b' });
    expect(sim.vnets()).toEqual([
      { vnet: 'lan1', zone: 'topoplay', tag: 1001, alias: 'lan--b', state: 'changed' },
    ]);
    const pending = await data<Record<string, unknown>[]>(sim, 'GET', '/cluster/sdn/vnets', {
      pending: 1,
    });
    expect(pending[0]).toMatchObject({
      alias: 'lan--a',
      state: 'changed',
      pending: { alias: 'lan--b' },
    });
    const stale = await call(sim, 'PUT', '/cluster/sdn/vnets/lan1', { alias: 'x', digest: 'ab' });
    expect(stale.status).toBe(500);
    const missing = await call(sim, 'PUT', '/cluster/sdn/vnets/lan9', { alias: 'x' });
    expect([missing.status, missing.reason]).toEqual([500, "sdn vnet 'lan9' does not exist"]);
    await waitTask(sim, await data<string>(sim, 'PUT', '/cluster/sdn'));
    expect(sim.vnets()[0]?.state).toBe('applied');
  });
});

describe('PVE API simulator: consoles', () => {
  /** Bytes a WebSocket receives, read in exact amounts. */
  function reader(ws: WebSocket) {
    const queue = createByteQueue();
    ws.on('message', (bytes: Buffer) => queue.push(bytes));
    return async (n: number): Promise<Buffer> => {
      await vi.waitFor(() => expect(queue.length).toBeGreaterThanOrEqual(n), {
        timeout: 5_000,
        interval: 5,
      });
      return queue.take(n);
    };
  }

  async function openConsole(sim: PveSimulator, port: string, ticket: string) {
    const url = new URL(
      `${sim.url.replace(/^http/, 'ws')}/api2/json/nodes/pve1/qemu/100/vncwebsocket`,
    );
    url.searchParams.set('port', port);
    url.searchParams.set('vncticket', ticket);
    const ws = new WebSocket(url, ['binary'], {
      headers: { authorization: `PVEAPIToken=${sim.tokenId}=${sim.tokenSecret}` },
    });
    const read = reader(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return { ws, read };
  }

  it('admits a viewer that answers the VNC challenge with the ticket, up to the ServerInit, once per ticket', async () => {
    const sim = await start();
    await runningVm(sim, 100, 'web');
    const proxy = await data<{ port: string; ticket: string; upid: string }>(
      sim,
      'POST',
      '/nodes/pve1/qemu/100/vncproxy',
      { websocket: 1 },
    );
    expect(proxy.port).toBe('5900');
    expect(proxy.ticket.length).toBeGreaterThanOrEqual(40);

    const { ws, read } = await openConsole(sim, proxy.port, proxy.ticket);
    expect((await read(12)).toString('latin1')).toBe('RFB 003.008\n');
    ws.send(Buffer.from('RFB 003.008\n', 'latin1'));
    expect([...(await read(2))]).toEqual([1, 2]);
    ws.send(Buffer.from([2]));
    const challenge = await read(16);
    ws.send(Buffer.from(vncAuthResponse(challenge, proxy.ticket)));
    expect((await read(4)).readUInt32BE(0)).toBe(0);
    ws.send(Buffer.from([1]));
    const init = await read(24);
    expect([init.readUInt16BE(0), init.readUInt16BE(2)]).toEqual([SCREEN_WIDTH, SCREEN_HEIGHT]);
    expect((await read(init.readUInt32BE(20))).toString('latin1')).toBe('web');

    // The ticket was used: another connection with it is refused.
    await expect(openConsole(sim, proxy.port, proxy.ticket)).rejects.toThrow(/401/);

    // The VM stops: the console closes.
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    await data(sim, 'POST', '/nodes/pve1/qemu/100/status/stop');
    expect(await closed).toBe(1000);
    expect((await waitTask(sim, proxy.upid)).exitstatus).toBe('OK');
  });

  it('hands an authenticated viewer to the screen given as vncScreen, and ends it when the VM stops', async () => {
    const received: Buffer[] = [];
    const ended = vi.fn();
    const sim = await start({
      vncScreen: (transport, vm) => ({
        receive(bytes) {
          received.push(bytes);
          transport.send(Buffer.from(`${vm.vmid} ${vm.name}`, 'latin1'));
        },
        end: ended,
      }),
    });
    await runningVm(sim, 100, 'web');
    const proxy = await data<{ port: string; ticket: string }>(
      sim,
      'POST',
      '/nodes/pve1/qemu/100/vncproxy',
      { websocket: 1 },
    );
    const { ws, read } = await openConsole(sim, proxy.port, proxy.ticket);
    await read(12);
    ws.send(Buffer.from('RFB 003.008\n', 'latin1'));
    await read(2);
    ws.send(Buffer.from([2]));
    const challenge = await read(16);
    ws.send(Buffer.from(vncAuthResponse(challenge, proxy.ticket)));
    expect((await read(4)).readUInt32BE(0)).toBe(0);
    ws.send(Buffer.from([1]));
    expect((await read(7)).toString('latin1')).toBe('100 web');
    expect(Buffer.concat(received)).toEqual(Buffer.from([1]));

    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    await data(sim, 'POST', '/nodes/pve1/qemu/100/status/stop');
    expect(await closed).toBe(1000);
    await vi.waitFor(() => expect(ended).toHaveBeenCalledOnce());
  });

  it('refuses a viewer whose VNC response is wrong, with a reason', async () => {
    const sim = await start();
    await runningVm(sim, 100);
    const proxy = await data<{ port: string; ticket: string }>(
      sim,
      'POST',
      '/nodes/pve1/qemu/100/vncproxy',
      { websocket: 1 },
    );
    const { ws, read } = await openConsole(sim, proxy.port, proxy.ticket);
    await read(12);
    ws.send(Buffer.from('RFB 003.008\n', 'latin1'));
    await read(2);
    ws.send(Buffer.from([2]));
    const challenge = await read(16);
    ws.send(Buffer.from(vncAuthResponse(challenge, 'not the ticket')));
    const result = await read(8);
    expect(result.readUInt32BE(0)).toBe(1);
    expect((await read(result.readUInt32BE(4))).toString('latin1')).toBe('Authentication failed');
  });
});

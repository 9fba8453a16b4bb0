import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ROLE_NUMBERS, type RoleName } from '../../server/core/roles';
import { EMPTY_GUID, newApiKey, newId, sha256Hex } from '../../server/core/ids';
import { toVmTemplate } from '../../server/core/templates';
import { SYSTEM_ACTOR } from '../../server/core/vms';
import { TASK_MS } from '../../server/hypervisor/sim/tasks';
import { CSRF_HEADER } from '../../server/http/security';
import { createAccount } from '../../server/identity';
import { testEngines } from './databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { apiKey, connect, type Client } from './hubClients';
import { createManualClock } from './manualClock';
import { signIn } from './oidc';
import { toMachineSpec } from '../../server/core/machineSpecs';

// The VM routes (wire reference §1.4, §4.8, §4.10) through the real server and the sim driver:
// builder machines deployed from templates, who may see and drive which machine, the console
// cookie, isolation while gamespaces run, the admin list's groups, and a restart mid-task. The
// sim's tasks take their real time on a manual clock: they end when a test moves it on.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Reply {
  status: number;
  text: string;
  body: Json;
}

/** Longer than any one task: moving the clock on by it ends whatever is running. */
const LONGEST_TASK_MS = Math.max(...Object.values(TASK_MS));

const VM_KEYS = [
  'id',
  'name',
  'host',
  'path',
  'reference',
  'diskPath',
  'stats',
  'status',
  'groupName',
  'tags',
  'state',
  'question',
  'task',
  'hypervisorType',
  'isTemplate',
  'operations',
  'nics',
  'capabilities',
].sort();

async function request(
  url: string,
  headers: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  const res = await fetch(`${url}/api${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
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

/** Users of a test server, each with an API key, created as an identity account and registered. */
async function addUsers(
  server: TestServer,
  users: Array<{ username: string; role: RoleName; scope?: string }>,
): Promise<Record<string, { id: string; headers: Record<string, string> }>> {
  const db = server.app.store.db;
  const out: Record<string, { id: string; headers: Record<string, string> }> = {};
  for (const u of users) {
    const seeded = ['admin', 'creator', 'observer', 'player'].includes(u.username);
    if (!seeded) {
      await createAccount(db, { username: u.username, name: u.username, password: SEED_PASSWORD });
      const { accessToken } = await signIn(server.url, u.username, SEED_PASSWORD);
      const registered = await request(
        server.url,
        { authorization: `Bearer ${accessToken}` },
        'POST',
        '/user/register',
      );
      expect(registered.status).toBe(200);
    }
    const id = await server.userId(u.username);
    await db
      .updateTable('users')
      .set({ role: ROLE_NUMBERS[u.role], scope: u.scope ?? '' })
      .where('id', '=', id)
      .execute();
    out[u.username] = { id, headers: apiKey(await server.apiKeyFor(u.username)) };
  }
  return out;
}

async function insertGamespace(
  server: TestServer,
  values: { workspaceId: string | null; managerId: string; graderKey?: string; name?: string },
  active: { endTime?: number; expirationTime?: number } = {},
): Promise<string> {
  const id = newId();
  const now = Date.now();
  await server.app.store.db
    .insertInto('gamespaces')
    .values({
      id,
      name: values.name ?? `game ${id.slice(0, 6)}`,
      managerId: values.managerId,
      managerName: 'manager',
      graderKey: values.graderKey ? sha256Hex(values.graderKey) : '',
      whenCreated: now,
      startTime: now,
      endTime: active.endTime ?? 0,
      expirationTime: active.expirationTime ?? now + 3_600_000,
      cleanupGraceMinutes: 0,
      cleaned: 0,
      allowReset: 1,
      challenge: '',
      workspaceId: values.workspaceId,
      variant: 0,
      playerCount: 1,
    })
    .execute();
  return id;
}

/** A machine for any tag, deployed straight through the driver (no template row needed). */
const machineFor = (server: TestServer, name: string, tag: string) =>
  server.app.driver.deploy(
    toMachineSpec(
      toVmTemplate({
        Name: name,
        IsolationTag: tag,
        AutoStart: false,
        Eth: [{ Net: 'lan', Type: 'e1000' }],
        Disks: [{ Path: `[ds] ${EMPTY_GUID}/${name}.vmdk`, Source: '' }],
      }),
    ),
    false,
  );

describe.each(testEngines())('VM routes on %s', (engine) => {
  const clock = createManualClock();
  let server: TestServer;
  let users: Awaited<ReturnType<typeof addUsers>>;
  const clients: Client[] = [];
  const stock: Record<string, Json> = {};

  const call = (who: string, method: string, path: string, body?: unknown) =>
    request(server.url, users[who]!.headers, method, path, body);

  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  const expectForbidden = (res: Reply, what: string) => {
    expect(res.status, what).toBe(403);
    expect(res.text, what).toBe('');
  };

  const listen = async (who: string, channel: string): Promise<Client> => {
    const client = await connect(server.url, users[who]!.headers);
    clients.push(client);
    await client.connection.invoke('Listen', channel);
    return client;
  };

  async function workspace(name: string): Promise<Json> {
    return ok(call('creator', 'POST', '/workspace', { name }));
  }

  async function link(stockName: string, workspaceId: string): Promise<Json> {
    return ok(
      call('creator', 'POST', '/template', { templateId: stock[stockName].id, workspaceId }),
    );
  }

  /** The machine once its task has ended: time moves past any task, and reading it ends it. */
  async function settled(who: string, id: string): Promise<Json> {
    clock.advance(LONGEST_TASK_MS);
    const vm = await ok(call(who, 'GET', `/vm/${encodeURIComponent(id)}`));
    expect(vm).toMatchObject({ task: null });
    return vm;
  }

  beforeAll(async () => {
    server = await startTestServer({ engine, clock });
    users = await addUsers(server, [
      { username: 'admin', role: 'administrator' },
      { username: 'creator', role: 'creator' },
      { username: 'player', role: 'user' },
      { username: 'observer', role: 'observer', scope: 'blue-team' },
      { username: 'stranger', role: 'observer', scope: 'red-team' },
      { username: 'gamer', role: 'user' },
      { username: 'rival', role: 'user' },
    ]);
    const list = (await call('player', 'GET', '/templates')).body as Json[];
    for (const t of list) stock[t.name] = t;
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.stop().catch(() => {})));
    await server?.close();
  });

  describe('a builder machine', () => {
    let ws: Json;
    let template: Json;
    let vm: Json;

    beforeAll(async () => {
      ws = await workspace('Builder lab');
      template = await link('linux-server', ws.id);
    });

    it('is initialized and not deployed before the first deploy (a stock disk is a base disk)', async () => {
      const pseudo = await ok(call('creator', 'GET', `/vm-template/${template.id}`));
      expect(Object.keys(pseudo).sort()).toEqual(VM_KEYS);
      expect(pseudo).toMatchObject({
        id: '',
        name: `${template.name}#${ws.id}`,
        status: 'initialized',
        task: null,
      });
    });

    it('deploys on POST vm-template and tells the workspace VM.DEPLOY with the template id', async () => {
      const editor = await listen('creator', ws.id);
      vm = await ok(call('creator', 'POST', `/vm-template/${template.id}`, {}));
      expect(Object.keys(vm).sort()).toEqual(VM_KEYS);
      expect(vm).toMatchObject({
        name: `${template.name}#${ws.id}`,
        status: 'deployed',
        hypervisorType: 'proxmox',
      });
      expect(vm.id).toMatch(/^[0-9a-f]{32}$/);
      const event = await editor.next(
        (e) => e.name === 'VmEvent' && e.payload.action === 'VM.DEPLOY',
      );
      expect(event.payload.model.id).toBe(template.id);
      expect(event.payload.model.name).toBe(vm.name);
      expect(event.payload.actor).toEqual({ id: users.creator!.id, name: 'Creator' });
      // The deploy task ends on its own; the driver's announcement reaches the workspace too.
      clock.advance(TASK_MS.deploy);
      const update = await editor.next(
        (e) => e.payload.action === 'VM.UPDATE' && e.payload.model.id === vm.id,
      );
      expect(update.payload.actor).toEqual(SYSTEM_ACTOR);
      expect((await settled('creator', vm.id)).state).toBe('running');
    });

    it('finds the machine by id and by name#tag; a second deploy returns the same machine', async () => {
      expect((await ok(call('creator', 'GET', `/vm/${vm.id}`))).name).toBe(vm.name);
      const byName = await ok(call('creator', 'GET', `/vm/${encodeURIComponent(vm.name)}`));
      expect(byName.id).toBe(vm.id);
      expect((await ok(call('creator', 'POST', `/vm-template/${template.id}`))).id).toBe(vm.id);
      expect((await ok(call('creator', 'GET', `/vm-template/${template.id}`))).id).toBe(vm.id);
    });

    it('stops and starts on PUT vm once the task has run, announcing VM.STOP and VM.START', async () => {
      const editor = await listen('creator', ws.id);
      const stopping = await ok(call('creator', 'PUT', '/vm', { id: vm.id, type: 'stop' }));
      expect(stopping.task?.name).toBe('stopping');
      expect((await settled('creator', vm.id)).state).toBe('off');
      const stopped = await editor.next((e) => e.payload.action === 'VM.STOP');
      expect(stopped.payload.model.id).toBe(vm.id);
      // Enum names in any case, as the reference binds them.
      await ok(call('creator', 'PUT', '/vm', { id: vm.id, type: 'Start' }));
      expect((await settled('creator', vm.id)).state).toBe('running');
      await editor.next((e) => e.payload.action === 'VM.START');
    });

    it('refuses an unknown operation', async () => {
      expect((await call('creator', 'PUT', '/vm', { id: vm.id, type: 'explode' })).status).toBe(
        400,
      );
      expect((await call('creator', 'PUT', '/vm', { id: vm.id, type: 9 })).status).toBe(400);
    });

    it('lists isos and nets; a builder may change a NIC to a reserved net', async () => {
      expect(await ok(call('creator', 'GET', `/vm/${vm.id}/isos`))).toEqual({
        iso: expect.any(Array),
        net: null,
      });
      const { net } = await ok(call('creator', 'GET', `/vm/${vm.id}/nets`));
      expect(net).toContain('bridge-net');
      expect(net).toContain(`lan#${ws.id}`);
      const editor = await listen('creator', ws.id);
      await ok(
        call('creator', 'PUT', `/vm/${vm.id}/change`, { key: 'net', value: 'bridge-net:0' }),
      );
      await editor.next((e) => e.payload.action === 'VM.CHANGE' && e.payload.model.id === vm.id);
    });

    it('reports each NIC and its network in the machine, and a NIC moved by a change', async () => {
      const router = await link('router', ws.id);
      const deployed = await ok(call('creator', 'POST', `/vm-template/${router.id}`));
      await settled('creator', deployed.id);
      // Our own field: one entry per NIC of the template, on the workspace's copy of its network.
      const nics = [
        { index: 0, network: `lan#${ws.id}` },
        { index: 1, network: `wan#${ws.id}` },
      ];
      expect((await ok(call('creator', 'GET', `/vm/${deployed.id}`))).nics).toEqual(nics);
      const changed = await ok(
        call('creator', 'PUT', `/vm/${deployed.id}/change`, {
          key: 'net',
          value: `lan#${ws.id}:1`,
        }),
      );
      const moved = [nics[0], { index: 1, network: `lan#${ws.id}` }];
      expect(changed.nics).toEqual(moved);
      expect((await ok(call('creator', 'GET', `/vm/${deployed.id}`))).nics).toEqual(moved);
      // The nets come with the NICs too, for a console that may not read the machine.
      expect((await ok(call('creator', 'GET', `/vm/${deployed.id}/nets`))).nics).toEqual(moved);
      await ok(
        call('creator', 'PUT', `/vm/${deployed.id}/change`, { key: 'net', value: '_none_:0' }),
      );
      expect((await ok(call('creator', 'GET', `/vm/${deployed.id}`))).nics).toEqual([
        { index: 0, network: '' },
        moved[1],
      ]);
      await ok(call('creator', 'DELETE', `/vm/${deployed.id}`));
    });

    it('gives a running machine a console on an absolute WebSocket address', async () => {
      const display = await ok(
        call('creator', 'GET', `/vm-console/${encodeURIComponent(vm.name)}`),
      );
      expect(display).toMatchObject({
        id: vm.id,
        isolationId: ws.id,
        name: template.name,
        isRunning: true,
      });
      expect(display.url).toMatch(
        new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/api/console/vnc/${vm.id}\\?ticket=[0-9a-f]{32}$`),
      );
      expect(typeof display.ticket).toBe('string');
      // The address works: the console server greets with its RFB version.
      const socket = new WebSocket(display.url);
      const greeting = await new Promise<string>((resolve, reject) => {
        socket.once('message', (data) => resolve(data.toString()));
        socket.once('error', reject);
      });
      socket.close();
      expect(greeting).toBe('RFB 003.008\n');
    });

    it('opens a console only with a live ticket of that machine, handed to that viewer', async () => {
      /** How the console socket ends or greets: the close code and reason, or the greeting. */
      const outcome = (url: string, headers: Record<string, string> = {}) =>
        new Promise<string>((resolve, reject) => {
          const socket = new WebSocket(url, { headers });
          socket.once('message', (data) => {
            resolve(data.toString());
            socket.close();
          });
          socket.once('close', (code, reason) => resolve(`${code} ${reason.toString()}`));
          socket.once('error', reject);
        });
      const consoleCookie = async (who: string) => {
        const login = await fetch(`${server.url}/api/user/login`, {
          method: 'POST',
          headers: users[who]!.headers,
        });
        const cookie = login.headers.getSetCookie().find((c) => c.startsWith('topomojo.mks='));
        return (cookie ?? '').split(';')[0]!;
      };
      const ticketed = async () =>
        (await ok(call('creator', 'GET', `/vm-console/${vm.id}`))).url as string;

      // No ticket, a ticket of the shape but never issued, and one used already.
      const url = await ticketed();
      const bare = url.replace(/\?ticket=.*$/, '');
      expect(await outcome(bare)).toBe('1008 Invalid ticket');
      expect(await outcome(`${bare}?ticket=${'0'.repeat(32)}`)).toBe('1008 Invalid ticket');
      expect(await outcome(url)).toBe('RFB 003.008\n');
      expect(await outcome(url)).toBe('1008 Invalid ticket');
      // Another user's ticket, brought by that other user (their console cookie says who).
      const rivalCookie = await consoleCookie('rival');
      expect(await outcome(await ticketed(), { cookie: rivalCookie })).toBe('1008 Invalid ticket');
      // The ticket's own user, with their cookie, gets the console.
      const creatorCookie = await consoleCookie('creator');
      expect(await outcome(await ticketed(), { cookie: creatorCookie })).toBe('RFB 003.008\n');
    });

    it('deletes on DELETE vm/{id}: VM.DELETE, status initialized, then GET answers null', async () => {
      const editor = await listen('creator', ws.id);
      const deleted = await ok(call('creator', 'DELETE', `/vm/${vm.id}`));
      expect(deleted).toMatchObject({ id: vm.id, status: 'initialized' });
      await editor.next((e) => e.payload.action === 'VM.DELETE' && e.payload.model.id === vm.id);
      const gone = await call('creator', 'GET', `/vm/${encodeURIComponent(vm.name)}`);
      expect(gone.status).toBe(200);
      expect(gone.text).toBe('null');
      expect(gone.body).toBeNull();
      // An unknown id is a bare tag that names nothing: only an administrator may ask.
      expect((await call('admin', 'GET', `/vm/${vm.id}`)).text).toBe('null');
    });

    it('copies the disks of an unlinked template: created, 0, progress, then initialized', async () => {
      const own = await link('router', ws.id);
      await ok(
        call('creator', 'POST', '/template/unlink', { templateId: own.id, workspaceId: ws.id }),
      );
      const before = await ok(call('creator', 'GET', `/vm-template/${own.id}`));
      expect(before).toMatchObject({ id: '', status: 'created', task: null });
      expect((await call('creator', 'POST', `/vm-template/${own.id}`)).status).toBe(400);

      // A bare integer: 0 as the copies start (wire reference §1.4).
      const started = await call('creator', 'PUT', `/vm-template/${own.id}`);
      expect(started.status).toBe(200);
      expect(started.text).toBe('0');
      const copying = await ok(call('creator', 'GET', `/vm-template/${own.id}`));
      expect(copying.status).toBe('created');
      expect(copying.task).toMatchObject({ name: 'initializing' });
      expect(copying.task.progress).toBeGreaterThanOrEqual(0);
      expect(copying.task.progress).toBeLessThan(100);

      // The router has one disk.
      clock.advance(TASK_MS.diskCopy);
      const done = await ok(call('creator', 'GET', `/vm-template/${own.id}`));
      expect(done.status).toBe('initialized');
      expect(done.task).toBeNull();
      expect((await call('creator', 'PUT', `/vm-template/${own.id}`)).text).toBe('100');
      const deployed = await ok(call('creator', 'POST', `/vm-template/${own.id}`));
      expect(deployed.status).toBe('deployed');
    });

    it('deploys a stock template under the zero GUID, for administrators only', async () => {
      const source = stock['router'];
      expectForbidden(await call('creator', 'POST', `/vm-template/${source.id}`), 'creator stock');
      const deployed = await ok(call('admin', 'POST', `/vm-template/${source.id}`));
      expect(deployed.name).toBe(`router#${EMPTY_GUID}`);
      const listed = (await ok(call('admin', 'GET', `/vms?filter=${deployed.id}`))) as Json[];
      expect(listed.map((v) => v.groupName)).toEqual([`__orphaned#${EMPTY_GUID}`]);
      await ok(call('admin', 'DELETE', `/vm/${deployed.id}`));
    });

    it('answers 400 ResourceNotFound for an unknown template', async () => {
      const res = await call('creator', 'GET', `/vm-template/${newId()}`);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual({ id: ['ResourceNotFound'] });
    });

    it('removes the machine of a deleted template (VM.DELETE) and of a deleted workspace', async () => {
      const lab = await workspace('Short-lived lab');
      const a = await link('linux-server', lab.id);
      const b = await link('workstation', lab.id);
      const vmA = await ok(call('creator', 'POST', `/vm-template/${a.id}`));
      const vmB = await ok(call('creator', 'POST', `/vm-template/${b.id}`));
      const editor = await listen('creator', lab.id);
      await ok(call('creator', 'DELETE', `/template/${a.id}`));
      const event = await editor.next(
        (e) => e.payload.action === 'VM.DELETE' && e.payload.model.id === vmA.id,
      );
      expect(event.payload.actor).toEqual(SYSTEM_ACTOR);
      expect(await server.app.driver.load(vmA.id)).toBeNull();
      expect(await server.app.driver.load(vmB.id)).not.toBeNull();
      await ok(call('creator', 'DELETE', `/workspace/${lab.id}`));
      expect(await server.app.driver.find(lab.id)).toEqual([]);
    });
  });

  describe('authorization', () => {
    let ws: Json;
    let template: Json;
    let builderVm: Json;
    let game: string;
    let rivalGame: string;
    let gameVm: Json;
    const graderKey = newApiKey();
    const rivalGraderKey = newApiKey();

    beforeAll(async () => {
      ws = await workspace('Guarded lab');
      await ok(
        call('creator', 'PUT', '/workspace', { id: ws.id, name: ws.name, audience: 'blue-team' }),
      );
      template = await link('linux-server', ws.id);
      builderVm = await ok(call('creator', 'POST', `/vm-template/${template.id}`));
      await settled('creator', builderVm.id);
      const db = server.app.store.db;
      game = await insertGamespace(server, {
        workspaceId: ws.id,
        managerId: users.creator!.id,
        graderKey,
        name: 'Guarded game',
      });
      rivalGame = await insertGamespace(server, {
        workspaceId: null,
        managerId: users.rival!.id,
        graderKey: rivalGraderKey,
      });
      await db
        .insertInto('players')
        .values([
          { subjectId: users.gamer!.id, gamespaceId: game, subjectName: 'gamer', permission: 0 },
          {
            subjectId: users.rival!.id,
            gamespaceId: rivalGame,
            subjectName: 'rival',
            permission: 0,
          },
        ])
        .execute();
      gameVm = await machineFor(server, 'box', game);
    });

    /** Every VM route, as the given caller. */
    const everyRoute = (who: (method: string, path: string, body?: unknown) => Promise<Reply>) => ({
      'GET vm': () => who('GET', `/vm/${builderVm.id}`),
      'PUT vm': () => who('PUT', '/vm', { id: builderVm.id, type: 'start' }),
      'PUT vm delete': () => who('PUT', '/vm', { id: builderVm.id, type: 'delete' }),
      'DELETE vm': () => who('DELETE', `/vm/${builderVm.id}`),
      change: () => who('PUT', `/vm/${builderVm.id}/change`, { key: 'boot', value: '5' }),
      answer: () => who('PUT', `/vm/${builderVm.id}/answer`, { questionId: 'q', choiceKey: 'y' }),
      isos: () => who('GET', `/vm/${builderVm.id}/isos`),
      nets: () => who('GET', `/vm/${builderVm.id}/nets`),
      console: () => who('GET', `/vm-console/${builderVm.id}`),
      'GET vm-template': () => who('GET', `/vm-template/${template.id}`),
      'POST vm-template': () => who('POST', `/vm-template/${template.id}`),
      'PUT vm-template': () => who('PUT', `/vm-template/${template.id}`),
    });

    it('refuses every route to a user who is not a worker of the workspace', async () => {
      for (const [what, send] of Object.entries(everyRoute((m, p, b) => call('player', m, p, b)))) {
        expectForbidden(await send(), what);
      }
      expect(await server.app.driver.load(builderVm.id)).not.toBeNull();
    });

    it('refuses every route to the grader key of a gamespace', async () => {
      const headers = apiKey(graderKey);
      for (const [what, send] of Object.entries(
        everyRoute((m, p, b) => request(server.url, headers, m, p, b)),
      )) {
        expectForbidden(await send(), what);
      }
    });

    it('lets a player of the gamespace drive its machine, and no one from another gamespace', async () => {
      const path = `/vm/${gameVm.id}`;
      expect((await ok(call('gamer', 'GET', path))).name).toBe(`box#${game}`);
      expectForbidden(await call('rival', 'GET', path), 'rival GET');
      expectForbidden(
        await call('rival', 'PUT', '/vm', { id: gameVm.id, type: 'start' }),
        'rival PUT',
      );
      expectForbidden(await call('rival', 'DELETE', path), 'rival DELETE');
      expectForbidden(await call('rival', 'GET', `/vm-console/${gameVm.id}`), 'rival console');
      // The operation as the enum's integer (0 = start), as .NET clients may send it.
      await ok(call('gamer', 'PUT', '/vm', { id: gameVm.id, type: 0 }));
      expect((await settled('gamer', gameVm.id)).state).toBe('running');
      // The manager of the gamespace, and the builder machines stay closed to players.
      await ok(call('creator', 'GET', path));
      expectForbidden(await call('gamer', 'GET', `/vm/${builderVm.id}`), 'gamer builder vm');
    });

    it('lets the gamespace agent manage its own machines but not another gamespace', async () => {
      await ok(request(server.url, apiKey(graderKey), 'GET', `/vm/${gameVm.id}`));
      await ok(request(server.url, apiKey(graderKey), 'GET', `/vm/${encodeURIComponent(game)}`));
      expectForbidden(
        await request(server.url, apiKey(rivalGraderKey), 'GET', `/vm/${gameVm.id}`),
        'rival agent',
      );
    });

    it('lets an observer of the audience see machines but not delete them', async () => {
      await ok(call('observer', 'GET', `/vm/${gameVm.id}`));
      await ok(call('observer', 'GET', `/vm/${builderVm.id}`));
      expectForbidden(await call('observer', 'DELETE', `/vm/${gameVm.id}`), 'observer DELETE');
      expectForbidden(
        await call('observer', 'PUT', '/vm', { id: gameVm.id, type: 'delete' }),
        'observer PUT delete',
      );
      expectForbidden(await call('stranger', 'GET', `/vm/${gameVm.id}`), 'stranger GET');
      expectForbidden(await call('stranger', 'GET', `/vm/${builderVm.id}`), 'stranger GET builder');
    });

    it('lists machines for observers and admins only, observers those they may manage', async () => {
      expectForbidden(await call('player', 'GET', '/vms'), 'player list');
      expectForbidden(await call('gamer', 'GET', '/vms'), 'gamer list');
      const mine = (await ok(call('observer', 'GET', `/vms?filter=${ws.id}`))) as Json[];
      expect(mine.map((v) => v.id)).toEqual([builderVm.id]);
      const games = (await ok(call('observer', 'GET', `/vms?filter=${game}`))) as Json[];
      expect(games.map((v) => v.groupName)).toEqual([`gamespace: Guarded game#${game}`]);
      expect(await ok(call('stranger', 'GET', `/vms?filter=${game}`))).toEqual([]);
    });

    it('gives players only isolated nets and lets them pick no other', async () => {
      const { net } = await ok(call('gamer', 'GET', `/vm/${gameVm.id}/nets`));
      expect(net.length).toBeGreaterThan(0);
      for (const n of net) expect(n).toContain('#');
      expect(net).toContain(`lan#${game}`);
      const reserved = await call('gamer', 'PUT', `/vm/${gameVm.id}/change`, {
        key: 'net',
        value: 'bridge-net:0',
      });
      expect(reserved.status).toBe(400);
      expect(reserved.body).toEqual({ message: 'ActionForbidden' });
      const foreign = await call('gamer', 'PUT', `/vm/${gameVm.id}/change`, {
        key: 'net',
        value: `lan#${rivalGame}:0`,
      });
      expect(foreign.body).toEqual({ message: 'ActionForbidden' });
      const players = await listen('gamer', game);
      await ok(
        call('gamer', 'PUT', `/vm/${gameVm.id}/change`, { key: 'net', value: `lan#${game}:0` }),
      );
      const event = await players.next((e) => e.payload.action === 'VM.CHANGE');
      expect(event.payload.actor.id).toBe(users.gamer!.id);
    });

    it('accepts the console cookie on vm-console and PUT vm, not on GET vm/{id}', async () => {
      const login = await fetch(`${server.url}/api/user/login`, {
        method: 'POST',
        headers: users.gamer!.headers,
      });
      expect(login.status).toBe(200);
      const setCookie = login.headers.getSetCookie().find((c) => c.startsWith('topomojo.mks='));
      // The console page sends the CSRF header with every call, as changes need it.
      const cookie = { cookie: (setCookie ?? '').split(';')[0]!, [CSRF_HEADER]: 'XMLHttpRequest' };
      const display = await request(server.url, cookie, 'GET', `/vm-console/${gameVm.id}`);
      expect(display.status).toBe(200);
      expect(display.body).toMatchObject({ id: gameVm.id, isolationId: game, name: 'box' });
      const operated = await request(server.url, cookie, 'PUT', '/vm', {
        id: gameVm.id,
        type: 'stop',
      });
      expect(operated.status).toBe(200);
      const nets = await request(server.url, cookie, 'GET', `/vm/${gameVm.id}/nets`);
      expect(nets.status).toBe(200);
      // Each NIC on its network, which GET vm/{id} would not tell this cookie.
      expect((nets.body as { nics: unknown[] }).nics).toEqual([
        { index: 0, network: expect.stringMatching(/#/) as unknown },
      ]);
      expect((await request(server.url, cookie, 'GET', `/vm/${gameVm.id}`)).status).toBe(401);
    });

    it('writes ticket null out for a machine that is off', async () => {
      await settled('gamer', gameVm.id);
      const res = await call('gamer', 'GET', `/vm-console/${gameVm.id}`);
      expect(res.body).toEqual({
        id: gameVm.id,
        isolationId: game,
        name: 'box',
        url: '',
        ticket: null,
        isRunning: false,
        recorded: false,
        // Ours: the player drives their machine; nobody else has its console open.
        viewOnly: false,
        mayTakeControl: false,
        viewers: [],
      });
      expect(res.text).toContain('"ticket":null');
    });

    it('refuses save with WorkspaceNotIsolated, and how many gamespaces are running, while any is', async () => {
      const save = () => call('creator', 'PUT', '/vm', { id: builderVm.id, type: 'save' });
      const refused = await save();
      expect(refused.status).toBe(400);
      // TopoMojo's name for clients of the reference, and our own count beside it for the SPA.
      expect(refused.body).toEqual({ message: 'WorkspaceNotIsolated', gamespaces: 1 });
      // An ended gamespace does not count; a second running one does.
      const ended = await insertGamespace(
        server,
        { workspaceId: ws.id, managerId: users.creator!.id },
        { endTime: Date.now() - 1000 },
      );
      const second = await insertGamespace(server, {
        workspaceId: ws.id,
        managerId: users.creator!.id,
      });
      expect((await save()).body).toEqual({ message: 'WorkspaceNotIsolated', gamespaces: 2 });
      await server.app.store.db
        .deleteFrom('gamespaces')
        .where('id', 'in', [ended, second])
        .execute();
      // Expired, though not ended: the workspace is isolated again.
      await server.app.store.db
        .updateTable('gamespaces')
        .set({ expirationTime: Date.now() - 1000 })
        .where('id', '=', game)
        .execute();
      const saving = await save();
      expect(saving.status, saving.text).toBe(200);
      expect(saving.body.task?.name).toBe('saving');
      await server.app.store.db
        .updateTable('gamespaces')
        .set({ expirationTime: Date.now() + 3_600_000 })
        .where('id', '=', game)
        .execute();
    });

    it('lets a player delete a machine of its gamespace (DELETE and PUT delete)', async () => {
      const spare = await machineFor(server, 'spare', game);
      const players = await listen('gamer', game);
      await ok(call('gamer', 'PUT', '/vm', { id: spare.id, type: 'delete' }));
      await players.next(
        (e) => e.payload.action === 'VM.DELETE' && e.payload.model.id === spare.id,
      );
      expect(await server.app.driver.load(spare.id)).toBeNull();
      const deleted = await ok(call('gamer', 'DELETE', `/vm/${gameVm.id}`));
      expect(deleted.status).toBe('initialized');
    });

    it('allows POST pod/{id} to administrators only', async () => {
      expect((await call('admin', 'POST', '/pod/host1')).status).toBe(200);
      expect((await call('creator', 'POST', '/pod/host1')).status).toBe(403);
    });
  });

  describe('the admin list', () => {
    it('names each machine by its workspace, gamespace (and its players) or as orphaned, in order', async () => {
      const lab = await workspace('Listed lab');
      const t = await link('linux-server', lab.id);
      const builder = await ok(call('creator', 'POST', `/vm-template/${t.id}`));
      const game = await insertGamespace(server, {
        workspaceId: lab.id,
        managerId: users.creator!.id,
        name: 'Listed game',
      });
      await server.app.store.db
        .insertInto('players')
        .values([
          { gamespaceId: game, subjectId: newId(), subjectName: 'Bo Player', permission: 0 },
          { gamespaceId: game, subjectId: newId(), subjectName: 'Ann Player', permission: 255 },
        ])
        .execute();
      const orphanTag = `gone${newId().slice(0, 8)}`;
      const gameB = await machineFor(server, 'b-box', game);
      const gameA = await machineFor(server, 'a-box', game);
      const orphan = await machineFor(server, 'lost', orphanTag);

      const all = (await ok(call('admin', 'GET', '/vms'))) as Json[];
      const groups = all.map((v) => v.groupName);
      expect(groups).toEqual([...groups].sort());
      const byId = Object.fromEntries(all.map((v) => [v.id, v]));
      expect(byId[builder.id].groupName).toBe(`workspace: Listed lab#${lab.id}`);
      expect(byId[gameA.id].groupName).toBe(`gamespace: Listed game#${game}`);
      expect(byId[orphan.id].groupName).toBe(`__orphaned#${orphanTag}`);
      const inGame = all.filter((v) => v.groupName.endsWith(game)).map((v) => v.id);
      expect(inGame).toEqual([gameA.id, gameB.id]);
      // A gamespace's machine names its players; the others have no such field.
      expect(byId[gameA.id].playerNames).toEqual(['Ann Player', 'Bo Player']);
      expect(byId[builder.id]).not.toHaveProperty('playerNames');
      expect(byId[orphan.id]).not.toHaveProperty('playerNames');

      const filtered = (await ok(call('admin', 'GET', `/vms?filter=${orphanTag}`))) as Json[];
      expect(filtered.map((v) => v.id)).toEqual([orphan.id]);
    });
  });
});

describe.each(testEngines())('VM machines across a restart on %s', (engine) => {
  // Realistic timing: a deploy takes 3 s, and the clock stands still while the server restarts.
  const clock = createManualClock();
  let server: TestServer;
  let client: Client | undefined;

  beforeAll(async () => {
    server = await startTestServer({ engine, clock });
  });
  afterAll(async () => {
    await client?.stop().catch(() => {});
    await server?.close();
  });

  it('loses no machine: the task completes after the restart and is announced', async () => {
    const creator = apiKey(await server.apiKeyFor('creator'));
    const call = (method: string, path: string, body?: unknown) =>
      request(server.url, creator, method, path, body);
    const ws = (await call('POST', '/workspace', { name: 'Restart lab' })).body;
    const stockList = (await call('GET', '/templates')).body as Json[];
    const source = stockList.find((t) => t.name === 'linux-server');
    const template = (
      await call('POST', '/template', { templateId: source.id, workspaceId: ws.id })
    ).body;
    const deployed = await call('POST', `/vm-template/${template.id}`);
    expect(deployed.status).toBe(200);
    expect(deployed.body.task?.name).toBe('deploying');

    await server.restart();
    client = await connect(server.url, creator);
    await client.connection.invoke('Listen', ws.id);

    const during = (await call('GET', `/vm/${deployed.body.id}`)).body;
    expect(during).toMatchObject({ id: deployed.body.id, status: 'deployed' });
    expect(during.task?.name).toBe('deploying');
    clock.advance(TASK_MS.deploy);
    const update = await client.next(
      (e) => e.payload.action === 'VM.UPDATE' && e.payload.model.id === deployed.body.id,
      10_000,
    );
    expect(update.payload.model).toMatchObject({ state: 'running', task: null });
    const after = (await call('GET', `/vm/${deployed.body.id}`)).body;
    expect(after).toMatchObject({ state: 'running', task: null });
  });
});

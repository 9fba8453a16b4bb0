import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../server/core/ids';
import { apiRequest } from './api';
import { gamespaceSpec, insertGamespace, insertWorkspace } from './gradingFixtures';
import { startTestServer, type TestServer } from './harness';
import { apiKey } from './hubClients';

// The in-lab agent (agent/, wire reference §4.12) as a lab machine runs it: a process of its own
// with the gamespace's grader key, against a real server. It catches up on what was sent before
// it listened, answers what is meant for its host or for every host, leaves the rest, keeps its
// commands to a time limit, and comes back when the server restarts.

const AGENT = join(import.meta.dirname, '../../agent/main.ts');

type Dispatch = {
  id: string;
  trigger: string;
  targetName: string | null;
  result: string | null;
  error: string | null;
  whenUpdated: string;
  referenceId: string;
};

describe('the in-lab agent', () => {
  let server: TestServer;
  let adminKey = '';
  let game = { id: '', graderKey: '' };
  let agent: ChildProcess | null = null;
  let output = '';

  beforeAll(async () => {
    server = await startTestServer();
    adminKey = await server.apiKeyFor('admin');
    const db = server.app.store.db;
    const ws = await insertWorkspace(db, 'alpha', gamespaceSpec());
    game = await insertGamespace(db, { workspaceId: ws, managerId: newId() });
  });
  afterAll(async () => {
    agent?.kill('SIGKILL');
    await server?.close();
  });

  const admin = (method: string, path: string, body?: unknown) =>
    apiRequest(server.url, apiKey(adminKey), method, path, body);
  const send = async (trigger: string, targetName?: string): Promise<Dispatch> => {
    const reply = await admin('POST', '/dispatch', { trigger, targetGroup: game.id, targetName });
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const all = async (): Promise<Dispatch[]> =>
    (await admin('GET', `/dispatches?gs=${game.id}`)).body;
  /** The answered record of a dispatch: itself when targeted, the host's copy for a broadcast. */
  const answerTo = (d: Dispatch, timeout = 10_000) =>
    vi.waitFor(
      async () => {
        const found = (await all()).find(
          (x) =>
            (d.targetName ? x.id === d.id : x.referenceId === d.referenceId) &&
            !x.whenUpdated.startsWith('0001-'),
        );
        if (!found) throw new Error(`no answer to ${d.trigger}\n${output}`);
        return found;
      },
      { timeout, interval: 50 },
    );
  const listening = (count: number) =>
    vi.waitFor(
      () => {
        const times = output.split('listening on').length - 1;
        if (times < count) throw new Error(`not listening yet:\n${output}`);
      },
      { timeout: 15_000, interval: 50 },
    );

  it('catches up, answers its own and broadcast commands, and leaves other hosts alone', async () => {
    const before = await send('echo sent before', 'vm1');
    agent = spawn(process.execPath, [AGENT], {
      env: {
        PATH: process.env.PATH,
        DISPATCH_URL: server.url,
        DISPATCH_APIKEY: game.graderKey,
        DISPATCH_GROUPID: game.id,
        HOSTNAME: 'vm1',
        DISPATCH_TIMEOUTSECONDS: '1',
        DISPATCH_RETRYSECONDS: '0.5',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agent.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    agent.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await listening(1);
    expect((await answerTo(before)).result).toBe('sent before\n');
    // It says which host it runs on: the dispatcher's console shows it listening there.
    expect((await admin('GET', `/dispatches/agents?gs=${game.id}`)).body).toEqual([
      { name: 'vm1', isMachine: false, agents: 1 },
    ]);

    const elsewhere = await send('echo not mine', 'vm2');
    const mine = await send('echo hello', 'VM1');
    // Host names compare without case; the answer keeps the name the command was sent to.
    const answered = await answerTo(mine);
    expect(answered).toMatchObject({ id: mine.id, targetName: 'VM1', result: 'hello\n' });
    expect(answered.error).toBeNull();
    // The command for vm2 came first and is still unanswered.
    const stored = (await admin('GET', `/dispatch/${elsewhere.id}`)).body as Dispatch;
    expect(stored.whenUpdated.startsWith('0001-')).toBe(true);

    const broadcast = await send('echo everyone');
    const copy = await answerTo(broadcast);
    expect(copy.id).not.toBe(broadcast.id);
    expect(copy.targetName).toBe('vm1');
    expect(copy.result).toBe('everyone\n');
  });

  it('stops a command at its time limit and reports what could not run', async () => {
    const slow = await answerTo(await send('sleep 30', 'vm1'));
    expect(slow.error).toMatch(/time limit/);
    const noop = await answerTo(await send('noop', 'vm1'));
    expect(noop.error).toMatch(/not run/);
    const missing = await answerTo(await send(`no-such-command-${newId()}`, 'vm1'));
    expect(missing.error).toMatch(/could not run/);
  });

  it('listens again after the server restarts', async () => {
    await server.restart();
    await listening(2);
    const after = await send('echo back again', 'vm1');
    expect((await answerTo(after)).result).toBe('back again\n');
  });
});

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Actor } from '../../server/core/actor';
import { Forbidden } from '../../server/core/errors';
import type { NewGameEvent } from '../../server/core/gameEvents';
import { createGuestFileService } from '../../server/core/guestFiles';
import type { HypervisorDriver, Machine } from '../../server/hypervisor';
import { SIM_CAPABILITIES } from '../../server/hypervisor/sim/simDriver';
import { MAX_GUEST_FILE_BYTES } from '../../src/domain/guestFiles';
import { buildWorld, multipart, type World } from './authz/fixtures';
import { startTestServer, type TestServer } from './harness';

// Files into a machine from its console (POST vm/{id}/files) through the real server and the sim
// driver: the file lands in the uploads folder with its SHA-256, the limit and odd names are
// refused before anything reaches the machine, and a put into a gamespace's machine is recorded
// as a game event. Who may call the routes at all is the authorization matrix's (authz/policy.ts).

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('POST vm/{id}/files on the sim driver', () => {
  let server: TestServer;
  let w: World;
  let driver: HypervisorDriver;

  beforeAll(async () => {
    server = await startTestServer();
    w = await buildWorld(server);
    driver = server.app.driver;
  }, 120_000);
  afterAll(async () => server?.close());

  const put = async (filename: string, data: Buffer) =>
    w.send(
      {
        method: 'POST',
        url: `/api/vm/${w.gVm}/files`,
        ...multipart([{ name: 'file', filename, data }]),
      },
      await w.credentials('player', w.G),
    );

  it('tells the console page that the machine takes files, how, and the limit', async () => {
    const reply = await w.send(
      { url: `/api/vm/${w.gVm}/files` },
      await w.credentials('player', w.G),
    );
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({
      available: true,
      how: 'simulated',
      maxBytes: MAX_GUEST_FILE_BYTES,
      reason: null,
    });
  });

  it("puts a player's file into the machine's uploads folder with its SHA-256", async () => {
    const data = Buffer.from('#!/bin/sh\necho hello\n');
    const reply = await put('hello.sh', data);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({
      name: 'hello.sh',
      path: '/root/uploads/hello.sh',
      size: data.length,
      sha256: sha256(data),
    });
  });

  it('cleans odd characters out of a name, and refuses names that leave the folder', async () => {
    const cleaned = await put('my notes (1).txt', Buffer.from('x'));
    expect(JSON.parse(cleaned.body)).toMatchObject({ path: '/root/uploads/my_notes_1_.txt' });
    const putFile = vi.spyOn(driver, 'putFile');
    try {
      for (const name of ['../../etc/passwd', '.profile', 'dir/notes.txt', '..']) {
        const reply = await put(name, Buffer.from('x'));
        expect(reply.status, name).toBe(400);
        expect(JSON.parse(reply.body).message).toMatch(/not one a machine takes/);
      }
      expect(putFile).not.toHaveBeenCalled();
    } finally {
      putFile.mockRestore();
    }
  });

  it('refuses a file over the limit with 413, and nothing of it reaches the machine', async () => {
    const putFile = vi.spyOn(driver, 'putFile');
    try {
      const reply = await put('big.bin', Buffer.alloc(MAX_GUEST_FILE_BYTES + 1));
      expect(reply.status).toBe(413);
      expect(JSON.parse(reply.body).message).toBe(
        'The file is larger than 1 MiB, the most a machine takes this way.',
      );
      expect(putFile).not.toHaveBeenCalled();
      // At the limit exactly, it goes in.
      expect((await put('max.bin', Buffer.alloc(MAX_GUEST_FILE_BYTES))).status).toBe(200);
    } finally {
      putFile.mockRestore();
    }
  });

  it('refuses a stopped machine, saying so', async () => {
    await w.send(
      { method: 'PUT', url: '/api/vm', payload: { id: w.gVm, type: 'stop' } },
      await w.credentials('admin', w.G),
    );
    await vi.waitFor(async () => expect((await driver.load(w.gVm))?.state).toBe('off'), {
      timeout: 20_000,
      interval: 100,
    });
    const reply = await put('late.txt', Buffer.from('x'));
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body).message).toMatch(/The machine is not running\./);
  });
});

describe('the guest file service', () => {
  const machine = {
    id: 'vm1',
    name: 'kali#game1',
    state: 'running',
  } as Machine;
  const actor = { id: 'u1', name: 'Pat Player' } as Actor;
  const fakeDriver = (): HypervisorDriver =>
    ({
      capabilities: { ...SIM_CAPABILITIES },
      load: async () => machine,
      putFile: vi.fn(async (_id: string, name: string, bytes: Uint8Array) => ({
        path: `/root/uploads/${name}`,
        sha256: sha256(bytes),
      })),
    }) as unknown as HypervisorDriver;

  it('records who put which file into which machine of a gamespace', async () => {
    const recorded: NewGameEvent[] = [];
    const files = createGuestFileService({
      driver: fakeDriver(),
      vms: { mayOpenConsole: async () => true, mayControlConsole: async () => true },
      gamespaces: { find: async (id) => (id === 'game1' ? { id } : undefined) },
      events: {
        record: async (event) => void recorded.push(event),
        list: async () => [],
        removeFor: async () => {},
        subscribe: () => () => {},
      },
    });
    await files.put(actor, 'vm1', 'tool.bin', Readable.from([Buffer.alloc(3 * 1024)]));
    expect(recorded).toEqual([
      {
        gamespaceId: 'game1',
        kind: 'file.put',
        actorId: 'u1',
        actorName: 'Pat Player',
        machineId: 'vm1',
        machineName: 'kali',
        detail: 'tool.bin (3.0 KiB)',
      },
    ]);
  });

  it('refuses whoever may not open the console before reading the file', async () => {
    const driver = fakeDriver();
    const files = createGuestFileService({
      driver,
      vms: { mayOpenConsole: async () => false, mayControlConsole: async () => false },
      gamespaces: { find: async () => undefined },
    });
    const stream = Readable.from([Buffer.from('x')]);
    await expect(files.put(actor, 'vm1', 'x', stream)).rejects.toBeInstanceOf(Forbidden);
    await expect(files.authorize(actor, 'vm1')).rejects.toBeInstanceOf(Forbidden);
    expect(stream.readableEnded).toBe(false);
    expect(driver.putFile).not.toHaveBeenCalled();
  });
});

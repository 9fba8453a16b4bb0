import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type App } from '../../../server/app';
import { actorFrom } from '../../../server/core/actor';
import { testEngines } from '../databases';
import { startTestServer, type TestServer } from '../harness';
import { EXPIRY_CHECK_MS } from '../../../server/core/play/removal';
import { labServer } from './lab';
import { apiKey } from '../hubClients';
import { apiRequest, type Json, type Reply } from '../api';

// Security issue 26, finding 6: a gamespace that is over (completed, fully graded, or out of
// time) leaves its machines to no one. Its consoles and machine routes answer 403 at once, on
// every server, and its machines go right after the completion (the janitor's run for expiry)
// rather than at the janitor's next run, about 90 s later.

/** How long the background removal may take here (the sim deletes at once). */
const REMOVED_WITHIN_MS = 5_000;

const CHALLENGE = {
  text: 'Find the flag.',
  transforms: [],
  variants: [
    {
      text: '',
      iso: null,
      sections: [
        {
          name: 'Only',
          text: '',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [{ text: 'The flag?', answer: 'forty-two', weight: 100, grader: 'match' }],
        },
      ],
    },
  ],
};

describe.each(testEngines())('machines of an ended gamespace on %s', (engine) => {
  let server: TestServer;
  const headers: Record<string, Record<string, string>> = {};

  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers[who]!, method, path, body);
  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  beforeAll(async () => {
    // Game states are kept 10 s: machine access must never follow a kept "active" state.
    server = await startTestServer({ engine, env: { SIM_SPEED: '0', STATE_CACHE_MS: '10000' } });
    for (const who of ['admin', 'creator', 'player']) {
      headers[who] = apiKey(await server.apiKeyFor(who));
    }
    await server.app.store.db
      .updateTable('users')
      .set({ gamespaceLimit: 0 })
      .where('id', '=', await server.userId('player'))
      .execute();
  }, 60_000);
  afterAll(() => server?.close());

  /** A workspace of one stock machine with a one-question challenge, open to everyone. */
  async function lab(name: string): Promise<string> {
    const ws = await ok(call('creator', 'POST', '/workspace', { name, audience: 'everyone' }));
    const stock = (await ok(call('creator', 'GET', '/templates?term=linux-server'))) as Json[];
    const parent = stock.find((t) => t.name === 'linux-server');
    await ok(call('creator', 'POST', '/template', { templateId: parent.id, workspaceId: ws.id }));
    await ok(call('creator', 'PUT', `/challenge/${ws.id}`, CHALLENGE));
    return ws.id;
  }

  /** The player's started gamespace of a new lab, its one machine usable. */
  async function launch(name: string): Promise<{ game: Json; vmId: string }> {
    const workspaceId = await lab(name);
    const game = await ok(
      call('player', 'POST', '/gamespace', { resourceId: workspaceId, startGamespace: true }),
    );
    expect(game.vms).toHaveLength(1);
    const vmId = game.vms[0].id as string;
    await ok(call('player', 'GET', `/vm-console/${vmId}`));
    return { game, vmId };
  }

  /** The driver's deletes wait until `release`; `removing` is the spy (restore it after). */
  function holdRemovals() {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const deleteAll = server.app.driver.deleteAll.bind(server.app.driver);
    const removing = vi.spyOn(server.app.driver, 'deleteAll').mockImplementation(async (term) => {
      await held;
      return deleteAll(term);
    });
    return { removing, release };
  }

  const machinesOf = (gamespaceId: string) => server.app.driver.machinesOf(gamespaceId);
  const rowOf = (id: string) =>
    server.app.store.db
      .selectFrom('gamespaces')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  /** Every route that reaches a machine, as the player sends it. */
  const machineRoutes = (vmId: string, tag: string): Array<[string, string, unknown?]> => [
    ['GET', `/vm-console/${vmId}`],
    ['GET', `/vm/${vmId}`],
    ['PUT', '/vm', { id: vmId, type: 'stop' }],
    ['PUT', '/vm', { id: vmId, type: 'start' }],
    ['PUT', '/vm', { id: vmId, type: 'reset' }],
    ['PUT', `/vm/${vmId}/change`, { key: 'net', value: `lan#${tag}` }],
    ['PUT', `/vm/${vmId}/answer`, { questionId: 'q', choiceKey: 'k' }],
    ['GET', `/vm/${vmId}/isos`],
    ['GET', `/vm/${vmId}/nets`],
    ['PUT', '/vm', { id: vmId, type: 'delete' }],
    ['DELETE', `/vm/${vmId}`],
  ];

  /** The status of each machine route for `who`, route by route. */
  async function statuses(who: string, vmId: string, tag: string) {
    const answered: Record<string, number> = {};
    for (const [method, path, body] of machineRoutes(vmId, tag)) {
      const label = `${method} ${path} ${body ? JSON.stringify(body) : ''}`.trim();
      answered[label] = (await call(who, method, path, body)).status;
    }
    return answered;
  }
  const allRefused = (vmId: string, tag: string) =>
    Object.fromEntries(
      machineRoutes(vmId, tag).map(([method, path, body]) => [
        `${method} ${path} ${body ? JSON.stringify(body) : ''}`.trim(),
        403,
      ]),
    );

  it('refuses a completed game’s machines at once, while their removal is still under way', async () => {
    const { game, vmId } = await launch('Completed while deleting');
    // The removal hangs until released: the complete call must not wait for it, and the
    // refusal must not depend on the machines being gone already.
    const { removing, release } = holdRemovals();
    try {
      const completed = await ok(call('player', 'POST', `/gamespace/${game.id}/complete`));
      // The reference's answer: the ended state, without machines.
      expect(completed).toMatchObject({ id: game.id, isActive: false, vms: [] });
      expect(completed.endTime).not.toMatch(/^0001-/);
      await vi.waitFor(() => expect(removing).toHaveBeenCalledWith(game.id), { timeout: 1_000 });
      expect(await machinesOf(game.id)).toHaveLength(1);
      expect(await statuses('player', vmId, game.id)).toEqual(allRefused(vmId, game.id));
      expect(await server.app.vms.mayOpenConsole(await actorOf('player'), vmId)).toBe(false);
      // A janitor run meanwhile finds the removal claimed: the machines are deleted once.
      await ok(call('admin', 'POST', '/admin/janitor'));
      expect(removing.mock.calls.filter(([term]) => term === game.id)).toHaveLength(1);
    } finally {
      release();
      removing.mockRestore();
    }
    await vi.waitFor(async () => expect(await machinesOf(game.id)).toEqual([]), {
      timeout: REMOVED_WITHIN_MS,
    });
    // Removed once: the janitor will not look at it again.
    expect((await rowOf(game.id)).cleaned).toBe(1);
  });

  it('removes a completed game’s machines shortly after, without the janitor', async () => {
    const { game, vmId } = await launch('Completed');
    await ok(call('player', 'POST', `/gamespace/${game.id}/complete`));
    expect(await statuses('player', vmId, game.id)).toEqual(allRefused(vmId, game.id));
    await vi.waitFor(async () => expect(await machinesOf(game.id)).toEqual([]), {
      timeout: REMOVED_WITHIN_MS,
    });
  });

  it('logs a failed removal and leaves it for the janitor, refusing the machines meanwhile', async () => {
    const { game, vmId } = await launch('Completed, delete failing');
    const warn = vi.spyOn(server.app.app.log, 'warn');
    const failing = vi
      .spyOn(server.app.driver, 'deleteAll')
      .mockRejectedValueOnce(new Error('hypervisor unreachable'));
    try {
      await ok(call('player', 'POST', `/gamespace/${game.id}/complete`));
      await vi.waitFor(
        () =>
          expect(warn).toHaveBeenCalledWith(
            expect.objectContaining({ gamespaceId: game.id }),
            expect.any(String),
          ),
        { timeout: REMOVED_WITHIN_MS },
      );
      expect(failing).toHaveBeenCalledWith(game.id);
    } finally {
      failing.mockRestore();
      warn.mockRestore();
    }
    expect((await rowOf(game.id)).cleaned).toBe(0);
    expect(await machinesOf(game.id)).toHaveLength(1);
    expect(await statuses('player', vmId, game.id)).toEqual(allRefused(vmId, game.id));

    await ok(call('admin', 'POST', '/admin/janitor'));
    expect(await machinesOf(game.id)).toEqual([]);
    expect((await rowOf(game.id)).cleaned).toBe(1);
  });

  it('ends a game at full score: its machines are refused and removed the same way', async () => {
    const { game, vmId } = await launch('Solved');
    const graded = await ok(
      call('player', 'POST', '/gamespace/grade', {
        id: game.id,
        sectionIndex: 0,
        questions: [{ answer: 'forty-two' }],
      }),
    );
    expect(graded.isActive).toBe(false);
    expect(await statuses('player', vmId, game.id)).toEqual(allRefused(vmId, game.id));
    await vi.waitFor(async () => expect(await machinesOf(game.id)).toEqual([]), {
      timeout: REMOVED_WITHIN_MS,
    });
  });

  it('refuses an expired game’s machines before the janitor ends it; its run removes them', async () => {
    const { game, vmId } = await launch('Out of time');
    // The time runs out (a second ago); no janitor has run.
    await server.app.store.db
      .updateTable('gamespaces')
      .set({ expirationTime: Date.now() - 1_000 })
      .where('id', '=', game.id)
      .execute();
    expect(await statuses('player', vmId, game.id)).toEqual(allRefused(vmId, game.id));
    expect((await rowOf(game.id)).endTime).toBe(0);
    expect(await machinesOf(game.id)).toHaveLength(1);

    // Extended before the janitor ended it: the game goes on, and so do its machines.
    await ok(
      call('player', 'PUT', '/gamespace', {
        id: game.id,
        expirationTime: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
    await ok(call('player', 'GET', `/vm-console/${vmId}`));

    await server.app.store.db
      .updateTable('gamespaces')
      .set({ expirationTime: Date.now() - 1_000 })
      .where('id', '=', game.id)
      .execute();
    expect((await call('player', 'GET', `/vm-console/${vmId}`)).status).toBe(403);
    await ok(call('admin', 'POST', '/admin/janitor'));
    expect((await rowOf(game.id)).endTime).toBeGreaterThan(0);
    expect(await machinesOf(game.id)).toEqual([]);
  });

  it('deletes a game just completed without racing its removal', async () => {
    const { game } = await launch('Completed then deleted');
    // The background removal is held until a second delete of the same machines starts, or for
    // two seconds: a delete of the game must wait for the removal rather than run beside it.
    let running = 0;
    let mostAtOnce = 0;
    let secondStarted = () => {};
    const second = new Promise<void>((resolve) => (secondStarted = resolve));
    const deleteAll = server.app.driver.deleteAll.bind(server.app.driver);
    const removing = vi.spyOn(server.app.driver, 'deleteAll').mockImplementation(async (term) => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      try {
        if (removing.mock.calls.length === 1) {
          await Promise.race([second, new Promise((resolve) => setTimeout(resolve, 2_000))]);
        } else {
          secondStarted();
        }
        return await deleteAll(term);
      } finally {
        running -= 1;
      }
    });
    try {
      await ok(call('player', 'POST', `/gamespace/${game.id}/complete`));
      await vi.waitFor(() => expect(removing).toHaveBeenCalledTimes(1));
      const deleted = await call('admin', 'DELETE', `/gamespace/${game.id}`);
      expect(deleted.status, deleted.text).toBe(200);
      expect(mostAtOnce).toBe(1);
      expect(await machinesOf(game.id)).toEqual([]);
    } finally {
      removing.mockRestore();
    }
  });

  it('refuses on another server at once, whatever game state that server keeps', async () => {
    const { game, vmId } = await launch('Two servers');
    // A second server process on the same database, its own caches and hub (no backplane).
    const dataDir = mkdtempSync(join(tmpdir(), 'topoplay-second-'));
    let other: App | null = null;
    try {
      other = await buildApp({ ...server.app.config, dataDir }, { logger: false });
      const onOther = async (method: string, url: string) =>
        (await other!.app.inject({ method: method as 'GET', url, headers: headers.player }))
          .statusCode;
      // It keeps the active state it read (STATE_CACHE_MS), with the machine in it.
      const kept = await other.app.inject({
        method: 'GET',
        url: `/api/gamespace/${game.id}`,
        headers: headers.player,
      });
      expect(kept.json()).toMatchObject({ isActive: true, vms: [{ id: vmId }] });
      expect(await onOther('GET', `/api/vm-console/${vmId}`)).toBe(200);

      // The removal is held back, so the other server's refusal is its own.
      const { removing, release } = holdRemovals();
      try {
        await ok(call('player', 'POST', `/gamespace/${game.id}/complete`));
        expect(await onOther('GET', `/api/vm-console/${vmId}`)).toBe(403);
        expect(await onOther('GET', `/api/vm/${vmId}`)).toBe(403);
        expect(
          (
            await other.app.inject({
              method: 'PUT',
              url: '/api/vm',
              headers: headers.player,
              payload: { id: vmId, type: 'stop' },
            })
          ).statusCode,
        ).toBe(403);
      } finally {
        release();
        removing.mockRestore();
      }
    } finally {
      await other?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  /** The actor a user's credentials stand for (the console socket asks for such an actor). */
  async function actorOf(username: string) {
    const id = await server.userId(username);
    const row = await server.app.app.services.users.find(id);
    return actorFrom(row, { id, name: username }, null, { workspaceLimit: 0, gamespaceLimit: 0 });
  }
});

describe('machines of an expired gamespace, with the janitor on', () => {
  let lab: Awaited<ReturnType<typeof labServer>>;

  beforeAll(async () => {
    // The janitor's own run is an hour away: what removes the machines is the quick look.
    lab = await labServer({ JANITOR_ENABLED: 'true', JANITOR_START_SECONDS: '3600-3600' });
  }, 60_000);
  afterAll(() => lab?.server.close());

  it('removes them within seconds of the time running out, before the janitor ends the game', async () => {
    const { server, gameId } = lab;
    const machines = () => server.app.driver.machinesOf(gameId);
    expect(await machines()).toHaveLength(1);
    await server.app.store.db
      .updateTable('gamespaces')
      .set({ expirationTime: Date.now() - 1_000 })
      .where('id', '=', gameId)
      .execute();
    await vi.waitFor(async () => expect(await machines()).toEqual([]), {
      timeout: 3 * EXPIRY_CHECK_MS,
      interval: 250,
    });
    // Ending the game is still the janitor's, after the player's grace.
    const row = await server.app.store.db
      .selectFrom('gamespaces')
      .select(['endTime', 'cleaned'])
      .where('id', '=', gameId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ endTime: 0, cleaned: 1 });
  }, 30_000);
});

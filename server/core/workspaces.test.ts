import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../tests/server/manualClock';
import { openStore, type Store } from '../store/db';
import { createRepositories } from '../store/repositories';
import type { EventPayload, Publisher } from './fields';
import { newId } from './ids';
import { createTemplateService } from './templates';
import { actorFrom, type Actor } from './actor';
import { createWorkspaceService, MARKDOWN_CUT_LINE, type WorkspaceService } from './workspaces';

interface Recorded extends EventPayload {
  group: string;
  event: string;
}

function recorder(): Publisher & { events: Recorded[] } {
  const events: Recorded[] = [];
  return { events, publish: (group, event, payload) => events.push({ group, event, ...payload }) };
}

const defaults = { workspaceLimit: 0, gamespaceLimit: 2 };
const creator: Actor = actorFrom(null, { id: 'creator', name: 'Creator' }, 'creator', defaults);

describe('workspace service events and seams', () => {
  let store: Store;
  let workspaces: WorkspaceService;
  let docsDir: string;
  const hub = recorder();
  /** The service's time: the test moves it on. */
  const clock = createManualClock();
  const machines = { deleted: [] as string[][], ended: [] as string[] };
  /** The deletion cascade's steps, with whether the workspace's rows were still there. */
  const cascade: Array<{ step: string; id: string; stored: boolean }> = [];
  const step = (name: string) => async (id: string) =>
    void cascade.push({ step: name, id, stored: await workspaces.exists(id) });

  beforeAll(async () => {
    store = await openStore({ url: ':memory:' });
    docsDir = mkdtempSync(join(tmpdir(), 'topoplay-docs-'));
    workspaces = createWorkspaceService(createRepositories(store), {
      publisher: hub,
      docsDir,
      machines: {
        async workspaceDeleted(id, templates) {
          machines.deleted.push([id, ...templates.map((t) => t.name)]);
          await step('machines')(id);
        },
        gamespaceEnded: async (id) => void machines.ended.push(id),
      },
      files: [{ workspaceDeleted: step('document') }, { workspaceDeleted: step('images') }],
      clock,
    });
  });
  afterAll(async () => {
    await store?.close();
    rmSync(docsDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    hub.events.length = 0;
  });
  /** What went to workspace and gamespace groups; users' own channels are asserted apart. */
  const USERS = new Set(['creator', 'guest']);
  const groupEvents = () => hub.events.filter((e) => !USERS.has(e.group));
  const userEvents = () => hub.events.filter((e) => USERS.has(e.group));

  const gamespace = async (workspaceId: string, endTime = 0) => {
    const id = newId();
    await store.db
      .insertInto('gamespaces')
      .values({
        id,
        name: 'game',
        managerId: 'p',
        managerName: 'P',
        graderKey: '',
        whenCreated: clock.now(),
        startTime: clock.now(),
        endTime,
        expirationTime: clock.now() + 60_000,
        cleanupGraceMinutes: 0,
        cleaned: 0,
        allowReset: 0,
        challenge: '',
        workspaceId,
        variant: 0,
        playerCount: 1,
      })
      .execute();
    return id;
  };

  it('publishes TOPO.UPDATED with the Workspace to the workspace group', async () => {
    const ws = await workspaces.create(creator, { name: 'Lab' });
    await workspaces.update(creator, { id: ws.id, name: 'Lab 2', audience: 'everyone' });
    expect(groupEvents()).toMatchObject([
      {
        group: ws.id,
        event: 'TopoEvent',
        action: 'TOPO.UPDATED',
        actor: { id: 'creator', name: 'Creator' },
        model: {
          id: ws.id,
          name: 'Lab 2',
          audience: 'everyone',
          workers: [{ subjectId: 'creator' }],
        },
      },
    ]);
  });

  it('publishes TOPO.UPDATED when a collaborator joins by invitation or is removed', async () => {
    const ws = await workspaces.create(creator, { name: 'Shared' });
    const { code } = await workspaces.invite(creator, ws.id);
    const guest = actorFrom(null, { id: 'guest', name: 'Guest' }, null, defaults);
    await workspaces.enlist(guest, code);
    expect(groupEvents()).toMatchObject([
      {
        group: ws.id,
        action: 'TOPO.UPDATED',
        actor: { id: 'guest' },
        model: {
          workers: expect.arrayContaining([expect.objectContaining({ subjectId: 'guest' })]),
        },
      },
    ]);
    await workspaces.enlist(guest, code);
    expect(groupEvents()).toHaveLength(1);
    await workspaces.removeWorker(creator, ws.id, 'guest');
    expect(groupEvents()[1]).toMatchObject({
      action: 'TOPO.UPDATED',
      model: { workers: [{ subjectId: 'creator' }] },
    });
    // The guest's own channel hears that they joined, then that they were removed (no more).
    expect(userEvents().filter((e) => e.group === 'guest')).toEqual([
      expect.objectContaining({
        action: 'TOPO.ADDED',
        model: expect.objectContaining({ id: ws.id }),
      }),
      expect.objectContaining({ action: 'TOPO.REMOVED', model: { id: ws.id, name: 'Shared' } }),
    ]);
  });

  it('ends active gamespaces, removes their machines and publishes GAME.OVER {id} to each', async () => {
    const ws = await workspaces.create(creator, { name: 'Played' });
    const a = await gamespace(ws.id);
    const b = await gamespace(ws.id);
    const over = await gamespace(ws.id, 1_000);
    clock.advance(5_000);
    const stats = await workspaces.endGames(creator, ws.id);
    expect(stats.activeGamespaceCount).toBe(0);
    expect(new Set(machines.ended)).toEqual(new Set([a, b]));
    expect(hub.events.map((e) => [e.group, e.event, e.action, e.model])).toEqual(
      expect.arrayContaining([
        [a, 'GameEvent', 'GAME.OVER', { id: a }],
        [b, 'GameEvent', 'GAME.OVER', { id: b }],
      ]),
    );
    expect(groupEvents()).toHaveLength(2);
    const ended = await store.db
      .selectFrom('gamespaces')
      .select(['id', 'endTime'])
      .where('id', 'in', [a, b, over])
      .execute();
    // Ended at the service's time; one that was over already keeps its end.
    expect(new Map(ended.map((g) => [g.id, g.endTime]))).toEqual(
      new Map([
        [a, clock.now()],
        [b, clock.now()],
        [over, 1_000],
      ]),
    );
  });

  it('removes the machines first, then deletes and publishes TOPO.DELETED', async () => {
    const templates = createTemplateService(createRepositories(store));
    const ws = await workspaces.create(creator, { name: 'Doomed' });
    const stock = await templates.createDetail({ name: 'base', isPublished: true });
    await templates.link(creator, { templateId: stock.id, workspaceId: ws.id });
    const game = await gamespace(ws.id);
    await workspaces.remove(creator, ws.id);
    expect(machines.deleted.at(-1)?.[0]).toBe(ws.id);
    expect(machines.deleted.at(-1)).toHaveLength(2);
    expect(groupEvents()).toMatchObject([
      { group: ws.id, event: 'TopoEvent', action: 'TOPO.DELETED', model: { id: ws.id } },
    ]);
    expect(userEvents()).toMatchObject([
      { group: 'creator', action: 'TOPO.ADDED', model: { id: ws.id } },
      { group: 'creator', action: 'TOPO.DELETED', model: { id: ws.id } },
    ]);
    const row = await store.db
      .selectFrom('gamespaces')
      .select('workspaceId')
      .where('id', '=', game)
      .executeTakeFirstOrThrow();
    expect(row.workspaceId).toBeNull();
  });

  it('deletes its machines, then its document and images, then its rows', async () => {
    const ws = await workspaces.create(creator, { name: 'Filed' });
    await workspaces.remove(creator, ws.id);
    expect(cascade.filter((c) => c.id === ws.id)).toEqual([
      { step: 'machines', id: ws.id, stored: true },
      { step: 'document', id: ws.id, stored: true },
      { step: 'images', id: ws.id, stored: true },
    ]);
    expect(await workspaces.exists(ws.id)).toBe(false);
  });

  it('lists the document above the cut line with doc=1 and all of it with doc=2', async () => {
    const ws = await workspaces.create(creator, { name: 'Documented', audience: 'everyone' });
    mkdirSync(docsDir, { recursive: true });
    writeFileSync(join(docsDir, `${ws.id}.md`), `# Intro\n${MARKDOWN_CUT_LINE}\nsecret`);
    const find = async (doc: number) =>
      (await workspaces.list(creator, { term: ws.id, doc }))[0]?.text;
    expect(await find(0)).toBeNull();
    expect(await find(1)).toBe('# Intro\n');
    expect(await find(2)).toContain('secret');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../server/core/ids';
import {
  DESKTOP_SEEDED_KEY,
  DESKTOP_TEMPLATE,
  PLACEHOLDER_STOCK_TEMPLATES,
  seedStockTemplates,
  STOCK_IMAGES_KEY,
  STOCK_SEEDED_KEY,
  STOCK_TEMPLATES,
  stockTemplateRow,
  TINY_SEEDED_KEY,
  TINY_TEMPLATE,
  updateStockTemplates,
} from '../../server/core/stockTemplates';
import { openStore, type Store } from '../../server/store/db';
import {
  createStockTemplateRepository,
  type StockTemplateRepository,
} from '../../server/store/repositories/stockTemplates';
import type { TemplateTable, WorkspaceTable } from '../../server/store/schema';
import { createTestDatabase, testEngines, type TestDatabase } from './databases';

// The stock templates name real images (issue 31). A database seeded before, with placeholder
// disks, gets the new detail once, for the stock rows no one changed; an administrator's edit
// and a workspace's copy are left as they are. The desktop template, seeded apart, comes once
// to databases seeded before it.

const byName = (name: string) => STOCK_TEMPLATES.find((t) => t.name === name)!;
const placeholder = (name: string) => PLACEHOLDER_STOCK_TEMPLATES.find((t) => t.name === name)!;

describe.each(testEngines())('stock templates seeding on %s', (engine) => {
  let database: TestDatabase;
  let store: Store;
  let stock: StockTemplateRepository;

  const rows = () => store.db.selectFrom('templates').selectAll().orderBy('name').execute();
  const stockRow = async (name: string): Promise<TemplateTable> =>
    store.db
      .selectFrom('templates')
      .selectAll()
      .where('name', '=', name)
      .where('workspaceId', 'is', null)
      .executeTakeFirstOrThrow();
  const detail = (row: TemplateTable) => JSON.parse(row.detail ?? 'null');

  beforeEach(async () => {
    database = await createTestDatabase(engine);
    store = await openStore({ url: database.url, schema: database.schema });
    stock = createStockTemplateRepository(store.db);
  });
  afterEach(async () => {
    await store?.close();
    await database?.cleanup();
  });

  /** A database as the server seeded it before the stock templates named real images. */
  async function seededBefore(): Promise<void> {
    const now = Date.now();
    await stock.seed(
      { key: STOCK_SEEDED_KEY, value: String(now) },
      PLACEHOLDER_STOCK_TEMPLATES.map((t) => stockTemplateRow(t, now)),
    );
    await stock.seed({ key: TINY_SEEDED_KEY, value: String(now) }, [
      stockTemplateRow(TINY_TEMPLATE, now),
    ]);
  }

  it('seeds a new database with templates that name the images', async () => {
    expect(await seedStockTemplates(stock)).toBe(STOCK_TEMPLATES.length + 2);
    expect((await rows()).map((r) => r.name)).toEqual(
      [...STOCK_TEMPLATES, TINY_TEMPLATE, DESKTOP_TEMPLATE].map((t) => t.name).sort(),
    );
    const server = detail(await stockRow('linux-server'));
    expect(server.Disks.map((d: { Path: string }) => d.Path)).toEqual(['debian-12.qcow2']);
    expect(server.Template).toBe('topoplay-debian-12');
    const router = detail(await stockRow('router'));
    expect(router.Disks[0].Path).toBe('router.qcow2');
    expect(router.Template).toBe('topoplay-router');
    expect(router.Eth.map((e: { Net: string }) => e.Net)).toEqual(['lan', 'wan']);
    expect((await stockRow('router')).networks).toBe('lan wan');
    const desktop = detail(await stockRow('linux-desktop'));
    expect(desktop).toMatchObject({ Cpu: '1x2', Ram: 2, Template: 'topoplay-debian-desktop' });
    expect(desktop.Disks).toMatchObject([{ Path: 'debian-desktop.qcow2', Size: 4 }]);
    expect(desktop.Eth.map((e: { Net: string }) => e.Net)).toEqual(['lan']);
    // Nothing is left to rewrite, now or later.
    expect(await updateStockTemplates(stock)).toBe(0);
    expect(await stock.isMarked(STOCK_IMAGES_KEY)).toBe(true);
  });

  it('rewrites the untouched stock templates of a database seeded before, once', async () => {
    await seededBefore();
    // The desktop template is the one added.
    expect(await seedStockTemplates(stock)).toBe(1);
    for (const name of ['linux-server', 'workstation', 'router']) {
      const row = await stockRow(name);
      expect(detail(row)).toMatchObject({
        Name: name,
        Disks: byName(name).detail.Disks,
        Template: byName(name).detail.Template,
      });
      expect(row.description).toBe(byName(name).description);
    }
    const tiny = detail(await stockRow('tiny-linux'));
    expect(tiny.Disks[0].Path).toBe('topoplay-tiny.qcow2');
    expect(await updateStockTemplates(stock)).toBe(0);
  });

  it('leaves an administrator’s edit and a workspace’s copy as they are', async () => {
    await seededBefore();
    // An administrator gave linux-server more memory, and described the router in words of
    // their own (its detail untouched).
    const server = await stockRow('linux-server');
    const edited = JSON.stringify({ ...detail(server), Ram: 2 }, null, 2);
    await store.db
      .updateTable('templates')
      .set({ detail: edited })
      .where('id', '=', server.id)
      .execute();
    const router = await stockRow('router');
    await store.db
      .updateTable('templates')
      .set({ description: 'Our own router.' })
      .where('id', '=', router.id)
      .execute();
    // A workspace's unlinked copy of the workstation, its detail still the placeholder's.
    const workspaceId = newId();
    await store.db.insertInto('workspaces').values(workspaceRow(workspaceId)).execute();
    const copy: TemplateTable = {
      ...stockTemplateRow(placeholder('workstation'), Date.now()),
      workspaceId,
      isPublished: 0,
    };
    await store.db.insertInto('templates').values(copy).execute();

    expect(await updateStockTemplates(stock)).toBe(2);
    expect((await stockRow('linux-server')).detail).toBe(edited);
    const routerNow = await stockRow('router');
    expect(detail(routerNow).Disks[0].Path).toBe('router.qcow2');
    expect(routerNow.description).toBe('Our own router.');
    const copyNow = (await rows()).find((r) => r.id === copy.id)!;
    expect(copyNow.detail).toBe(copy.detail);
  });

  it('seeds the desktop template once into a database seeded before it', async () => {
    await seededBefore();
    expect(await stock.isMarked(DESKTOP_SEEDED_KEY)).toBe(false);
    const names = (await rows()).map((r) => r.name);
    expect(names).not.toContain('linux-desktop');
    expect(await seedStockTemplates(stock)).toBe(1);
    expect(await stock.isMarked(DESKTOP_SEEDED_KEY)).toBe(true);
    expect((await rows()).map((r) => r.name)).toEqual([...names, 'linux-desktop'].sort());
    const row = await stockRow('linux-desktop');
    expect(row).toMatchObject({
      description: DESKTOP_TEMPLATE.description,
      networks: 'lan',
      isPublished: 1,
      workspaceId: null,
    });
    // An administrator deletes it: the next start does not bring it back.
    await store.db.deleteFrom('templates').where('id', '=', row.id).execute();
    expect(await seedStockTemplates(stock)).toBe(0);
    expect((await rows()).map((r) => r.name)).toEqual(names);
  });

  it('seeds the desktop template once when two servers start together', async () => {
    await seededBefore();
    const counts = await Promise.all([seedStockTemplates(stock), seedStockTemplates(stock)]);
    expect(counts.sort()).toEqual([0, 1]);
    expect((await rows()).filter((r) => r.name === 'linux-desktop')).toHaveLength(1);
  });

  it('rewrites once when two servers start together', async () => {
    await seededBefore();
    const counts = await Promise.all([updateStockTemplates(stock), updateStockTemplates(stock)]);
    expect(counts.sort()).toEqual([0, 3]);
  });

  /** A workspace row with every column. */
  function workspaceRow(id: string): WorkspaceTable {
    const now = Date.now();
    return {
      id,
      name: 'Lab',
      description: '',
      tags: '',
      author: '',
      audience: '',
      shareCode: '',
      templateScope: '',
      templateLimit: 3,
      durationMinutes: 60,
      whenCreated: now,
      lastActivity: now,
      launchCount: 0,
      hostAffinity: 0,
      useUplinkSwitch: 0,
      isPublished: 0,
      challenge: '',
    };
  }
});

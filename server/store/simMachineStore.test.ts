import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, testEngines, type TestDatabase } from '../../tests/server/databases';
import { NO_TASK, type SimMachineRow } from '../hypervisor/sim/port';
import { openStore, type Store } from './db';
import { createSimMachineStore } from './simMachineStore';

// The sim's machines as deploys write them: each deploy batch is told the names it added (a
// machine of a name that exists stands), and on PostgreSQL the batches of launches arriving
// together go as one statement.

const machine = (name: string): SimMachineRow => ({
  id: `id-${name}`,
  name,
  tag: name.split('#')[1] ?? '',
  status: 'deployed',
  state: 'running',
  diskPath: '',
  nics: '[]',
  iso: '',
  bootDelay: 0,
  guestSettings: '',
  question: '',
  whenCreated: 1_000,
  ...NO_TASK,
});

describe.each(testEngines())('the sim machines stored on %s', (engine) => {
  let database: TestDatabase;
  let store: Store;
  afterEach(async () => {
    vi.restoreAllMocks();
    await store.close();
    await database.cleanup();
  });

  const open = async () => {
    database = await createTestDatabase(engine);
    store = await openStore({ url: database.url, schema: database.schema });
    return createSimMachineStore(store.db);
  };

  it('tells each of the deploy batches made together the names it added', async () => {
    const machines = await open();
    await machines.insert([machine('a#t0')]);
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const added = await Promise.all([
      machines.insert([machine('a#t1'), machine('b#t1')]),
      machines.insert([machine('a#t0'), machine('b#t0')]),
      machines.insert([machine('a#t2')]),
    ]);
    if (engine === 'postgres') expect(sent).toHaveBeenCalledTimes(1);
    expect(added.map((names) => [...names].sort())).toEqual([['a#t1', 'b#t1'], ['b#t0'], ['a#t2']]);
    expect((await machines.ofTag('t0')).map((m) => m.id).sort()).toEqual(['id-a#t0', 'id-b#t0']);
  });

  it('gives a name two batches made together ask for to one of them', async () => {
    const machines = await open();
    const one = { ...machine('a#t1'), id: 'one' };
    const two = { ...machine('a#t1'), id: 'two' };
    const [first, second] = await Promise.all([
      machines.insert([one, machine('b#t1')]),
      machines.insert([two]),
    ]);
    const [stored] = await machines
      .ofTag('t1')
      .then((rows) => rows.filter((r) => r.name === 'a#t1'));
    expect(first.has('b#t1')).toBe(true);
    expect(first.has('a#t1')).toBe(stored!.id === 'one');
    expect(second.has('a#t1')).toBe(stored!.id === 'two');
  });
});

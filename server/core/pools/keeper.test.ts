import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tests/server/databases';
import { createManualClock, type ManualClock } from '../../../tests/server/manualClock';
import type { HypervisorDriver } from '../../hypervisor';
import { createSimDriver } from '../../hypervisor/sim/simDriver';
import { TASK_MS } from '../../hypervisor/sim/tasks';
import { openStore, type Store } from '../../store/db';
import type { GamespaceTable } from '../../store/schema';
import { createRepositories, type Repositories } from '../../store/repositories';
import { createSimMachineStore } from '../../store/simMachineStore';
import { createMemoryCache } from '../cache';
import { DomainError, ValidationFailed } from '../errors';
import { newId } from '../ids';
import { toMachineSpec } from '../machineSpecs';
import { gamespaceTemplates } from '../play/deploy';
import { createJanitor, DEFAULT_JANITOR_OPTIONS } from '../janitor';
import { REFILL_SETTLE_MS, WARMING_STALE_MS } from './keeper';
import { demandOf } from './room';
import { pooledSpecs } from './sets';
import { createPoolService } from './service';

// The pool keeper on a real store and the sim driver, without HTTP: what it refuses (a driver
// that cannot retag, more sets than the hypervisor may run), what it warms within the room the
// driver has, and what the janitor reclaims (sets warming too long, failed ones) or leaves alone
// (a pooled set's machines are no orphans).

describe('the pool keeper', () => {
  let database: TestDatabase;
  let store: Store;
  let repos: Repositories;
  let sim: HypervisorDriver;
  let clock: ManualClock;
  let dataDir: string;
  let workspaceId: string;

  /** A workspace with two templates, web and db; its id. */
  async function addWorkspace(): Promise<string> {
    const id = newId();
    await store.db
      .insertInto('workspaces')
      .values({
        id,
        name: 'Lab',
        description: '',
        tags: '',
        author: '',
        audience: '',
        shareCode: '',
        templateScope: '',
        isPublished: 0,
        templateLimit: 3,
        hostAffinity: 0,
        useUplinkSwitch: 0,
        durationMinutes: 0,
        launchCount: 0,
        lastActivity: 0,
        challenge: '',
        whenCreated: 0,
      })
      .execute();
    for (const name of ['web', 'db']) {
      await store.db
        .insertInto('templates')
        .values({
          id: newId(),
          name,
          description: '',
          audience: '',
          iso: '',
          networks: 'lan',
          guestinfo: '',
          isHidden: 0,
          isPublished: 0,
          isLinked: 0,
          detail: null,
          parentId: null,
          replicas: 1,
          variant: 0,
          workspaceId: id,
          whenCreated: 0,
        })
        .execute();
    }
    return id;
  }

  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
    store = await openStore({ url: database.url });
    repos = createRepositories(store);
    clock = createManualClock();
    dataDir = mkdtempSync(join(tmpdir(), 'topoplay-pools-'));
    sim = createSimDriver({ store: createSimMachineStore(store.db), dataDir, speed: 0, clock });
    workspaceId = await addWorkspace();
  });
  afterEach(async () => {
    await sim.close();
    await store.close();
    await database.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const service = (driver: HypervisorDriver) =>
    createPoolService(repos, { driver, cache: createMemoryCache(clock), clock });
  const setsOf = () => repos.pools.setsOf(workspaceId);

  it('refuses a pool on a driver that cannot retag, naming the driver', async () => {
    const qemuLike: HypervisorDriver = {
      ...sim,
      capabilities: { ...sim.capabilities, kind: 'qemu', retag: false },
    };
    const pools = service(qemuLike);
    expect(pools.supported()).toBe(false);
    const refused = pools.setSize(workspaceId, 2);
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toThrow(/qemu driver cannot/);
    // Turning a pool off is always allowed.
    expect((await pools.setSize(workspaceId, 0)).size).toBe(0);
  });

  it('refuses more sets than the hypervisor may run beside a launch, and warms only what fits now', async () => {
    // Six machines may run, two run already: room for two sets of two machines, one of which
    // is left for a launch.
    const capped: HypervisorDriver = {
      ...sim,
      status: async () => ({ ...(await sim.status()), maxRunning: 6, running: 2 }),
    };
    const pools = service(capped);
    // Three sets and a launch are eight machines.
    await expect(pools.setSize(workspaceId, 3)).rejects.toThrow(/room for one launch/);
    await expect(pools.setSize(workspaceId, 51)).rejects.toBeInstanceOf(ValidationFailed);
    const view = await pools.setSize(workspaceId, 2);
    expect(view.size).toBe(2);
    await pools.settled();
    expect((await setsOf()).map((s) => s.state)).toEqual(['ready']);
  });

  it('counts memory and the room the driver reserved against the caps', async () => {
    const ws = (await repos.workspaces.find(workspaceId))!;
    const rows = await repos.templates.ofWorkspaceWithParentDetail(workspaceId);
    const perSet = demandOf(pooledSpecs(ws, rows, 0, ''), false);
    expect(perSet.machines).toBe(2);
    // Memory for four sets, one set's worth reserved by a launch being deployed: room for three,
    // one of which is left for a launch.
    const capped: HypervisorDriver = {
      ...sim,
      status: async () => ({
        ...(await sim.status()),
        maxMemoryMiB: 4 * perSet.memoryMiB,
        reserved: perSet,
      }),
    };
    const pools = service(capped);
    await expect(pools.setSize(workspaceId, 4)).rejects.toThrow(/MiB/);
    await pools.setSize(workspaceId, 3);
    await pools.settled();
    expect(await setsOf()).toHaveLength(2);
  });

  it('leaves the last room for a launch when two pools are refilled at once', async () => {
    const other = await addWorkspace();
    // Room for two sets: one for a pool, one for a launch.
    const capped: HypervisorDriver = {
      ...sim,
      status: async () => ({ ...(await sim.status()), maxRunning: 4 }),
    };
    const pools = service(capped);
    await repos.pools.setSize(workspaceId, 1, clock.now());
    await repos.pools.setSize(other, 1, clock.now());
    await Promise.all([pools.keep(workspaceId), pools.keep(other)]);
    await pools.settled();
    const sets = [...(await repos.pools.setsOf(workspaceId)), ...(await repos.pools.setsOf(other))];
    expect(sets.map((s) => s.state)).toEqual(['ready']);
    expect((await sim.status()).running).toBe(2);
  });

  it('reclaims sets warming too long and failed ones, with their machines', async () => {
    const pools = service(sim);
    await pools.setSize(workspaceId, 1);
    await pools.settled();
    const [set] = await setsOf();
    expect(set?.state).toBe('ready');
    // A set whose server went away in the middle of its deploy.
    const stuck = newId();
    await repos.pools.addSet({
      id: stuck,
      workspaceId,
      variant: 0,
      fingerprint: set!.fingerprint,
      created: clock.now(),
    });
    await sim.deploy(
      {
        templateId: newId(),
        name: 'web',
        isolationTag: stuck,
        cpu: { sockets: 1, coresPerSocket: 1 },
        memoryMiB: 512,
        guestOs: null,
        disks: [],
        nics: [],
        guestSettings: [],
        iso: null,
        bootDelaySeconds: 0,
        autoStart: false,
        hostAffinity: false,
        useUplink: false,
        baseImage: null,
        baseImageSource: null,
      },
      false,
    );
    const janitor = createJanitor({
      repositories: repos,
      driver: sim,
      cache: createMemoryCache(clock),
      log: { info: () => {}, warn: () => {} },
      clock,
      pools,
    });
    // Pool tags are no orphans, whatever state their set is in.
    const reports = await janitor.run({ ...DEFAULT_JANITOR_OPTIONS, dryRun: true });
    expect(reports.filter((r) => r.reason === 'OrphanedVms')).toEqual([]);

    clock.advance(WARMING_STALE_MS + 1);
    await janitor.run({ ...DEFAULT_JANITOR_OPTIONS, dryRun: true });
    await pools.settled();
    expect((await setsOf()).map((s) => s.id)).toEqual([set!.id]);
    expect(await sim.machinesOf(stuck)).toEqual([]);
    // The ready set was left alone.
    expect(await sim.machinesOf(set!.id)).toHaveLength(2);
  });

  it('forgets the pool of a deleted workspace, and its sets with their machines', async () => {
    const pools = service(sim);
    await pools.setSize(workspaceId, 2);
    await pools.settled();
    const tags = (await setsOf()).map((s) => s.id);
    expect(tags).toHaveLength(2);
    await store.db.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
    await pools.keep(workspaceId);
    await pools.settled();
    expect(await setsOf()).toEqual([]);
    expect(await repos.pools.setting(workspaceId)).toBeUndefined();
    for (const tag of tags) expect(await sim.machinesOf(tag)).toEqual([]);
  });

  it('marks a set ready only once the driver says its machines are usable', async () => {
    let usable: () => void = () => undefined;
    const asked: string[] = [];
    const booting: HypervisorDriver = {
      ...sim,
      untilUsable: (tag) => {
        asked.push(tag);
        return new Promise<void>((resolve) => (usable = resolve));
      },
    };
    const pools = service(booting);
    await pools.setSize(workspaceId, 1);
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    const [set] = await setsOf();
    // Deployed, but still booting: warming, and no claim could take it.
    expect(asked).toEqual([set!.id]);
    expect((await sim.machinesOf(set!.id)).length).toBe(2);
    expect((await setsOf()).map((s) => s.state)).toEqual(['warming']);
    usable();
    await pools.settled();
    expect((await setsOf()).map((s) => s.state)).toEqual(['ready']);
    await pools.stop();
  });

  it('keeps a set warming until its machines run, on a sim whose tasks take time', async () => {
    const slow = createSimDriver({
      store: createSimMachineStore(store.db),
      dataDir,
      speed: 1,
      clock,
    });
    try {
      const pools = service(slow);
      await pools.setSize(workspaceId, 1);
      // The timers of the machines' deploys, and of the keeper's wait for them.
      await vi.waitFor(() => expect(clock.pending()).toBe(3));
      const [set] = await setsOf();
      expect((await slow.machinesOf(set!.id)).map((vm) => vm.task?.name)).toEqual([
        'deploying',
        'deploying',
      ]);
      clock.advance(TASK_MS.deploy - 1);
      expect((await setsOf()).map((s) => s.state)).toEqual(['warming']);
      clock.advance(1);
      await pools.settled();
      expect((await setsOf()).map((s) => s.state)).toEqual(['ready']);
      expect((await slow.machinesOf(set!.id)).map((vm) => vm.state)).toEqual([
        'running',
        'running',
      ]);
      await pools.stop();
    } finally {
      await slow.close();
    }
  });

  it('keeps no set of machines the driver cannot pool, and says why', async () => {
    const reason = 'The image of the template web has no guest agent';
    const agentless: HypervisorDriver = {
      ...sim,
      poolable: async (spec) =>
        spec.name === 'web' ? { available: false, reason } : { available: true },
    };
    const pools = service(agentless);
    await expect(pools.setSize(workspaceId, 1)).rejects.toThrow(reason);
    // A pool set before the driver knew: the keeper warms nothing, and the view says why.
    await repos.pools.setSize(workspaceId, 1, clock.now());
    await pools.keep(workspaceId);
    await pools.settled();
    expect(await setsOf()).toEqual([]);
    expect(await pools.get(workspaceId)).toMatchObject({ size: 1, ready: 0, unpoolable: reason });
    expect((await service(sim).get(workspaceId)).unpoolable).toBeNull();
  });

  it('fails a set whose wait for usable machines taught the driver it cannot be pooled', async () => {
    let known = false;
    const learning: HypervisorDriver = {
      ...sim,
      // The wait runs its course, and the driver learns that the image has no agent.
      untilUsable: async () => {
        known = true;
      },
      poolable: async () =>
        known ? { available: false, reason: 'no guest agent' } : { available: true },
    };
    const pools = service(learning);
    await pools.setSize(workspaceId, 1);
    await pools.settled();
    const [set] = await setsOf();
    expect(set?.state).toBe('failed');
    // The next round warms none in its place, and drains the failed one with its machines.
    await pools.keep(workspaceId);
    await pools.settled();
    expect(await setsOf()).toEqual([]);
    expect(await sim.machinesOf(set!.id)).toEqual([]);
    expect((await pools.get(workspaceId)).unpoolable).toBe('no guest agent');
  });

  it('answers a claim whose hand-over fails as a miss, leaving no machine behind', async () => {
    const broken: HypervisorDriver = {
      ...sim,
      retag: () => Promise.reject(new Error('the hypervisor went away')),
    };
    const pools = service(broken);
    await pools.setSize(workspaceId, 1);
    await pools.settled();
    const [set] = await setsOf();
    const ws = (await repos.workspaces.find(workspaceId))!;
    const rows = await repos.templates.ofWorkspaceWithParentDetail(workspaceId);
    const g = { id: newId(), variant: 0, playerCount: 1, challenge: '' } as GamespaceTable;
    const specs = gamespaceTemplates(g, ws, rows, { transforms: [], challenge: null }).map(
      toMachineSpec,
    );
    expect(await pools.claims.claim(g, ws, rows, specs)).toBe(false);
    expect(await sim.machinesOf(set!.id)).toEqual([]);
    expect(await sim.machinesOf(g.id)).toEqual([]);
    await pools.stop();
  });

  it('refills after a claim only once claims have paused', async () => {
    const pools = service(sim);
    await pools.setSize(workspaceId, 1);
    await pools.settled();
    const ws = (await repos.workspaces.find(workspaceId))!;
    const rows = await repos.templates.ofWorkspaceWithParentDetail(workspaceId);
    const g = { id: newId(), variant: 0, playerCount: 1, challenge: '' } as GamespaceTable;
    const specs = gamespaceTemplates(g, ws, rows, { transforms: [], challenge: null }).map(
      toMachineSpec,
    );
    expect(await pools.claims.claim(g, ws, rows, specs)).toBe(true);
    await pools.settled();
    // The claimed machines have the host to themselves for a while: nothing is warming.
    expect((await setsOf()).map((s) => s.state)).toEqual(['claimed']);
    clock.advance(REFILL_SETTLE_MS - 1);
    await pools.settled();
    expect((await setsOf()).map((s) => s.state)).toEqual(['claimed']);
    clock.advance(1);
    await vi.waitFor(async () =>
      expect((await setsOf()).map((s) => s.state).sort()).toEqual(['claimed', 'ready']),
    );
    await pools.stop();
  });

  it('keeps one round per workspace at a time across servers', async () => {
    const cache = createMemoryCache(clock);
    const [a, b] = [0, 1].map(() => createPoolService(repos, { driver: sim, cache, clock }));
    await repos.pools.setSize(workspaceId, 3, clock.now());
    await Promise.all([a!.keep(workspaceId), b!.keep(workspaceId)]);
    await Promise.all([a!.settled(), b!.settled()]);
    expect(await setsOf()).toHaveLength(3);
  });
});

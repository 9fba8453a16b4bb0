import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PveParams } from './client';
import { createSdn, type PveVnet, type Sdn, type SdnOptions } from './sdn';

// The SDN module keeps one PVE vnet per isolated net and applies vnet changes in batches. It runs
// here against a fake of the few PVE API calls it makes: the fake keeps the SDN vnet list, records
// every call, and hands each apply's task to the test, which ends it when and how it wants. Timers
// are real but short (debounce of 5 ms); tests wait for outcomes with vi.waitFor, never for time.

const ZONE = 'lab';
const TAGS: readonly [number, number] = [100, 110];
const T1 = '6f1d2c3b-0000-4a5b-8c9d-0123456789ab';
const T2 = 'a0b1c2d3-1111-4e5f-9a8b-fedcba987654';
/** PVE's vnet id pattern and length (pve-network's VnetPlugin). */
const VNET_ID = /^[a-zA-Z][a-zA-Z0-9]*[a-zA-Z0-9]$/;

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets everything that can happen without a timer happen. */
const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  params?: PveParams;
}

/** A fake of the PVE calls the SDN module makes; `vnets` is the cluster's SDN configuration. */
function fakePve(vnets: PveVnet[] = []) {
  const calls: Call[] = [];
  /** One per apply, in order; ended by the test unless `autoApply` is set. */
  const tasks: Array<{ upid: string } & Deferred> = [];
  const state = {
    autoApply: true,
    /** Called before a POST of a vnet is stored; may throw to refuse it. */
    beforePost: (_vnet: PveVnet): void => undefined,
  };
  const reply = <T>(value: unknown): Promise<T> => Promise.resolve(value as T);

  const api: SdnOptions['api'] = {
    get<T>(path: string, params?: PveParams) {
      calls.push({ method: 'GET', path, params });
      if (path !== '/cluster/sdn/vnets') throw new Error(`fake PVE: no GET ${path}`);
      return reply<T>(vnets.map((v) => ({ ...v })));
    },
    async post<T>(path: string, params?: PveParams) {
      calls.push({ method: 'POST', path, params });
      if (path !== '/cluster/sdn/vnets') throw new Error(`fake PVE: no POST ${path}`);
      const vnet: PveVnet = {
        vnet: String(params?.vnet),
        zone: String(params?.zone),
        tag: Number(params?.tag),
        alias: String(params?.alias),
      };
      state.beforePost(vnet);
      if (vnets.some((v) => v.vnet === vnet.vnet)) throw new Error(`vnet ${vnet.vnet} exists`);
      vnets.push(vnet);
      return reply<T>(null);
    },
    put<T>(path: string, params?: PveParams) {
      calls.push({ method: 'PUT', path, params });
      const id = /^\/cluster\/sdn\/vnets\/([^/]+)$/.exec(path)?.[1];
      if (id) {
        const vnet = vnets.find((v) => v.vnet === id);
        if (!vnet) throw new Error(`fake PVE: no vnet at ${path}`);
        vnet.alias = String(params?.alias);
        return reply<T>(null);
      }
      if (path !== '/cluster/sdn') throw new Error(`fake PVE: no PUT ${path}`);
      const upid = `UPID:pve1:0000${tasks.length}:reloadnetworkall::root@pam:`;
      tasks.push({ upid, ...deferred() });
      return reply<T>(upid);
    },
    delete<T>(path: string, params?: PveParams) {
      calls.push({ method: 'DELETE', path, params });
      const id = /^\/cluster\/sdn\/vnets\/([^/]+)$/.exec(path)?.[1];
      const at = vnets.findIndex((v) => v.vnet === id);
      if (at < 0) throw new Error(`fake PVE: no vnet at ${path}`);
      vnets.splice(at, 1);
      return reply<T>(null);
    },
    waitTask(upid: string) {
      const task = tasks.find((t) => t.upid === upid);
      if (!task) throw new Error(`fake PVE: no task ${upid}`);
      if (state.autoApply) task.resolve();
      return task.promise;
    },
  };

  const applies = () => calls.filter((c) => c.method === 'PUT' && c.path === '/cluster/sdn');
  const posts = () => calls.filter((c) => c.method === 'POST');
  const deletes = () => calls.filter((c) => c.method === 'DELETE').map((c) => c.path);
  return { api, vnets, calls, tasks, state, applies, posts, deletes };
}

const opened: Sdn[] = [];

function sdnOn(pve: ReturnType<typeof fakePve>, options: Partial<SdnOptions> = {}): Sdn {
  const sdn = createSdn({ api: pve.api, zone: ZONE, tags: TAGS, debounceMs: 5, ...options });
  opened.push(sdn);
  return sdn;
}

afterEach(() => {
  for (const sdn of opened.splice(0)) sdn.close();
});

/** Whether a promise has settled yet, read without waiting for it. */
function track(promise: Promise<void>) {
  const seen: { outcome: 'pending' | 'resolved' | 'rejected'; error?: unknown } = {
    outcome: 'pending',
  };
  promise.then(
    () => (seen.outcome = 'resolved'),
    (error: unknown) => Object.assign(seen, { outcome: 'rejected', error }),
  );
  return seen;
}

describe('ensure', () => {
  it('makes one vnet per new isolated net, with its alias, a free tag and an id of ours', async () => {
    const pve = fakePve([{ vnet: 'dmz', zone: ZONE, tag: 100 }]);
    const sdn = sdnOn(pve);

    const ids = await sdn.ensure([`lan#${T1}`, `wan#${T1}`, `lan#${T1}`, '']);

    expect([...ids.keys()]).toEqual([`lan#${T1}`, `wan#${T1}`]);
    expect(pve.posts()).toHaveLength(2);
    const made = pve.vnets.slice(1);
    expect(made).toEqual([
      { vnet: ids.get(`lan#${T1}`), zone: ZONE, tag: 101, alias: `lan--${T1}` },
      { vnet: ids.get(`wan#${T1}`), zone: ZONE, tag: 102, alias: `wan--${T1}` },
    ]);
    for (const { vnet } of made) {
      expect(vnet).toMatch(/^tp[0-9a-z]{6}$/);
      expect(vnet).toMatch(VNET_ID);
    }
    expect(new Set(made.map((v) => v.vnet)).size).toBe(2);
  });

  it('takes the lowest tag of the range that no vnet of the zone uses', async () => {
    const pve = fakePve([
      { vnet: 'a', zone: ZONE, tag: 100 },
      { vnet: 'b', zone: ZONE, tag: 101 },
      { vnet: 'c', zone: ZONE, tag: 103 },
    ]);
    const sdn = sdnOn(pve);

    await sdn.ensure([`lan#${T1}`, `wan#${T1}`]);
    expect(pve.vnets.slice(3).map((v) => v.tag)).toEqual([102, 104]);
  });

  it('reuses the vnet of an alias that exists, and changes nothing', async () => {
    const pve = fakePve([{ vnet: 'tpabc123', zone: ZONE, tag: 105, alias: `lan--${T1}` }]);
    const sdn = sdnOn(pve);

    const ids = await sdn.ensure([`lan#${T1}`]);

    expect(ids).toEqual(new Map([[`lan#${T1}`, 'tpabc123']]));
    expect(pve.posts()).toEqual([]);
    await sdn.settled();
    expect(pve.applies()).toEqual([]);
  });

  it('makes the net of two launches at once only once', async () => {
    const pve = fakePve();
    const sdn = sdnOn(pve);

    const [first, second] = await Promise.all([
      sdn.ensure([`lan#${T1}`]),
      sdn.ensure([`lan#${T1}`]),
    ]);

    expect(pve.posts()).toHaveLength(1);
    expect(second).toEqual(first);
  });

  it('uses the vnet another server made of the same net when PVE refuses ours', async () => {
    const pve = fakePve();
    pve.state.beforePost = (vnet) => {
      pve.state.beforePost = () => undefined;
      pve.vnets.push({ vnet: 'tpother1', zone: ZONE, tag: vnet.tag, alias: vnet.alias });
      throw new Error('vnet tag already in use');
    };
    const sdn = sdnOn(pve);

    const ids = await sdn.ensure([`lan#${T1}`]);

    expect(ids).toEqual(new Map([[`lan#${T1}`, 'tpother1']]));
    expect(pve.vnets).toHaveLength(1);
  });

  it('fails when every tag of the range is taken', async () => {
    const pve = fakePve([
      { vnet: 'a', zone: ZONE, tag: 100 },
      { vnet: 'b', zone: ZONE, tag: 101 },
    ]);
    const sdn = sdnOn(pve, { tags: [100, 101] });

    await expect(sdn.ensure([`lan#${T1}`])).rejects.toThrow(/every vnet tag from 100 to 101/);
    expect(pve.posts()).toEqual([]);
  });
});

describe('applying', () => {
  it('applies the changes of several ensure() calls within the debounce once', async () => {
    const pve = fakePve();
    const sdn = sdnOn(pve);

    await Promise.all([
      sdn.ensure([`lan#${T1}`]),
      sdn.ensure([`wan#${T1}`]),
      sdn.ensure([`lan#${T2}`]),
    ]);
    await sdn.settled();

    expect(pve.posts()).toHaveLength(3);
    expect(pve.applies()).toHaveLength(1);
    await sdn.settled();
    expect(pve.applies()).toHaveLength(1);
  });

  it('settles only once the apply task has ended', async () => {
    const pve = fakePve();
    pve.state.autoApply = false;
    const sdn = sdnOn(pve);

    await sdn.ensure([`lan#${T1}`]);
    const settled = track(sdn.settled());
    await vi.waitFor(() => expect(pve.tasks).toHaveLength(1));
    await drain();
    expect(settled.outcome).toBe('pending');

    pve.tasks[0]!.resolve();
    await vi.waitFor(() => expect(settled.outcome).toBe('resolved'));
  });

  it('applies changes made while an apply runs in a next one', async () => {
    const pve = fakePve();
    pve.state.autoApply = false;
    const sdn = sdnOn(pve);

    await sdn.ensure([`lan#${T1}`]);
    const first = track(sdn.settled());
    await vi.waitFor(() => expect(pve.tasks).toHaveLength(1));
    await sdn.ensure([`wan#${T1}`]);
    const second = track(sdn.settled());

    pve.tasks[0]!.resolve();
    await vi.waitFor(() => expect(first.outcome).toBe('resolved'));
    await vi.waitFor(() => expect(pve.tasks).toHaveLength(2));
    expect(second.outcome).toBe('pending');

    pve.tasks[1]!.resolve();
    await vi.waitFor(() => expect(second.outcome).toBe('resolved'));
  });

  it('rejects settled() when the apply fails, and applies again on the next settled()', async () => {
    const pve = fakePve();
    pve.state.autoApply = false;
    const warn = vi.fn();
    const sdn = sdnOn(pve, { log: { warn } });

    await sdn.ensure([`lan#${T1}`]);
    const failed = sdn.settled();
    await vi.waitFor(() => expect(pve.tasks).toHaveLength(1));
    pve.tasks[0]!.reject(new Error('reloading the network of node pve2 failed'));
    await expect(failed).rejects.toThrow('pve2 failed');
    expect(warn).toHaveBeenCalledOnce();

    const again = track(sdn.settled());
    await vi.waitFor(() => expect(pve.tasks).toHaveLength(2));
    pve.tasks[1]!.resolve();
    await vi.waitFor(() => expect(again.outcome).toBe('resolved'));
    expect(pve.applies()).toHaveLength(2);
  });

  // PVE applies the whole configuration, so a failed apply fails the changes made while it ran
  // too: their settled() is rejected rather than left waiting.
  it('ends a settled() for a change made during an apply that failed', async () => {
    const pve = fakePve();
    pve.state.autoApply = false;
    const sdn = sdnOn(pve);

    await sdn.ensure([`lan#${T1}`]);
    const first = sdn.settled().catch(() => undefined);
    await vi.waitFor(() => expect(pve.tasks).toHaveLength(1));
    await sdn.ensure([`wan#${T1}`]);
    const second = track(sdn.settled());

    pve.tasks[0]!.reject(new Error('reload failed'));
    await first;
    await vi.waitFor(() => expect(second.outcome).toBe('rejected'));
    // The next settled() applies again, the change made during the failed apply with it.
    const third = track(sdn.settled());
    await vi.waitFor(() => expect(pve.tasks).toHaveLength(2));
    pve.tasks[1]!.resolve();
    await vi.waitFor(() => expect(third.outcome).toBe('resolved'));
  });

  it('applies nothing and settles at once when nothing changed', async () => {
    const pve = fakePve();
    const sdn = sdnOn(pve);

    await sdn.settled();
    expect(pve.applies()).toEqual([]);
  });
});

describe('removeTag', () => {
  it("deletes only the tag's vnets and applies that", async () => {
    const pve = fakePve([
      { vnet: 'tp000001', zone: ZONE, tag: 100, alias: `lan--${T1}` },
      { vnet: 'tp000002', zone: ZONE, tag: 101, alias: `wan--${T1}` },
      { vnet: 'tp000003', zone: ZONE, tag: 102, alias: `lan--${T2}` },
      { vnet: 'tp000004', zone: ZONE, tag: 103, alias: `lan--x${T1}` },
      { vnet: 'dmz', zone: ZONE, tag: 104 },
      { vnet: 'corp', zone: ZONE, tag: 105, alias: 'corporate network' },
      { vnet: 'tp000005', zone: 'other', tag: 100, alias: `lan--${T1}` },
    ]);
    const sdn = sdnOn(pve);

    await expect(sdn.removeTag(T1)).resolves.toBe(2);

    expect(pve.deletes()).toEqual(['/cluster/sdn/vnets/tp000001', '/cluster/sdn/vnets/tp000002']);
    expect(pve.vnets.map((v) => v.vnet)).toEqual([
      'tp000003',
      'tp000004',
      'dmz',
      'corp',
      'tp000005',
    ]);
    await sdn.settled();
    expect(pve.applies()).toHaveLength(1);
  });

  it('deletes and applies nothing when the tag has no vnets', async () => {
    const pve = fakePve([{ vnet: 'tp000003', zone: ZONE, tag: 102, alias: `lan--${T2}` }]);
    const sdn = sdnOn(pve);

    await expect(sdn.removeTag(T1)).resolves.toBe(0);
    await sdn.settled();
    expect(pve.deletes()).toEqual([]);
    expect(pve.applies()).toEqual([]);
  });
});

describe('retag', () => {
  it("relabels the tag's vnets for the other tag, replacing what that tag had, and applies", async () => {
    const pve = fakePve([
      { vnet: 'tp000001', zone: ZONE, tag: 100, alias: `lan--${T1}` },
      { vnet: 'tp000002', zone: ZONE, tag: 101, alias: `wan--${T1}` },
      { vnet: 'tp000003', zone: ZONE, tag: 102, alias: `lan--${T2}` },
      { vnet: 'dmz', zone: ZONE, tag: 104 },
    ]);
    const sdn = sdnOn(pve);

    await sdn.retag(T1, T2);

    // The vnets (and their bridges) are the same; only their labels changed hands.
    expect(pve.vnets.map((v) => [v.vnet, v.alias])).toEqual([
      ['tp000001', `lan--${T2}`],
      ['tp000002', `wan--${T2}`],
      ['dmz', undefined],
    ]);
    expect(pve.deletes()).toEqual(['/cluster/sdn/vnets/tp000003']);
    expect(pve.posts()).toEqual([]);
    await sdn.settled();
    expect(pve.applies()).toHaveLength(1);
  });

  it('changes and applies nothing when the tag has no vnets', async () => {
    const pve = fakePve([{ vnet: 'tp000003', zone: ZONE, tag: 102, alias: `lan--${T2}` }]);
    const sdn = sdnOn(pve);

    await sdn.retag(T1, T2);
    await sdn.settled();
    expect(pve.calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });
});

describe('the zone', () => {
  const admins: PveVnet = { vnet: 'dmz', zone: ZONE, tag: 104 };
  const aliased: PveVnet = { vnet: 'corp', zone: ZONE, tag: 105, alias: 'corporate network' };
  const ours: PveVnet = { vnet: 'tp000001', zone: ZONE, tag: 100, alias: `lan--${T1}` };
  const elsewhere: PveVnet = { vnet: 'wan', zone: 'other', tag: 106 };

  it('reserves the vnets of the zone whose alias is not ours', async () => {
    const sdn = sdnOn(fakePve([admins, aliased, ours, elsewhere]));

    await expect(sdn.reserved()).resolves.toEqual([admins, aliased]);
    await expect(sdn.list()).resolves.toEqual([admins, aliased, ours]);
  });

  it('ignores the tags and aliases of vnets of other zones', async () => {
    const pve = fakePve([{ vnet: 'tpelse01', zone: 'other', tag: 100, alias: `lan--${T1}` }]);
    const sdn = sdnOn(pve);

    const ids = await sdn.ensure([`lan#${T1}`]);

    expect(ids.get(`lan#${T1}`)).not.toBe('tpelse01');
    expect(pve.vnets[1]).toMatchObject({ zone: ZONE, tag: 100, alias: `lan--${T1}` });
  });
});

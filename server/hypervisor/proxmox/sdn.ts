import { randomBytes } from 'node:crypto';
import { realClock, type Clock, type Timer } from '../../clock';
import type { PveClient } from './client';
import { vmName } from '../naming';
import { aliasOf, netOfAlias } from './names';

// The gamespaces' networks as PVE SDN vnets in one zone (VXLAN or VLAN, set up by the admin): one
// vnet per isolated net `lan#{tag}`, made when a machine needs it and removed with the tag's
// machines. A vnet change is pending until the SDN configuration is applied (PUT /cluster/sdn),
// which takes seconds and reloads the network of every node: so changes are gathered for a short
// while and applied together, and a machine starts only once the vnets it uses are applied.

export interface PveVnet {
  vnet: string;
  zone?: string;
  alias?: string;
  tag?: number;
}

export interface SdnOptions {
  api: Pick<PveClient, 'get' | 'post' | 'put' | 'delete' | 'waitTask'>;
  zone: string;
  /** The VNIs or VLAN ids our vnets take, inclusive. */
  tags: readonly [number, number];
  /** Changes wait this long for more before they are applied... */
  debounceMs?: number;
  /** ...but never longer than this after the first of them. */
  maxDelayMs?: number;
  /** What the gathering is timed by. */
  clock?: Clock;
  log?: { warn(o: object, msg?: string): void };
}

export interface Sdn {
  /** The vnet id of each isolated net, made (pending) where missing. */
  ensure(nets: readonly string[]): Promise<Map<string, string>>;
  /** Resolves once every change made so far is applied; rejects when applying failed. */
  settled(): Promise<void>;
  /** Removes the vnets of a tag; how many. */
  removeTag(tag: string): Promise<number>;
  /**
   * Hands the vnets of one tag to another: each `{net}--{fromTag}` is relabelled
   * `{net}--{toTag}`. The bridges stay as they are (a vnet's bridge is its id), so the machines on
   * them keep their network without a moment's break and nothing waits for an apply. Vnets the
   * target tag had already (left by machines since deleted) go first.
   */
  retag(fromTag: string, toTag: string): Promise<void>;
  /** The zone's vnets as configured (not necessarily applied yet). */
  list(): Promise<PveVnet[]>;
  /** Vnets of the zone that are not ours (made by the admin): nets every deploy may use. */
  reserved(): Promise<PveVnet[]>;
  close(): void;
}

/** A vnet id of ours: 'tp' and six base-36 characters (PVE allows eight, letter first). */
const newVnetId = () => `tp${[...randomBytes(6)].map((b) => (b % 36).toString(36)).join('')}`;

export function createSdn(options: SdnOptions): Sdn {
  const { api, zone } = options;
  const debounceMs = options.debounceMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 3_000;
  const clock = options.clock ?? realClock;
  // Changes are numbered; `applied` is the last number an apply covered.
  let changes = 0;
  let applied = 0;
  let failure: { upTo: number; error: unknown } | null = null;
  let firstPending = 0;
  let timer: Timer | null = null;
  let applying: Promise<void> | null = null;
  const waiters: Array<{ upTo: number; resolve(): void; reject(e: unknown): void }> = [];
  // One ensure at a time: two launches of one tag must not make its net twice.
  let ensuring: Promise<unknown> = Promise.resolve();
  let closed = false;

  // Without parameters PVE lists the SDN configuration: vnets made or removed since the last
  // apply are already in it, or already gone.
  const list = async (): Promise<PveVnet[]> =>
    (await api.get<PveVnet[]>('/cluster/sdn/vnets')).filter((v) => v.zone === zone);

  function settle(): void {
    for (const waiter of [...waiters]) {
      // PVE applies the whole configuration: when it fails, every pending change failed with it.
      if (failure) waiter.reject(failure.error);
      else if (waiter.upTo <= applied) waiter.resolve();
      else continue;
      waiters.splice(waiters.indexOf(waiter), 1);
    }
  }

  async function apply(): Promise<void> {
    timer = null;
    const upTo = changes;
    try {
      const upid = await api.put<string>('/cluster/sdn');
      await api.waitTask(upid);
      applied = Math.max(applied, upTo);
      failure = null;
    } catch (error) {
      options.log?.warn({ err: error }, 'proxmox: applying the SDN configuration failed');
      failure = { upTo, error };
    }
    settle();
    applying = null;
    // Changes made while this apply ran go in the next one.
    if (changes > applied && !failure && !closed) schedule();
  }

  function schedule(): void {
    if (closed) return;
    if (applying) return; // apply() schedules again when it ends
    const now = clock.now();
    if (!timer) firstPending = now;
    else clock.clearTimeout(timer);
    const wait = Math.max(0, Math.min(debounceMs, firstPending + maxDelayMs - now));
    timer = clock.setTimeout(() => {
      applying = apply();
    }, wait);
  }

  const changed = () => {
    changes++;
    schedule();
  };

  async function freeTag(taken: Set<number>): Promise<number> {
    const [low, high] = options.tags;
    for (let tag = low; tag <= high; tag++) if (!taken.has(tag)) return tag;
    throw new Error(`every vnet tag from ${low} to ${high} of zone ${zone} is in use`);
  }

  async function ensureNow(nets: readonly string[]): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    const wanted = [...new Set(nets.filter(Boolean))];
    if (wanted.length === 0) return ids;
    let vnets = await list();
    for (const net of wanted) {
      const alias = aliasOf(net);
      const existing = vnets.find((v) => v.alias === alias);
      if (existing) {
        ids.set(net, existing.vnet);
        continue;
      }
      // Another server may take the same id or tag at the same moment: PVE refuses the second,
      // and this one tries again with fresh ones.
      for (let attempt = 0; ; attempt++) {
        const tag = await freeTag(new Set(vnets.map((v) => v.tag ?? -1)));
        const vnet = newVnetId();
        try {
          await api.post('/cluster/sdn/vnets', { vnet, zone, tag, alias });
          ids.set(net, vnet);
          vnets = [...vnets, { vnet, zone, tag, alias }];
          changed();
          break;
        } catch (error) {
          if (attempt >= 4) throw error;
          vnets = await list();
          const made = vnets.find((v) => v.alias === alias);
          if (made) {
            ids.set(net, made.vnet);
            break;
          }
        }
      }
    }
    return ids;
  }

  /** The vnets of a tag, by their alias `{net}--{tag}`. */
  const ofTag = (vnets: PveVnet[], tag: string) =>
    vnets.filter((v) => netOfAlias(v.alias)?.endsWith(`#${tag}`) === true);

  async function retagNow(fromTag: string, toTag: string): Promise<void> {
    const vnets = await list();
    const moving = ofTag(vnets, fromTag);
    if (moving.length === 0) return;
    for (const v of ofTag(vnets, toTag)) await api.delete(`/cluster/sdn/vnets/${v.vnet}`);
    await Promise.all(
      moving.map((v) =>
        api.put(`/cluster/sdn/vnets/${v.vnet}`, {
          alias: aliasOf(vmName(netOfAlias(v.alias)!, toTag)),
        }),
      ),
    );
    // Applied when convenient: the labels are all that changed, and no machine waits for them.
    changed();
  }

  return {
    ensure(nets) {
      const result = ensuring.then(() => ensureNow(nets));
      ensuring = result.catch(() => undefined);
      return result;
    },
    settled() {
      if (changes <= applied) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiters.push({ upTo: changes, resolve, reject });
        // A failed apply is tried again by the next waiter.
        if (failure) {
          failure = null;
          schedule();
        }
      });
    },
    // Not in line with ensures: no machine of either tag is being deployed (the lifecycle checked
    // the target tag; a pooled set is handed over once its deploys have ended), so none of their
    // nets is being made, and a claim does not wait behind the refills' ensures.
    retag: retagNow,
    async removeTag(tag) {
      const ours = ofTag(await list(), tag);
      for (const v of ours) await api.delete(`/cluster/sdn/vnets/${v.vnet}`);
      if (ours.length > 0) changed();
      return ours.length;
    },
    list,
    async reserved() {
      return (await list()).filter((v) => netOfAlias(v.alias) === null);
    },
    close() {
      closed = true;
      if (timer) clock.clearTimeout(timer);
      timer = null;
    },
  };
}

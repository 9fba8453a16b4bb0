import { parseChallengeText } from '../../../src/domain/challenge';
import { vmName, type HypervisorDriver, type MachineSpec } from '../../hypervisor';
import type { Repositories } from '../../store/repositories';
import type { GamespaceTable, PooledSetTable } from '../../store/schema';
import type { PoolClaims } from '../play/context';
import { fingerprintOf, pooledSpecs } from './sets';

// A launch's claim on its workspace's warm pool (play/lifecycle.ts deploy): the oldest ready set
// of the gamespace's variant made from the templates as they are now, claimed in one statement
// (repositories/pools.ts: no set goes to two launches), its machines retagged to the gamespace
// and given the gamespace's guest settings. A launch that finds none ready counts a miss and
// deploys as without a pool; a claim that fails costs the launch its head start, never the
// launch.

export interface ClaimDeps {
  repos: Pick<Repositories, 'pools'>;
  driver: HypervisorDriver;
  now(): number;
  warn(err: unknown, msg: string, fields?: object): void;
  info?(msg: string, fields: object): void;
  /** Whether the driver can run pools at all. */
  supported(): boolean;
  /** Asks for a round of the workspace's pool: refilled after a claim. */
  keep(workspaceId: string): unknown;
}

export function createPoolClaims(deps: ClaimDeps): PoolClaims {
  const { repos, driver, now, warn } = deps;

  /**
   * Hands a claimed set's machines to the gamespace, with the gamespace's guest settings: all of
   * a machine's at once, the machines side by side.
   */
  async function handOver(set: PooledSetTable, g: GamespaceTable, specs: readonly MachineSpec[]) {
    const started = performance.now();
    const machines = await driver.retag(set.id, g.id);
    const retagged = performance.now();
    const byName = new Map(machines.map((m) => [m.name, m]));
    await Promise.all(
      specs.map(async (spec) => {
        const machine = byName.get(vmName(spec.name, g.id));
        if (!machine) throw new Error(`pooled set ${set.id} has no machine ${spec.name}`);
        if (spec.guestSettings.length === 0) return;
        await driver.changeConfiguration(
          machine.id,
          { kind: 'guests', settings: [...spec.guestSettings], live: true },
          false,
        );
      }),
    );
    deps.info?.('a launch claimed a pooled set', {
      set: set.id,
      gamespaceId: g.id,
      retagMs: Math.round(retagged - started),
      settingsMs: Math.round(performance.now() - retagged),
    });
  }

  const claimOrMiss: PoolClaims['claim'] = async (g, ws, templates, specs) => {
    if (!deps.supported()) return false;
    if (!(await repos.pools.setting(ws.id))) return false;
    // A gamespace started again after a stop has machines of its own only if they were kept.
    if ((await driver.machinesOf(g.id)).length > 0) return false;
    // Sets are made for one player: a launch whose machines differ (replicas per player)
    // cannot use one.
    const names = (list: readonly MachineSpec[]) => list.map((s) => s.name).sort();
    const pooled = names(pooledSpecs(ws, templates, g.variant, ''));
    const fits = JSON.stringify(pooled) === JSON.stringify(names(specs));
    const challenge = parseChallengeText(g.challenge).challenge;
    const set = fits
      ? await repos.pools.claim(
          ws.id,
          g.variant,
          fingerprintOf(ws, templates, g.variant, challenge),
          g.id,
          now(),
        )
      : undefined;
    if (!set) {
      deps.keep(ws.id);
      await repos.pools.countMiss(ws.id);
      return false;
    }
    try {
      await handOver(set, g, specs);
      return true;
    } catch (err) {
      // Whatever the set left under either tag goes; the launch deploys afresh.
      warn(err, 'handing a pooled set over failed', { set: set.id, gamespaceId: g.id });
      await driver.deleteAll(set.id).catch(() => undefined);
      await driver.deleteAll(g.id).catch(() => undefined);
      return false;
    } finally {
      // The refill starts once the player has the set: a restore beside the handover would take
      // the host's cores from the machines the player waits for.
      deps.keep(ws.id);
    }
  };

  return {
    claim: (g, ws, templates, specs) =>
      claimOrMiss(g, ws, templates, specs).catch((err: unknown) => {
        warn(err, 'claiming a pooled set failed', { workspaceId: ws.id, gamespaceId: g.id });
        return false;
      }),
  };
}

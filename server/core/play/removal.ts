import { every, type Clock } from '../../clock';
import type { GamespaceRepository } from '../../store/repositories/gamespaces';

// Removing the machines of a gamespace that ended by a player's hand (completed, or solved at
// full score): started at once, in the background, so that the call that ended it answers
// without waiting for the hypervisor, and the machines stop holding memory and counting against
// the hypervisor's caps within seconds rather than at the janitor's next run (60–90 s). The
// reference leaves them to the janitor (wire reference §4.5, §4.6); its answers do not change.
// The removal is claimed in the database as the janitor's is (cleaned 0 -> 1), so the two never
// both delete; one that fails is logged and handed back, for the janitor's next run to retry.
// A gamespace whose time ran out is found by each server's quick look every EXPIRY_CHECK_MS
// (its machines are refused from that moment, see vms.ts): its machines go then, while the
// janitor ends the game itself after the player's grace, as the reference does.

/** How often each server looks for gamespaces whose time ran out. */
export const EXPIRY_CHECK_MS = 5_000;
/** How long a gamespace whose removal failed is left to the janitor before this looks again. */
export const RETRY_AFTER_FAILURE_MS = 60_000;

/**
 * `remove` run one call at a time per gamespace: the background removal, a stop and a delete of
 * the same gamespace may come together (a player deletes a game just completed), and a driver
 * deleting the same machines twice at once may fail the second call; one after the other, the
 * second finds nothing left to delete.
 */
export function oneAtATime(
  remove: (gamespaceId: string) => Promise<void>,
): (gamespaceId: string) => Promise<void> {
  const running = new Map<string, Promise<void>>();
  return (gamespaceId) => {
    const before = running.get(gamespaceId) ?? Promise.resolve();
    const run = before.then(
      () => remove(gamespaceId),
      () => remove(gamespaceId),
    );
    running.set(gamespaceId, run);
    const forget = () => {
      if (running.get(gamespaceId) === run) running.delete(gamespaceId);
    };
    run.then(forget, forget);
    return run;
  };
}

export interface MachineRemovalOptions {
  /** Removes a gamespace's machines and announces it (the VM service's deleteAll). */
  deleteMachines(gamespaceId: string): Promise<void>;
  log: { warn(obj: object, msg: string): void };
  /** The server's time, on which expired gamespaces are looked for. */
  clock: Clock;
}

export function createMachineRemoval(
  gamespaces: GamespaceRepository,
  options: MachineRemovalOptions,
) {
  const pending = new Set<Promise<void>>();
  /** Gamespaces whose removal failed here, and when: the quick look leaves them be a while. */
  const failed = new Map<string, number>();

  async function remove(gamespaceId: string): Promise<void> {
    if (!(await gamespaces.claimCleanup(gamespaceId))) return;
    try {
      await options.deleteMachines(gamespaceId);
      failed.delete(gamespaceId);
    } catch (err) {
      failed.set(gamespaceId, options.clock.now());
      // Logged once the claim is handed back, so that the log's "will retry" holds when read.
      try {
        await gamespaces.releaseCleanup(gamespaceId);
      } finally {
        options.log.warn(
          { err, gamespaceId },
          'removing the machines of an ended gamespace failed; the janitor will retry',
        );
      }
    }
  }

  function ended(gamespaceId: string): void {
    const run = remove(gamespaceId).catch((err: unknown) =>
      // The claim or its release failed (the database): the janitor finds the gamespace ended
      // and, unless the claim stayed taken, uncleaned.
      options.log.warn({ err, gamespaceId }, 'claiming the removal of gamespace machines failed'),
    );
    pending.add(run);
    void run.finally(() => pending.delete(run));
  }

  return {
    /** Starts removing the machines of a gamespace whose end is stored; returns at once. */
    ended,

    /**
     * Looks every EXPIRY_CHECK_MS for gamespaces whose time ran out and starts removing their
     * machines; the returned function stops looking.
     */
    watchExpiry(): () => void {
      const { clock } = options;
      let looking = false;
      return every(clock, EXPIRY_CHECK_MS, () => {
        if (looking) return;
        looking = true;
        const now = clock.now();
        gamespaces
          .expiredUncleaned(now)
          .then(
            (ids) => {
              for (const id of ids) {
                const at = failed.get(id);
                if (at === undefined || now - at >= RETRY_AFTER_FAILURE_MS) ended(id);
              }
            },
            (err: unknown) => options.log.warn({ err }, 'looking for expired gamespaces failed'),
          )
          .finally(() => (looking = false));
      });
    },

    /** Resolves once the removals under way are done (the server waits for them to close). */
    async settled(): Promise<void> {
      await Promise.all([...pending]);
    },
  };
}

export type MachineRemoval = ReturnType<typeof createMachineRemoval>;

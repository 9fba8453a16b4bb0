import { setup, transition, type SnapshotFrom } from 'xstate';
import type { PooledSetState } from '../../store/schema';

// A pooled machine set's life (warm pools, ./keeper.ts): its machines deploy under the pool tag
// (warming), all exist (ready), and then exactly one of: a launch claims it and its machines
// become the gamespace's (claimed), or the pool no longer wants it (drained: the pool shrank, the
// workspace's templates changed, or it failed or went stale) and its machines are deleted.
//
// The state lives in the set's row, shared by every server process, and each change is one
// conditional UPDATE on the states the change may leave (repositories/pools.ts `move`). Those
// states come from this machine (`leavesFrom`), so the chart in docs/charts is the rule the
// database enforces: a claimed set is never drained, a drained one never claimed.

export type PooledSetEvent =
  /** Every machine of the set exists. */
  | { type: 'set.warmed' }
  /** Its deploy failed, or it stayed warming too long. */
  | { type: 'set.failed' }
  /** A launch claimed it: its machines are the gamespace's from now on. */
  | { type: 'set.claimed' }
  /** The pool no longer wants it; its machines go. */
  | { type: 'set.drained' };

export const pooledSetMachine = setup({
  types: { events: {} as PooledSetEvent },
}).createMachine({
  id: 'pooledSet',
  description:
    "A warm pool's machine set: deployed ahead of launches (warming), ready, then claimed by one launch or drained; a failed set is drained.",
  initial: 'warming',
  states: {
    warming: {
      on: { 'set.warmed': 'ready', 'set.failed': 'failed', 'set.drained': 'drained' },
    },
    /** Deployed and never used: the only state a launch claims from. */
    ready: { on: { 'set.claimed': 'claimed', 'set.drained': 'drained' } },
    /** Its machines are what is left of a failed deploy; they go with a drain. */
    failed: { on: { 'set.drained': 'drained' } },
    /** The gamespace that claimed it owns its machines; the row stays for the pool's counts. */
    claimed: { type: 'final' },
    /** Its machines are being deleted; the row goes once they are. */
    drained: { type: 'final' },
  },
});

export type PooledSetSnapshot = SnapshotFrom<typeof pooledSetMachine>;

const STATES = Object.keys(pooledSetMachine.config.states ?? {}) as PooledSetState[];

/** The states an event moves a set out of, and where it goes: the conditional UPDATE's terms. */
export function leavesFrom(event: PooledSetEvent['type']): {
  from: PooledSetState[];
  to: PooledSetState;
} {
  let to: PooledSetState | undefined;
  const from = STATES.filter((state) => {
    const snapshot = pooledSetMachine.resolveState({ value: state, context: undefined });
    if (!snapshot.can({ type: event })) return false;
    const [next] = transition(pooledSetMachine, snapshot, { type: event });
    to = next.value as PooledSetState;
    return true;
  });
  if (!to) throw new Error(`no pooled set leaves any state on ${event}`);
  return { from, to };
}

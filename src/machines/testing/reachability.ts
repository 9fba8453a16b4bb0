import { getStateNodes, type AnyStateMachine, type AnyStateNode } from 'xstate';
import { getShortestPaths } from 'xstate/graph';

/**
 * A state that always leaves at once (an eventless transition without a guard) is never a
 * snapshot's value, so no path can end in it; its own transitions prove it was passed through.
 */
const isTransient = (node: AnyStateNode): boolean =>
  (node.always ?? []).some((transition) => !transition.guard);

/**
 * Test support: the ids of the state nodes of `machine` that no shortest path reaches, starting
 * from each of `inputs` (machines whose initial state depends on input need several). The
 * traversal sends every event the machine accepts, without payloads, as `xstate/graph` does by
 * default; `serializeState` abstracts what would otherwise make the state space infinite.
 * Transient states are left out (see `isTransient`).
 */
export function unreachedStateIds(
  machine: AnyStateMachine,
  options: { serializeState: (snapshot: { value: unknown }) => string; inputs?: unknown[] },
): string[] {
  const reached = new Set<AnyStateNode>();
  for (const input of options.inputs ?? [undefined]) {
    const paths = getShortestPaths(machine, { serializeState: options.serializeState, input });
    for (const path of paths) {
      if (path.state.status === 'error') {
        throw new Error(
          `traversal errored after ${path.steps.map((s) => s.event.type).join(' > ')}`,
        );
      }
      for (const node of getStateNodes(machine.root, path.state.value)) reached.add(node);
    }
  }
  const unreached: string[] = [];
  const visit = (node: AnyStateNode) => {
    if (node !== machine.root && !reached.has(node) && !isTransient(node)) unreached.push(node.id);
    Object.values(node.states).forEach(visit);
  };
  visit(machine.root);
  return unreached;
}

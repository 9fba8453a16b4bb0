import { getStateNodes, type AnyStateMachine, type AnyStateNode, type EventObject } from 'xstate';
import { getShortestPaths } from 'xstate/graph';

/**
 * A state that always leaves at once (an eventless transition without a guard) is never a
 * snapshot's value, so no path can end in it; its own transitions prove it was passed through.
 */
const isTransient = (node: AnyStateNode): boolean =>
  (node.always ?? []).some((transition) => !transition.guard);

/**
 * The events the snapshot's states accept (what xstate/graph sends by default), each as its
 * payload variants if it has some, else bare. An `events` option replaces the derived events, so
 * it must derive them itself.
 */
const withPayloads =
  (machine: AnyStateMachine, payloads: EventObject[]) =>
  (snapshot: { value: unknown }): EventObject[] => {
    const types = new Set(
      getStateNodes(machine.root, snapshot.value as never).flatMap((node) => node.ownEvents),
    );
    return [...types].flatMap((type) => {
      const variants = payloads.filter((event) => event.type === type);
      return variants.length > 0 ? variants : [{ type }];
    });
  };

/**
 * Test support: the ids of the state nodes of `machine` that no shortest path reaches, starting
 * from each of `inputs` (machines whose initial state depends on input need several). The
 * traversal sends every event the machine accepts, without payloads, as `xstate/graph` does by
 * default; `serializeState` abstracts what would otherwise make the state space infinite.
 * Transient states are left out (see `isTransient`).
 *
 * Forms decide by what was typed, which a payload-less event cannot say: `payloads` gives, for
 * such event types, the variants to send instead of the bare event (a valid and an invalid edit).
 * Every other event the machine accepts is still sent as it is.
 */
export function unreachedStateIds(
  machine: AnyStateMachine,
  options: {
    serializeState: (snapshot: { value: unknown }) => string;
    inputs?: unknown[];
    payloads?: Array<EventObject & Record<string, unknown>>;
  },
): string[] {
  const { payloads } = options;
  const reached = new Set<AnyStateNode>();
  for (const input of options.inputs ?? [undefined]) {
    const paths = getShortestPaths(machine, {
      serializeState: options.serializeState,
      input,
      ...(payloads ? { events: withPayloads(machine, payloads) } : {}),
    });
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

import type { AnyStateMachine } from 'xstate';
import { createTestModel } from 'xstate/graph';

/**
 * Test support for model-based tests: the shortest paths of an abstract model (a flat machine
 * without invoke or after) that together take every transition, self-loops included, since each
 * transition is its own step (its event and source are part of the serialized step).
 */
export function modelPaths(model: AnyStateMachine) {
  return createTestModel(model, {
    serializeTransition: (_snapshot, event, previous) =>
      event && previous ? ` via ${event.type} from ${JSON.stringify(previous.value)}` : '',
  }).getShortestPaths();
}

/** "from event to" for every step of the paths, and for every transition of the model. */
export function transitionCoverage(model: AnyStateMachine, paths: ReturnType<typeof modelPaths>) {
  const walked = new Set(
    paths.flatMap((path) =>
      path.steps.slice(1).map((step, i) => {
        const from = path.steps[i]?.state.value;
        return `${String(from)} ${step.event.type} ${String(step.state.value)}`;
      }),
    ),
  );
  const transitions = Object.entries(model.root.states).flatMap(([from, node]) =>
    [...node.transitions.values()]
      .flat()
      .map((t) => `${from} ${t.eventType} ${t.target?.[0]?.key ?? from}`),
  );
  return { walked: [...walked].sort(), transitions: [...transitions].sort() };
}

import type { AnyStateMachine, AnyStateNode } from 'xstate';

/**
 * How a hand-written abstract model stands for the real machine it drives. State paths are dot
 * paths from the machine's root (`open.session.attached`); a state stands for its descendants.
 */
export interface ModelMapping {
  /** Each state of the model: the machine's states it stands for. */
  states: Record<string, string | readonly string[]>;
  /**
   * Each event of the model: the machine's event types it amounts to: what the test sends, or the
   * effect outcomes (`xstate.done.actor.<id>`) and delays (`xstate.after.<delay>.<state id>`) it
   * settles.
   */
  events: Record<string, string | readonly string[]>;
  /** The machine's states the model leaves out on purpose (say why beside the list). */
  unmodelledStates?: readonly string[];
  /** Events from outside the machine (not `xstate.*`) the model leaves out on purpose. */
  unmodelledEvents?: readonly string[];
}

const list = (value: string | readonly string[]): readonly string[] =>
  typeof value === 'string' ? [value] : value;

const pathOf = (node: AnyStateNode): string => node.path.join('.');

function descendants(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states).flatMap((child) => [child, ...descendants(child)]);
}

/** A state that always leaves at once (an unguarded eventless transition) is never at rest. */
const isTransient = (node: AnyStateNode): boolean =>
  (node.always ?? []).some((transition) => !transition.guard);

/**
 * Test support: where a hand-written abstract model (see `modelPaths`) and the real machine it
 * drives no longer agree, as sentences; empty when they do. Path tests only walk what the model
 * has, so without this check a state or event added to the machine would go untested unnoticed,
 * and a renamed one would leave the model describing a machine that no longer exists.
 *
 * - every state of the model stands for states that exist in the machine, and every state of the
 *   machine at rest is stood for by a model state or left out on purpose;
 * - every event of the model amounts to events the machine handles, and every event the machine
 *   takes from outside is one of those or left out on purpose.
 */
export function modelDisagreements(
  model: AnyStateMachine,
  machine: AnyStateMachine,
  mapping: ModelMapping,
): string[] {
  const problems: string[] = [];
  const nodes = new Map(descendants(machine.root).map((node) => [pathOf(node), node]));
  const handled = new Set<string>(machine.events);

  const modelStates = Object.keys(model.root.states);
  for (const state of modelStates) {
    if (!(state in mapping.states)) problems.push(`model state '${state}' stands for nothing`);
  }
  const covering = new Set<string>(mapping.unmodelledStates ?? []);
  for (const [state, paths] of Object.entries(mapping.states)) {
    if (!modelStates.includes(state)) problems.push(`'${state}' is not a state of the model`);
    for (const path of list(paths)) {
      if (!nodes.has(path)) problems.push(`model state '${state}': the machine has no '${path}'`);
      covering.add(path);
    }
  }
  for (const path of mapping.unmodelledStates ?? []) {
    if (!nodes.has(path)) problems.push(`unmodelled state '${path}' is not in the machine`);
  }
  for (const [path, node] of nodes) {
    if (node.type !== 'atomic' && node.type !== 'final') continue;
    if (isTransient(node)) continue;
    const covered = node.path.some((_, i) => covering.has(node.path.slice(0, i + 1).join('.')));
    if (!covered) problems.push(`machine state '${path}' is neither modelled nor left out`);
  }

  const modelEvents = model.events.filter((type) => !type.startsWith('xstate.'));
  for (const event of modelEvents) {
    if (!(event in mapping.events)) problems.push(`model event '${event}' amounts to nothing`);
  }
  const accounted = new Set<string>(mapping.unmodelledEvents ?? []);
  for (const [event, types] of Object.entries(mapping.events)) {
    if (!modelEvents.includes(event)) problems.push(`'${event}' is not an event of the model`);
    for (const type of list(types)) {
      if (!handled.has(type))
        problems.push(`model event '${event}': the machine ignores '${type}'`);
      accounted.add(type);
    }
  }
  for (const type of mapping.unmodelledEvents ?? []) {
    if (!handled.has(type))
      problems.push(`unmodelled event '${type}' is not handled by the machine`);
  }
  for (const type of handled) {
    if (!type.startsWith('xstate.') && !accounted.has(type)) {
      problems.push(`machine event '${type}' is neither modelled nor left out`);
    }
  }
  return problems;
}

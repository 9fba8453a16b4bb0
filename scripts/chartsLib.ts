/**
 * Renders a machine as a Markdown page with a Mermaid `stateDiagram-v2` (npm run charts). Pure:
 * the same machine always gives the same text, so a test can compare it with docs/charts.
 *
 * Mermaid cannot draw a transition between states inside two different composite states, so each
 * transition is written inside the innermost composite holding both ends, between the children of
 * that composite that contain them; when that moves an end, the label says where it really goes.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

export const CHARTS_DIR = 'docs/charts';

export const chartFileName = (name: string): string => `${name}.md`;

type Transition = AnyStateNode['transitions'] extends Map<string, Array<infer T>> ? T : never;

interface Edge {
  from: AnyStateNode;
  to: AnyStateNode;
  label: string;
}

/** Where an edge is written: inside `scope`'s block, or at the top level when null. */
interface PlacedEdge extends Edge {
  scope: AnyStateNode | null;
}

const ancestry = (node: AnyStateNode): AnyStateNode[] => {
  const chain: AnyStateNode[] = [];
  for (let n: AnyStateNode | undefined = node; n; n = n.parent) chain.unshift(n);
  return chain;
};

/** Mermaid ids: letters, digits and underscores, unique within the diagram. */
function assignIds(root: AnyStateNode): Map<AnyStateNode, string> {
  const ids = new Map<AnyStateNode, string>();
  const taken = new Set<string>();
  const visit = (node: AnyStateNode) => {
    const base = [root.key, ...node.path].map((part) => part.replace(/\W/g, '_')).join('__');
    let id = base;
    for (let n = 2; taken.has(id); n += 1) id = `${base}_${n}`;
    taken.add(id);
    ids.set(node, id);
    Object.values(node.states).forEach(visit);
  };
  visit(root);
  return ids;
}

/** Mermaid ends a label at ':', ';' or a line break, and treats '#' and '"' specially. */
const safeText = (text: string): string => text.replace(/[:;#"\r\n]+/g, ' ').trim();

function formatMs(ms: number): string {
  if (ms > 0 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms > 0 && ms % 60_000 === 0) return `${ms / 60_000}min`;
  if (ms > 0 && ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}

function delayText(machine: AnyStateMachine, delay: unknown): string {
  if (typeof delay === 'number') return formatMs(delay);
  if (typeof delay === 'string') {
    const configured: unknown = (machine.implementations.delays as Record<string, unknown>)[delay];
    return typeof configured === 'number' ? formatMs(configured) : delay;
  }
  return 'delay';
}

/** An invoked actor by its source name; generated ids ('0.machine.state') say nothing. */
function invokedName(node: AnyStateNode, actorId: string): string {
  const invoke = node.invoke.find((definition) => definition.id === actorId);
  return invoke && typeof invoke.src === 'string' ? invoke.src : actorId;
}

function eventText(machine: AnyStateMachine, node: AnyStateNode, transition: Transition): string {
  const type = transition.eventType;
  if (type === '') return 'always';
  if ('delay' in transition) return `after ${delayText(machine, transition.delay)}`;
  const actorResult = /^xstate\.(done|error)\.actor\.(.+)$/.exec(type);
  if (actorResult) return `${actorResult[1]} ${invokedName(node, actorResult[2] as string)}`;
  if (type.startsWith('xstate.done.state.')) return 'done';
  return type;
}

function guardText(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const nested = (guard as { guards?: unknown[] }).guards;
    return nested ? `${guard.name}(${nested.map(guardText).join(', ')})` : 'inline';
  }
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return String(guard.type);
  return 'guard';
}

/** Names of the named actions in a list; built-in and inline actions have no useful name. */
function actionNames(actions: readonly unknown[]): string[] {
  return actions.flatMap((action) => {
    if (typeof action === 'string') return [action];
    if (typeof action === 'object' && action !== null && 'type' in action) {
      return [String(action.type)];
    }
    return [];
  });
}

const relativePath = (node: AnyStateNode, scope: AnyStateNode | null): string =>
  node.path.slice(scope ? scope.path.length : 0).join('.') || node.key;

/**
 * The composite whose block holds the edge, and the ends as children of it. An edge between a
 * state and its own descendant, or across parallel regions, becomes a loop on the outer state.
 */
function place(source: AnyStateNode, target: AnyStateNode, label: string): PlacedEdge {
  const sourceChain = ancestry(source);
  const targetChain = ancestry(target);
  let depth = 0;
  while (
    depth < sourceChain.length &&
    depth < targetChain.length &&
    sourceChain[depth] === targetChain[depth]
  ) {
    depth += 1;
  }
  const common = sourceChain[depth - 1] as AnyStateNode;
  const nested = common === source || common === target;
  const loopOn = nested || common.type === 'parallel' ? common : null;
  const scope = loopOn ? (loopOn.parent ?? null) : common;
  const from = loopOn ?? (sourceChain[depth] as AnyStateNode);
  const to = loopOn ?? (targetChain[depth] as AnyStateNode);
  const notes: string[] = [];
  if (from !== source) notes.push(`from ${relativePath(source, scope)}`);
  if (to !== target) notes.push(`to ${relativePath(target, scope)}`);
  return { scope, from, to, label: notes.length ? `${label} (${notes.join(', ')})` : label };
}

function collectEdges(machine: AnyStateMachine): PlacedEdge[] {
  const edges: PlacedEdge[] = [];
  const visit = (node: AnyStateNode) => {
    const transitions = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
    for (const transition of transitions) {
      const guard = transition.guard === undefined ? '' : ` [${guardText(transition.guard)}]`;
      const reenter = transition.reenter ? ' (reenter)' : '';
      const label = `${eventText(machine, node, transition)}${guard}${reenter}`;
      const targets = transition.target?.length ? transition.target : [node];
      for (const target of targets) edges.push(place(node, target, label));
    }
    Object.values(node.states).forEach(visit);
  };
  visit(machine.root);
  return edges;
}

function renderEdge(edge: Edge, ids: Map<AnyStateNode, string>, indent: string): string {
  return `${indent}${ids.get(edge.from)} --> ${ids.get(edge.to)} : ${safeText(edge.label)}`;
}

function renderState(
  node: AnyStateNode,
  ids: Map<AnyStateNode, string>,
  edges: readonly PlacedEdge[],
  indent: string,
): string[] {
  const id = ids.get(node) as string;
  const head = `${indent}state "${safeText(node.key)}" as ${id}`;
  const children = Object.values(node.states);
  if (children.length === 0) return [head];

  const inner = `${indent}  `;
  const scoped = (from?: AnyStateNode) =>
    edges
      .filter((edge) => edge.scope === node && (from === undefined || edge.from === from))
      .map((edge) => renderEdge(edge, ids, inner));
  const lines = [`${head} {`];
  if (node.type === 'parallel') {
    // Regions are separated by '--'; an edge on a region stays in that region's section.
    children.forEach((child, index) => {
      if (index > 0) lines.push(`${inner}--`);
      lines.push(...renderState(child, ids, edges, inner), ...scoped(child));
    });
  } else {
    const initial = node.initial.target[0];
    if (initial) lines.push(`${inner}[*] --> ${ids.get(initial)}`);
    for (const child of children) {
      lines.push(...renderState(child, ids, edges, inner));
      if (child.type === 'final') lines.push(`${inner}${ids.get(child)} --> [*]`);
    }
    lines.push(...scoped());
  }
  lines.push(`${indent}}`);
  return lines;
}

/** One line per state that invokes actors, has tags, or runs named entry or exit actions. */
function renderEffects(machine: AnyStateMachine): string[] {
  const lines: string[] = [];
  const visit = (node: AnyStateNode) => {
    const facts: string[] = [];
    const invoked = node.invoke.map((invoke) => invokedName(node, invoke.id));
    if (invoked.length) facts.push(`invokes ${invoked.map((s) => `\`${s}\``).join(', ')}`);
    if (node.tags.length) facts.push(`tags ${node.tags.map((t) => `\`${t}\``).join(', ')}`);
    const entry = actionNames(node.entry);
    if (entry.length) facts.push(`entry ${entry.map((a) => `\`${a}\``).join(', ')}`);
    const exit = actionNames(node.exit);
    if (exit.length) facts.push(`exit ${exit.map((a) => `\`${a}\``).join(', ')}`);
    if (facts.length) {
      const where = node.path.length ? node.path.join('.') : '(machine)';
      lines.push(`- \`${where}\`: ${facts.join('; ')}`);
    }
    Object.values(node.states).forEach(visit);
  };
  visit(machine.root);
  return lines;
}

/** The Markdown page for `machine`, registered as `name`. */
export function renderChart(name: string, machine: AnyStateMachine): string {
  const ids = assignIds(machine.root);
  const edges = collectEdges(machine);
  const description = machine.root.description ?? `The \`${machine.id}\` state machine.`;
  const effects = renderEffects(machine);
  const lines = [
    `# ${name}`,
    '',
    description,
    '',
    `Machine id \`${machine.id}\`. Generated by \`npm run charts\` from the machine definition; do not edit.`,
    '',
    '```mermaid',
    'stateDiagram-v2',
    ...renderState(machine.root, ids, edges, '  '),
    ...edges.filter((edge) => edge.scope === null).map((edge) => renderEdge(edge, ids, '  ')),
    '```',
  ];
  if (effects.length) lines.push('', '## Effects', '', ...effects);
  return `${lines.join('\n')}\n`;
}

/**
 * Renders a machine as a Markdown page with a Mermaid `stateDiagram-v2` (npm run charts), and the
 * overview of which machine runs which. Pure: the same machines always give the same text, so a
 * test can compare it with docs/charts.
 *
 * Every arrow ends at the state the transition really enters, however deep (Mermaid 11 draws
 * arrows into and out of composite states). A transition declared on a composite state applies in
 * any of its states: one that leaves the composite starts at the composite's box; one that stays
 * inside it (its target is a descendant, or it has none) starts at the composite's "any state"
 * node, drawn dashed, since an arrow from a box to its own inside cannot be drawn legibly.
 *
 * Parallel regions are drawn as dashed boxes side by side, not with Mermaid's `--` separators:
 * Mermaid 11 fails to lay out ("Cannot set properties of undefined (setting 'rank')") an arrow
 * into a composite state that sits in a `--` section.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

export const CHARTS_DIR = 'docs/charts';

/** The server's machines (server/machines.ts) are drawn apart from the SPA's, in their own folder. */
export const SERVER_CHARTS_DIR = `${CHARTS_DIR}/server`;

export const chartFileName = (name: string): string => `${name}.md`;

/** The page of the spawn and invoke graph of every machine. */
export const OVERVIEW_FILE = 'overview.md';

type Transition = AnyStateNode['transitions'] extends Map<string, Array<infer T>> ? T : never;

/**
 * A state of the diagram: a state node, or the "any state" node of a composite (`anyOf`), which
 * stands for the transitions the composite handles in every one of its states.
 */
type Vertex = { node: AnyStateNode; any: boolean };

interface Edge {
  from: Vertex;
  to: Vertex;
  /** One line per transition drawn by this arrow (several only for loops: see `mergeLoops`). */
  labels: string[];
}

const isComposite = (node: AnyStateNode): boolean => Object.keys(node.states).length > 0;

const ancestry = (node: AnyStateNode): AnyStateNode[] => {
  const chain: AnyStateNode[] = [];
  for (let n: AnyStateNode | undefined = node; n; n = n.parent) chain.unshift(n);
  return chain;
};

const isDescendant = (node: AnyStateNode, of: AnyStateNode): boolean =>
  node !== of && ancestry(node).includes(of);

/** The state whose block holds a vertex: a composite's "any state" node is inside its box. */
const holder = (vertex: Vertex): AnyStateNode | null =>
  vertex.any ? vertex.node : (vertex.node.parent ?? null);

/** Mermaid ids: letters, digits and underscores, unique within the diagram. */
function assignIds(root: AnyStateNode): {
  state: Map<AnyStateNode, string>;
  any: Map<AnyStateNode, string>;
} {
  const state = new Map<AnyStateNode, string>();
  const any = new Map<AnyStateNode, string>();
  const taken = new Set<string>();
  const take = (base: string) => {
    let id = base;
    for (let n = 2; taken.has(id); n += 1) id = `${base}_${n}`;
    taken.add(id);
    return id;
  };
  const baseOf = (node: AnyStateNode) =>
    [root.key, ...node.path].map((part) => part.replace(/\W/g, '_')).join('__');
  const visit = (node: AnyStateNode) => {
    state.set(node, take(baseOf(node)));
    Object.values(node.states).forEach(visit);
  };
  visit(root);
  // After the states, so that a state really named `any` keeps its plain id.
  const visitComposites = (node: AnyStateNode) => {
    if (isComposite(node)) any.set(node, take(`${baseOf(node)}__any`));
    Object.values(node.states).forEach(visitComposites);
  };
  visitComposites(root);
  return { state, any };
}

type Ids = ReturnType<typeof assignIds>;

const vertexId = (vertex: Vertex, ids: Ids): string =>
  (vertex.any ? ids.any : ids.state).get(vertex.node) as string;

/** Mermaid ends a label at ':', ';' or a line break, and treats '#' and '"' specially. */
const safeText = (text: string): string => text.replace(/[:;#"\r\n<>]+/g, ' ').trim();

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

/**
 * A guard by its name: named guards, their parameterized form and combinators of them
 * (`not(isReady)`). A function written inline has no name to show: it reads `inline`, and
 * `inlineGuards` finds it.
 */
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

const transitionsOf = (node: AnyStateNode): Transition[] => [
  ...[...node.transitions.values()].flat(),
  ...(node.always ?? []),
];

/**
 * Where a transition of `node` to `target` (none: it stays where it is) is drawn from and to.
 * From a state nested in `node`'s box nothing is drawn that leaves and enters the same box: the
 * composite's own transitions inside it start at its "any state" node.
 */
function ends(node: AnyStateNode, target: AnyStateNode | undefined): Pick<Edge, 'from' | 'to'> {
  const state = (n: AnyStateNode): Vertex => ({ node: n, any: false });
  if (!isComposite(node)) return { from: state(node), to: state(target ?? node) };
  if (target === undefined) return { from: { node, any: true }, to: { node, any: true } };
  if (isDescendant(target, node)) return { from: { node, any: true }, to: state(target) };
  return { from: state(node), to: state(target) };
}

function collectEdges(machine: AnyStateMachine): Edge[] {
  const edges: Edge[] = [];
  const visit = (node: AnyStateNode) => {
    for (const transition of transitionsOf(node)) {
      const guard = transition.guard === undefined ? '' : ` [${guardText(transition.guard)}]`;
      const reenter = transition.reenter ? ' (reenter)' : '';
      const label = `${eventText(machine, node, transition)}${guard}${reenter}`;
      const targets: ReadonlyArray<AnyStateNode | undefined> = transition.target?.length
        ? transition.target
        : [undefined];
      for (const target of targets) edges.push({ ...ends(node, target), labels: [label] });
    }
    Object.values(node.states).forEach(visit);
  };
  visit(machine.root);
  return mergeLoops(edges);
}

/**
 * Mermaid draws every loop of a state on the same spot, so that only one label can be read: a
 * state's loops are drawn as one, its labels one under the other.
 */
function mergeLoops(edges: readonly Edge[]): Edge[] {
  const same = (a: Vertex, b: Vertex) => a.node === b.node && a.any === b.any;
  const merged: Edge[] = [];
  for (const edge of edges) {
    const loop = same(edge.from, edge.to);
    const earlier = loop
      ? merged.find((e) => same(e.from, edge.from) && same(e.to, edge.to))
      : undefined;
    if (earlier) earlier.labels.push(...edge.labels);
    else merged.push({ ...edge, labels: [...edge.labels] });
  }
  return merged;
}

/**
 * The block an edge is written in: the composite state that directly holds both of its ends, or
 * the top level. Mermaid moves a state that an edge inside a block names into that block, so an
 * edge to a state nested deeper than the block it is written in would pull the state out of its
 * own box.
 */
function scopeOf(edge: Edge): AnyStateNode | null {
  const from = holder(edge.from);
  return from !== null && from === holder(edge.to) ? from : null;
}

function renderEdge(edge: Edge, ids: Ids, indent: string): string {
  const label = edge.labels.map(safeText).join('<br>');
  return `${indent}${vertexId(edge.from, ids)} --> ${vertexId(edge.to, ids)} : ${label}`;
}

/** The composites whose "any state" node some edge uses. */
const anyNodes = (edges: readonly Edge[]): Set<AnyStateNode> =>
  new Set(edges.flatMap((edge) => [edge.from, edge.to]).flatMap((v) => (v.any ? [v.node] : [])));

function anyLine(node: AnyStateNode, ids: Ids, indent: string): string {
  return `${indent}state "any state" as ${ids.any.get(node)}`;
}

function renderState(
  node: AnyStateNode,
  ids: Ids,
  edges: ReadonlyArray<Edge & { scope: AnyStateNode | null }>,
  withAny: ReadonlySet<AnyStateNode>,
  indent: string,
): string[] {
  const id = ids.state.get(node) as string;
  const head = `${indent}state "${safeText(node.key)}" as ${id}`;
  const children = Object.values(node.states);
  if (children.length === 0) return [head];

  const inner = `${indent}  `;
  const lines = [`${head} {`];
  // Every region of a parallel state is active at once: there is no initial one.
  const initial = node.type === 'parallel' ? undefined : node.initial.target[0];
  if (initial) lines.push(`${inner}[*] --> ${ids.state.get(initial)}`);
  if (withAny.has(node)) lines.push(anyLine(node, ids, inner));
  for (const child of children) {
    lines.push(...renderState(child, ids, edges, withAny, inner));
    if (child.type === 'final') lines.push(`${inner}${ids.state.get(child)} --> [*]`);
  }
  lines.push(...edges.filter((edge) => edge.scope === node).map((e) => renderEdge(e, ids, inner)));
  lines.push(`${indent}}`);
  return lines;
}

/** The regions of every parallel state, drawn as dashed boxes. */
function regionsOf(node: AnyStateNode): AnyStateNode[] {
  const own = node.type === 'parallel' ? Object.values(node.states) : [];
  return [...own, ...Object.values(node.states).flatMap(regionsOf)];
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
  const edges = collectEdges(machine).map((edge) => ({ ...edge, scope: scopeOf(edge) }));
  const withAny = anyNodes(edges);
  const description = machine.root.description ?? `The \`${machine.id}\` state machine.`;
  const effects = renderEffects(machine);
  const anyIds = [...withAny].map((node) => ids.any.get(node));
  const regionIds = regionsOf(machine.root).map((node) => ids.state.get(node));
  const legend = [
    ...(regionIds.length
      ? [
          'Dashed boxes side by side are the parallel regions of the box around them: all active at once.',
        ]
      : []),
    ...(anyIds.length
      ? [
          'A dashed *any state* node stands for every state of the box it is in: its arrows are the transitions that box handles whichever of its states is active.',
        ]
      : []),
  ];
  const lines = [
    `# ${name}`,
    '',
    description,
    '',
    `Machine id \`${machine.id}\`. Generated by \`npm run charts\` from the machine definition; do not edit.`,
    ...(legend.length ? ['', legend.join(' ')] : []),
    '',
    '```mermaid',
    'stateDiagram-v2',
    ...renderState(machine.root, ids, edges, withAny, '  '),
    ...edges.filter((edge) => edge.scope === null).map((edge) => renderEdge(edge, ids, '  ')),
    ...(regionIds.length
      ? ['  classDef region stroke-dasharray:6 4', `  class ${regionIds.join(', ')} region`]
      : []),
    ...(anyIds.length
      ? [
          '  classDef anyState fill:none,stroke-dasharray:4 4,font-style:italic',
          `  class ${anyIds.join(', ')} anyState`,
        ]
      : []),
    '```',
  ];
  if (effects.length) lines.push('', '## Effects', '', ...effects);
  return `${lines.join('\n')}\n`;
}

/** Where `machine` has a guard written inline, which a chart cannot name ("state: event"). */
export function inlineGuards(machine: AnyStateMachine): string[] {
  const found: string[] = [];
  const visit = (node: AnyStateNode) => {
    for (const transition of transitionsOf(node)) {
      if (/\binline\b/.test(guardText(transition.guard ?? 'none'))) {
        found.push(
          `${node.path.join('.') || '(machine)'}: ${eventText(machine, node, transition)}`,
        );
      }
    }
    Object.values(node.states).forEach(visit);
  };
  visit(machine.root);
  return found;
}

/** The actors a machine runs that are machines themselves, by the name `setup` gives them. */
function childMachines(machine: AnyStateMachine): Array<[string, AnyStateMachine]> {
  const actors = (machine.implementations.actors ?? {}) as Record<string, unknown>;
  return Object.entries(actors).flatMap(([src, logic]) =>
    typeof logic === 'object' && logic !== null && 'root' in logic && 'id' in logic
      ? [[src, logic as AnyStateMachine] as [string, AnyStateMachine]]
      : [],
  );
}

/** The sources some state of `machine` invokes. */
function invokedSources(machine: AnyStateMachine): Set<string> {
  const sources = new Set<string>();
  const visit = (node: AnyStateNode) => {
    for (const invoke of node.invoke) if (typeof invoke.src === 'string') sources.add(invoke.src);
    Object.values(node.states).forEach(visit);
  };
  visit(machine.root);
  return sources;
}

/**
 * The page of which machine runs which: an invoked child lives as long as the state that invokes
 * it; a spawned one (a machine the parent names in `setup` but no state invokes) is started and
 * stopped by the parent's actions. Machines are matched to the registry by their machine id, so
 * that the typed copies of a generic machine (pagedSearch) count as it.
 */
export function renderOverview(
  machines: Readonly<Record<string, AnyStateMachine>>,
  serverMachines: Readonly<Record<string, AnyStateMachine>> = {},
): string {
  const nameOfId = new Map(Object.entries(machines).map(([name, m]) => [m.id, name]));
  const nodeId = (name: string) => `m_${name.replace(/\W/g, '_')}`;
  const edges: string[] = [];
  const runBy = new Set<string>();
  for (const [parent, machine] of Object.entries(machines)) {
    const invoked = invokedSources(machine);
    for (const [src, child] of childMachines(machine)) {
      const name = nameOfId.get(child.id);
      if (name === undefined) continue;
      runBy.add(name);
      const how = invoked.has(src) ? 'invokes' : 'spawns';
      const arrow = how === 'invokes' ? '-->' : '-.->';
      const as = src === name ? '' : ` as ${src}`;
      edges.push(`  ${nodeId(parent)} ${arrow}|${safeText(`${how}${as}`)}| ${nodeId(name)}`);
    }
  }
  const names = Object.keys(machines);
  const started = names.filter((name) => !runBy.has(name));
  return [
    '# Overview',
    '',
    'Which machine runs which. A solid arrow: the parent invokes the child in one of its states, and the child stops when that state is left. A dashed arrow: the parent spawns children of that machine (one per item) and stops them itself. The machines no other machine runs are started by the app (src/app) or by a view.',
    '',
    'Generated by `npm run charts` from the machine definitions; do not edit.',
    '',
    '```mermaid',
    'flowchart LR',
    ...names.map((name) => `  ${nodeId(name)}["${safeText(name)}"]`),
    ...edges,
    '  classDef started stroke-width:3px',
    `  class ${started.map(nodeId).join(',')} started`,
    '```',
    '',
    `Started by the app: ${started.map((name) => `\`${name}\``).join(', ')}.`,
    '',
    ...serverLines(serverMachines),
  ].join('\n');
}

/** The overview's list of the server's machines, each linked to its chart. */
function serverLines(serverMachines: Readonly<Record<string, AnyStateMachine>>): string[] {
  const names = Object.keys(serverMachines);
  if (!names.length) return [];
  const dir = SERVER_CHARTS_DIR.slice(CHARTS_DIR.length + 1);
  return [
    '## Server',
    '',
    "The server runs machines of its own (server/machines.ts), apart from the app's:",
    '',
    ...names.map((name) => {
      const description = serverMachines[name]?.root.description;
      const link = `[\`${name}\`](${dir}/${chartFileName(name)})`;
      return `- ${link}${description ? `: ${description}` : ''}`;
    }),
    '',
  ];
}

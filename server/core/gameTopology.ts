import { networksOf } from '../../src/domain/topology';
import type { TemplateTable } from '../store/schema';
import { templatesOfVariant, VARIANT_SUFFIX } from './play/deploy';

// What the play page's topology diagram draws (GameState.topology, ours): the machines a player
// sees and the names of their networks, nothing else. Built from the template rows the game state
// reads anyway for the machines' visibility, so that it costs the hot read no query of its own.
// A hidden template is left out wherever it shows: its machines, and its networks with them.

/** A machine of the diagram: its name as the player's machine list has it, its networks. */
export interface TopologyNode {
  name: string;
  networks: string[];
}

/** What the diagram reads of a template row. */
export type TemplateNetworks = Pick<TemplateTable, 'name' | 'isHidden' | 'networks' | 'variant'>;

/**
 * The template a gamespace's machine was made from. Machine names lose the variant suffix
 * (`_v{k}`) and gain a replica suffix (`_{n}`), so the template is looked up by the name, the name
 * with this variant's suffix, then both again without the replica suffix (wire reference §4.5).
 */
export function templateOfMachine<T>(
  name: string,
  variant: number,
  byName: ReadonlyMap<string, T>,
): T | undefined {
  const base = name.replace(/_\d+$/, '');
  for (const candidate of [name, `${name}_v${variant + 1}`, base, `${base}_v${variant + 1}`]) {
    const template = byName.get(candidate);
    if (template !== undefined) return template;
  }
  return undefined;
}

/** The deployed machines (already the visible ones), each on its template's networks. */
export function topologyOfMachines(
  machines: readonly { name: string }[],
  variant: number,
  templates: readonly TemplateNetworks[],
): TopologyNode[] {
  const byName = new Map(templates.map((t) => [t.name, t]));
  return machines.map((m) => ({
    name: m.name,
    networks: networksOf(templateOfMachine(m.name, variant, byName)?.networks ?? ''),
  }));
}

/**
 * Before the machines exist: the visible templates a gamespace of `variant` deploys, or, for a
 * workspace's preview (`variant` null, not drawn yet), those of every variant, each name once.
 */
export function topologyOfTemplates(
  templates: readonly TemplateNetworks[],
  variant: number | null,
): TopologyNode[] {
  const visible = templates.filter((t) => !t.isHidden);
  const used =
    variant === null
      ? visible.map((t) => ({ ...t, name: t.name.replace(VARIANT_SUFFIX, '') }))
      : templatesOfVariant(visible, variant);
  const nodes = new Map<string, TopologyNode>();
  for (const t of used) {
    if (!nodes.has(t.name)) nodes.set(t.name, { name: t.name, networks: networksOf(t.networks) });
  }
  return [...nodes.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

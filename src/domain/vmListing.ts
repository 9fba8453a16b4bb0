/** How the admin's Machines table shows a machine (GET vms, wire reference §1.5). */

/** A machine's name without its isolation tag: `router#4f1c…` -> `router`. */
export function vmDisplayName(name: string): string {
  const hash = name.lastIndexOf('#');
  return hash > 0 ? name.slice(0, hash) : name;
}

export type VmOwner =
  | { kind: 'workspace' | 'gamespace'; name: string; id: string }
  | { kind: 'orphaned' }
  | { kind: 'unknown'; text: string };

/**
 * What a machine belongs to, from its `groupName`: `workspace: {name}#{tag}`,
 * `gamespace: {name}#{tag}` or `__orphaned#{tag}`, the name without the tag and the tag as the
 * id (a workspace's or gamespace's machines are tagged with its id).
 */
export function vmOwnerOf(groupName: string | null | undefined): VmOwner {
  const group = groupName ?? '';
  if (group.startsWith('__orphaned')) return { kind: 'orphaned' };
  const match = /^(workspace|gamespace): (.*)#([^#]*)$/.exec(group);
  if (match) {
    return { kind: match[1] as 'workspace' | 'gamespace', name: match[2]!, id: match[3]! };
  }
  return { kind: 'unknown', text: group };
}

/** The page of what a machine belongs to: the workspace's, or the gamespace's play page. */
export function vmOwnerPath(owner: VmOwner): string | null {
  switch (owner.kind) {
    case 'workspace':
      return `/topo/${encodeURIComponent(owner.id)}`;
    case 'gamespace':
      return `/mojo/${encodeURIComponent(owner.id)}`;
    default:
      return null;
  }
}

export type VmPowerOperation = 'start' | 'stop' | 'delete';

/**
 * The operations that apply to a machine in this power state: a running machine can be stopped,
 * one that is off (or suspended) started; any can be deleted. A state not reported offers both.
 */
export function vmOperationsFor(state: string | null | undefined): VmPowerOperation[] {
  switch (state) {
    case 'running':
      return ['stop', 'delete'];
    case 'off':
    case 'suspended':
      return ['start', 'delete'];
    default:
      return ['start', 'stop', 'delete'];
  }
}

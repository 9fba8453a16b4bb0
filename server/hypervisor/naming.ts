// Naming (wire reference §4.1), shared by every driver: machine names `{template}#{tag}`, the
// isolated networks of a tag, and the zero GUID of stock templates.

/** The text after the first '#' up to a space ('' when there is none). */
export function tagOf(name: string): string {
  const i = name.indexOf('#');
  if (i < 0) return '';
  const rest = name.slice(i + 1);
  const space = rest.indexOf(' ');
  return space < 0 ? rest : rest.slice(0, space);
}

/** The text before the first '#'. */
export function untagged(name: string): string {
  const i = name.indexOf('#');
  return i < 0 ? name : name.slice(0, i);
}

export const vmName = (template: string, tag: string): string => `${untagged(template)}#${tag}`;

/** The zero GUID: the isolation tag of stock templates and the public ISO folder. */
export const EMPTY_TAG = '00000000-0000-0000-0000-000000000000';

/** The net a NIC gets on a machine of `tag` (wire reference §4.1): `X#tag`, reserved nets kept. */
export function isolatedNet(
  net: string | null,
  tag: string,
  privileged: boolean,
  reserved: readonly string[],
): string {
  if (!net) return '';
  if (privileged && reserved.includes(net)) return net;
  return `${untagged(net)}#${tag}`;
}

/** The network choices of a tag's machines: reserved nets and the tag's own, sorted, once each. */
export function netOptions(reserved: readonly string[], nets: readonly string[], tag: string) {
  const own = nets.filter((n) => n.includes(`#${tag}`));
  return [...new Set([...reserved, ...own])].sort();
}

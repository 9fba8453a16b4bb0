/** What the admin's export panel picks and how the downloaded archive is named. */

/** A workspace as the export panel lists it. */
export interface ArchiveCandidate {
  id: string;
  name: string;
}

/** The candidates whose name (or id) holds every word of `term`, case ignored, by name. */
export function matchingCandidates(
  candidates: readonly ArchiveCandidate[],
  term: string,
): ArchiveCandidate[] {
  const words = term.toLowerCase().split(/\s+/).filter(Boolean);
  return candidates
    .filter((c) => {
      const text = `${c.name} ${c.id}`.toLowerCase();
      return words.every((word) => text.includes(word));
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** A name as a file name's part: lower case, runs of other characters as one '-', at most 40. */
function slugOf(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug === '' ? 'workspace' : slug;
}

/**
 * The downloaded archive's file name, after what it holds: `topomojo-all-workspaces.zip`,
 * `topomojo-<name>.zip` for one workspace, `topomojo-<first name>-and-<n>-more.zip` for several.
 */
export function archiveFileName(selection: { all: boolean; names: readonly string[] }): string {
  if (selection.all) return 'topomojo-all-workspaces.zip';
  const [first, ...rest] = selection.names;
  if (first === undefined) return 'topomojo-export.zip';
  const more = rest.length === 0 ? '' : `-and-${rest.length}-more`;
  return `topomojo-${slugOf(first)}${more}.zip`;
}

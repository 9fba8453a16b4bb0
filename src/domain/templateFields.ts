/**
 * The template editor's fields and their rules (spec §2 Template editor, §5, §9): name,
 * description, networks, guest settings, replicas, variant, iso and hidden. Numbers are kept as
 * typed text in the form and checked here. The limits are the server's too (wire reference §2.4,
 * §6): its template routes and services read them from here, so what the form accepts the server
 * accepts.
 */

export const TEMPLATE_TEXT_FIELDS = [
  'name',
  'description',
  'networks',
  'guestinfo',
  'replicas',
  'variant',
  'iso',
] as const;
export type TemplateTextField = (typeof TEMPLATE_TEXT_FIELDS)[number];
export type TemplateField = TemplateTextField | 'isHidden';

export interface TemplateValues extends Record<TemplateTextField, string> {
  isHidden: boolean;
}

/** The most characters a template's text fields hold (wire reference §6; product spec §9). */
export const TEMPLATE_LIMITS = {
  name: 64,
  description: 255,
  audience: 64,
  networks: 64,
  guestinfo: 1024,
  iso: 1024,
} as const;

/**
 * The limits the form checks as the author types. The audience is not the editor's (an
 * administrator sets it on the template detail), and the ISO is picked from a list of paths.
 */
const FORM_LIMITED_FIELDS = ['name', 'description', 'networks', 'guestinfo'] as const;

/**
 * Replicas: -1 deploys one copy per player; otherwise the server deploys at most this many
 * copies of the template in a gamespace (wire reference §4.5).
 */
export const ONE_PER_PLAYER = -1;
export const MAX_REPLICAS = 5;

/**
 * What each Replicas value deploys in a gamespace (wire reference §4.5: `replicas < 0 ?
 * playerCount : min(replicas, 5)`, copies named `name_1 … name_n` when more than one). 0 is what
 * a new or linked template has, and deploys one machine like 1.
 */
export const REPLICAS_HINT = `0 or 1: one machine. 2 to ${MAX_REPLICAS}: that many, named name_1, name_2, …. ${ONE_PER_PLAYER}: one per player, at most ${MAX_REPLICAS}.`;

/** A template as the server sends it: any field may be missing or null. */
export interface TemplateFieldsSource {
  name?: string | null;
  description?: string | null;
  networks?: string | null;
  guestinfo?: string | null;
  replicas?: number | null;
  variant?: number | null;
  iso?: string | null;
  isHidden?: boolean | null;
}

/** The form's view of a template: every field as the form edits it. */
export function templateValuesOf(template: TemplateFieldsSource): TemplateValues {
  return {
    name: template.name ?? '',
    description: template.description ?? '',
    networks: template.networks ?? '',
    guestinfo: template.guestinfo ?? '',
    replicas: String(template.replicas ?? 0),
    variant: String(template.variant ?? 0),
    iso: template.iso ?? '',
    isHidden: template.isHidden ?? false,
  };
}

/** The body of PUT template (ChangedTemplate) from valid form values. */
export const changedTemplate = (id: string, values: TemplateValues) => ({
  id,
  name: values.name.trim(),
  description: values.description,
  networks: values.networks,
  iso: values.iso,
  isHidden: values.isHidden,
  guestinfo: values.guestinfo,
  replicas: Number(values.replicas),
  variant: Number(values.variant),
});

export const NAME_REQUIRED = 'Please enter a name for this template.';

/** Spaces are replaced with hyphens as the name is typed (spec §5 Template name). */
export const hyphenateName = (text: string): string => text.replace(/\s/g, '-');

const isInteger = (text: string) => /^\s*-?\d+\s*$/.test(text);

/**
 * Guest settings are `key = value` lines; blank lines and lines starting with '#' are ignored
 * (spec §5). Returns the 1-based numbers of the lines that are neither.
 */
export function invalidGuestinfoLines(text: string): number[] {
  const invalid: number[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const separator = trimmed.indexOf('=');
    if (separator <= 0 || trimmed.slice(0, separator).trim() === '') invalid.push(index + 1);
  });
  return invalid;
}

const tooLong = (max: number) => `At most ${max} characters.`;

/** The messages to show, by field; an empty object when the template may be saved. */
export function validateTemplate(values: TemplateValues): Partial<Record<TemplateField, string>> {
  const messages: Partial<Record<TemplateField, string>> = {};
  if (values.name.trim() === '') messages.name = NAME_REQUIRED;
  for (const field of FORM_LIMITED_FIELDS) {
    const max = TEMPLATE_LIMITS[field];
    if (messages[field] === undefined && values[field].length > max) messages[field] = tooLong(max);
  }
  if (messages.guestinfo === undefined) {
    const lines = invalidGuestinfoLines(values.guestinfo);
    if (lines.length > 0) {
      messages.guestinfo = `${lines.length === 1 ? 'Line' : 'Lines'} ${lines.join(', ')}: use key = value (lines starting with # are ignored).`;
    }
  }
  const replicas = Number(values.replicas);
  if (!isInteger(values.replicas) || replicas < ONE_PER_PLAYER || replicas > MAX_REPLICAS) {
    messages.replicas = `A number from ${ONE_PER_PLAYER} (one per player) to ${MAX_REPLICAS}.`;
  }
  if (!isInteger(values.variant) || Number(values.variant) < 0) {
    messages.variant = 'A number: 0 for all variants.';
  }
  return messages;
}

/** A variant's template names carry a suffix such as _v1 (spec §5 Variant). */
const VARIANT_SUFFIX = /_v\d+$/i;

/**
 * The hint for a non-zero variant whose template name has no suffix like _v1 (spec §5): a hint,
 * not an error, so the template still saves.
 */
export function variantHint(values: Pick<TemplateValues, 'name' | 'variant'>): string | null {
  const variant = Number(values.variant);
  if (!isInteger(values.variant) || variant === 0 || VARIANT_SUFFIX.test(values.name.trim())) {
    return null;
  }
  return `Templates of a variant should carry a suffix such as _v${variant} in their name.`;
}

/** The file name an ISO path shows: its last segment (spec §3 Iso choice). */
export const isoDisplayName = (path: string): string => path.split('/').pop() ?? path;

/**
 * ISO paths as the chooser lists them (spec §2 Template editor): with `local`, only those of the
 * workspace (the path contains its id); with a term, only those whose path contains it, case
 * ignored. Sorted by file name.
 */
export function filterIsos(
  paths: readonly string[],
  { workspaceId, local, term }: { workspaceId: string; local: boolean; term: string },
): string[] {
  const needle = term.trim().toLowerCase();
  return paths
    .filter((path) => !local || path.includes(workspaceId))
    .filter((path) => needle === '' || path.toLowerCase().includes(needle))
    .sort((a, b) => isoDisplayName(a).localeCompare(isoDisplayName(b)));
}

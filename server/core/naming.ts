// Names given to copies (wire reference §4.8): a clone of "Lab" is "Lab-CLONE"; a clone of
// "Lab v2" is "Lab v3". Template and workspace names are stored in 64 characters, so every name
// made here is cut to fit, keeping its suffix.

export const NAME_MAX = 64;

/** A trailing version number, as the reference's `v(\d+)$`. */
const VERSION = /v(\d+)$/;

/** The reference parses the number as a 32-bit int; a larger one counts as no version. */
const INT32_MAX = 2_147_483_647;

export interface Revision {
  /** The name without its version (the whole name when it has none). */
  base: string;
  /** What a copy appends to `base`: `-CLONE`, or `v{N+1}`. */
  suffix: string;
  /** The version text found at the end of the name (`v2`), or '' when there is none. */
  version: string;
}

export function revisionOf(name: string): Revision {
  const match = VERSION.exec(name);
  const n = match ? Number(match[1]) : NaN;
  if (match && Number.isSafeInteger(n) && n <= INT32_MAX) {
    return { base: name.slice(0, match.index), suffix: `v${n + 1}`, version: match[0] };
  }
  return { base: name, suffix: '-CLONE', version: '' };
}

/** `base + suffix`, with `base` cut so that the whole fits in `max` characters. */
export function fit(base: string, suffix: string, max = NAME_MAX): string {
  return base.slice(0, Math.max(0, max - suffix.length)) + suffix;
}

/** The name of a copy of a workspace or template: `-CLONE` appended, or `vN` becomes `vN+1`. */
export function cloneName(name: string): string {
  const { base, suffix } = revisionOf(name);
  return fit(base, suffix);
}

/**
 * The name a template gets when its workspace is cloned. A template whose name ends with the
 * workspace's version moves to the next version with it ("Lab v2" / "server-v2" → "server-v3").
 *
 * Quirk fixed: the reference tests `template.Name.EndsWith(match.Value)` even when the workspace
 * name has no version; the empty match then matches every name, so every template of an
 * unversioned workspace gets "-CLONE". We keep those names as they are: a template's name is its
 * machine's name and the challenge's ISO targets refer to it, and the clone's templates do not
 * collide with the original's (their machines are tagged with the new workspace id).
 */
export function clonedTemplateName(templateName: string, workspaceName: string): string {
  const { version, suffix } = revisionOf(workspaceName);
  if (!version || !templateName.endsWith(version)) return templateName;
  return fit(templateName.slice(0, -version.length), suffix);
}

/**
 * `name`, or when another of `taken` has it (case ignored), `name-2`, `name-3`, ...: the first
 * that none has, cut to fit. A linked template keeps its source's name this way, and a
 * gamespace's machines get names of their own (wire reference §4.8 gives every link a random
 * `-{100..999}` suffix, which players then read on their machines: changed).
 */
export function uniqueName(name: string, taken: Iterable<string>): string {
  const names = new Set([...taken].map((t) => t.toLowerCase()));
  if (!names.has(name.toLowerCase())) return name;
  for (let n = 2; ; n++) {
    const candidate = fit(name, `-${n}`);
    if (!names.has(candidate.toLowerCase())) return candidate;
  }
}

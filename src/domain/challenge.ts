/**
 * The challenge spec (wire reference §2.3; spec §3 "Challenge spec (per workspace)"): what an
 * author writes in the Challenge tab and the server stores as camelCase JSON text in the
 * workspace (and, resolved, in each gamespace). Server and SPA share its types and its
 * normalization: every field gets its default when missing or null, so the rest of the code never
 * meets a partial spec.
 */
import { normalizePrerequisites } from './graders';
import type { Transform } from './transforms';
import {
  GRADERS,
  type Grader,
  type IsoSpec,
  type QuestionSpec,
  type SectionSpec,
  type VariantSpec,
} from './variantSpec';

export { GRADERS } from './variantSpec';
export type { Grader, IsoSpec, QuestionSpec, SectionSpec, VariantSpec } from './variantSpec';

/** Question set names (spec §5, §9). */
export const SECTION_NAME_MAX = 100;

/** DateTimeOffset.MinValue: how the reference writes a date that is not set (wire reference §0). */
export const UNSET_DATE = '0001-01-01T00:00:00+00:00';

export interface ImageSpec {
  image: string;
  script: string;
}

export interface SectionSubmission {
  id: string;
  timestamp: string;
  sectionIndex: number;
  questions: Array<{ answer: string }>;
}

export interface ChallengeSpec {
  text: string;
  score: number;
  lastScoreTime: string;
  maxPoints: number;
  maxAttempts: number;
  customizeScript: ImageSpec | null;
  gradingScript: ImageSpec | null;
  transforms: Transform[];
  variants: VariantSpec[];
  submissions: SectionSubmission[];
  /** The selected variant's copy (gamespaces only). */
  challenge: VariantSpec | null;
}

export const emptyChallengeSpec = (): ChallengeSpec => ({
  text: '',
  score: 0,
  lastScoreTime: UNSET_DATE,
  maxPoints: 0,
  maxAttempts: 0,
  customizeScript: null,
  gradingScript: null,
  transforms: [],
  variants: [],
  submissions: [],
  challenge: null,
});

export const newQuestion = (): QuestionSpec => ({
  text: '',
  hint: '',
  answer: '',
  example: '',
  weight: 0,
  penalty: 0,
  grader: 'match',
  hidden: false,
  isCorrect: false,
  isGraded: false,
});

export const newSection = (): SectionSpec => ({
  name: null,
  preReqPrevSection: 0,
  preReqTotal: 0,
  score: 0,
  text: '',
  questions: [],
});

export const newVariant = (): VariantSpec => ({ text: '', sections: [], iso: null });

/** A spec that does not have the challenge's shape; `message` says where and why. */
export class ChallengeShapeError extends Error {}

type Path = string;

const fail = (path: Path, what: string): never => {
  throw new ChallengeShapeError(`InvalidPropertyValue '${path}' ${what}`);
};

const at = (path: Path, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

const isMissing = (v: unknown): v is null | undefined => v === null || v === undefined;

function text(v: unknown, path: Path): string {
  if (isMissing(v)) return '';
  if (typeof v !== 'string') fail(path, 'must be a string');
  return v as string;
}

/** A number; numeric strings too, as the reference's web JSON defaults read them. */
function number(v: unknown, path: Path): number {
  if (isMissing(v) || v === '') return 0;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) fail(path, 'must be a number');
  return n as number;
}

function integer(v: unknown, path: Path): number {
  const n = number(v, path);
  if (!Number.isInteger(n)) fail(path, 'must be an integer');
  return n;
}

function flag(v: unknown, path: Path): boolean {
  if (isMissing(v)) return false;
  if (typeof v !== 'boolean') fail(path, 'must be true or false');
  return v as boolean;
}

function record(v: unknown, path: Path): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, 'must be an object');
  return v as Record<string, unknown>;
}

function list<T>(v: unknown, path: Path, item: (v: unknown, path: Path) => T): T[] {
  if (isMissing(v)) return [];
  if (!Array.isArray(v)) fail(path, 'must be an array');
  return (v as unknown[]).map((x, i) => item(x, at(path, i)));
}

/** Graders by name in any case, or by number (the reference's enum reads both). */
function grader(v: unknown, path: Path): Grader {
  if (isMissing(v) || v === '') return 'match';
  if (typeof v === 'number' && GRADERS[v]) return GRADERS[v];
  const name =
    typeof v === 'string' && GRADERS.find((g) => g.toLowerCase() === v.trim().toLowerCase());
  if (!name) return fail(path, `must be one of ${GRADERS.join(', ')}`);
  return name;
}

/** Canary answers, trimmed, blanks dropped; undefined when none are left. */
function canaries(v: unknown, path: Path): string[] | undefined {
  const kept = list(v, path, text)
    .map((c) => c.trim())
    .filter(Boolean);
  return kept.length > 0 ? kept : undefined;
}

function question(v: unknown, path: Path): QuestionSpec {
  const q = record(v, path);
  const decoys = canaries(q.canaries, at(path, 'canaries'));
  return {
    text: text(q.text, at(path, 'text')),
    hint: text(q.hint, at(path, 'hint')),
    answer: text(q.answer, at(path, 'answer')),
    example: text(q.example, at(path, 'example')),
    weight: number(q.weight, at(path, 'weight')),
    penalty: number(q.penalty, at(path, 'penalty')),
    grader: grader(q.grader, at(path, 'grader')),
    hidden: flag(q.hidden, at(path, 'hidden')),
    isCorrect: flag(q.isCorrect, at(path, 'isCorrect')),
    isGraded: flag(q.isGraded, at(path, 'isGraded')),
    ...(decoys ? { canaries: decoys } : {}),
  };
}

/** A blank name is no name; a long one is cut to the limit. */
export function sectionName(name: string): string | null {
  return name.trim() === '' ? null : name.slice(0, SECTION_NAME_MAX);
}

function section(v: unknown, path: Path): SectionSpec {
  const s = record(v, path);
  return {
    name: sectionName(text(s.name, at(path, 'name'))),
    preReqPrevSection: number(s.preReqPrevSection, at(path, 'preReqPrevSection')),
    preReqTotal: number(s.preReqTotal, at(path, 'preReqTotal')),
    score: number(s.score, at(path, 'score')),
    text: text(s.text, at(path, 'text')),
    questions: list(s.questions, at(path, 'questions'), question),
  };
}

function iso(v: unknown, path: Path): IsoSpec | null {
  if (isMissing(v)) return null;
  const i = record(v, path);
  return {
    file: text(i.file, at(path, 'file')),
    targets: text(i.targets, at(path, 'targets')),
    downloadable: flag(i.downloadable, at(path, 'downloadable')),
    manifest: list(i.manifest, at(path, 'manifest'), text),
  };
}

/**
 * Prerequisites as fractions, the first set's 0: on every read, so that a spec saved with
 * prerequisites in points before they were normalized at save still opens its sets.
 */
function variant(v: unknown, path: Path): VariantSpec {
  const x = record(v, path);
  return normalizePrerequisites({
    text: text(x.text, at(path, 'text')),
    sections: list(x.sections, at(path, 'sections'), section),
    iso: iso(x.iso, at(path, 'iso')),
  });
}

function image(v: unknown, path: Path): ImageSpec | null {
  if (isMissing(v)) return null;
  const i = record(v, path);
  return { image: text(i.image, at(path, 'image')), script: text(i.script, at(path, 'script')) };
}

function transform(v: unknown, path: Path): Transform {
  const t = record(v, path);
  return { key: text(t.key, at(path, 'key')), value: text(t.value, at(path, 'value')) };
}

function submission(v: unknown, path: Path): SectionSubmission {
  const s = record(v, path);
  return {
    id: text(s.id, at(path, 'id')),
    timestamp: text(s.timestamp, at(path, 'timestamp')) || UNSET_DATE,
    sectionIndex: integer(s.sectionIndex, at(path, 'sectionIndex')),
    questions: list(s.questions, at(path, 'questions'), (q, p) => ({
      answer: text(record(q, p).answer, at(p, 'answer')),
    })),
  };
}

/**
 * The spec with every field present: missing and null fields take their defaults, section names
 * and prerequisites are normalized (fractions, the first set's 0), graders are read in any case.
 * Anything of the wrong type throws a ChallengeShapeError naming the field.
 */
export function normalizeChallengeSpec(value: unknown): ChallengeSpec {
  if (isMissing(value)) return emptyChallengeSpec();
  const c = record(value, '');
  return {
    text: text(c.text, 'text'),
    score: number(c.score, 'score'),
    lastScoreTime: text(c.lastScoreTime, 'lastScoreTime') || UNSET_DATE,
    maxPoints: integer(c.maxPoints, 'maxPoints'),
    maxAttempts: integer(c.maxAttempts, 'maxAttempts'),
    customizeScript: image(c.customizeScript, 'customizeScript'),
    gradingScript: image(c.gradingScript, 'gradingScript'),
    transforms: list(c.transforms, 'transforms', transform),
    variants: list(c.variants, 'variants', variant),
    submissions: list(c.submissions, 'submissions', submission),
    challenge: isMissing(c.challenge) ? null : variant(c.challenge, 'challenge'),
  };
}

/**
 * The spec stored as JSON text (a workspace's `challenge` column). Empty text is the empty spec;
 * text that is not a spec (written by an older version, or by hand) reads as the empty spec too,
 * so that the author can start over rather than be locked out of the tab.
 */
export function parseChallengeText(json: string | null | undefined): ChallengeSpec {
  if (!json || !json.trim()) return emptyChallengeSpec();
  try {
    return normalizeChallengeSpec(JSON.parse(json));
  } catch {
    return emptyChallengeSpec();
  }
}

/**
 * The Challenge tab's form (spec §2, §3, §5): the spec itself, as a draft whose number fields
 * (weights, penalties, prerequisites) hold the text being typed, so that "0." is a valid moment of
 * typing rather than a lost keystroke. Fields are addressed by dotted paths
 * (`variants.0.sections.1.questions.2.answer`), which is also how validation messages are keyed.
 */
import {
  GRADERS,
  newQuestion,
  newSection,
  newVariant,
  SECTION_NAME_MAX,
  sectionName,
  type ChallengeSpec,
  type Grader,
  type IsoSpec,
  type QuestionSpec,
  type SectionSpec,
  type VariantSpec,
} from './challenge';
import { transformValueMessage } from './transforms';

export interface QuestionDraft extends Omit<QuestionSpec, 'weight' | 'penalty' | 'canaries'> {
  weight: string;
  penalty: string;
  /** The canary answers as typed, one per line (an answer may hold a comma). */
  canaries: string;
}

export interface SectionDraft extends Omit<
  SectionSpec,
  'name' | 'preReqTotal' | 'preReqPrevSection' | 'questions'
> {
  name: string;
  preReqTotal: string;
  preReqPrevSection: string;
  questions: QuestionDraft[];
}

export interface VariantDraft extends Omit<VariantSpec, 'sections' | 'iso'> {
  sections: SectionDraft[];
  /** Always present in the form; saved as null while empty. */
  iso: IsoSpec;
}

export interface ChallengeDraft extends Omit<ChallengeSpec, 'variants'> {
  variants: VariantDraft[];
}

/** Validation messages by field path; empty when the draft may be saved. */
export type ChallengeMessages = Record<string, string>;

/** spec §5: penalty, weight and prerequisites "must match a digits pattern". */
export const DIGITS_PATTERN = /^(\d+\.?\d*|\.\d+)?$/;

export const MESSAGES = {
  questionText: 'Please enter the question.',
  answer: 'Please enter the answer.',
  digits: 'Digits only, e.g. 0.25 or 25.',
  sectionName: `At most ${SECTION_NAME_MAX} characters.`,
  transformKey: 'Please enter a key.',
} as const;

const numberText = (n: number): string => (n === 0 ? '' : String(n));
const textNumber = (text: string): number => (text.trim() === '' ? 0 : Number(text) || 0);

const emptyIso = (): IsoSpec => ({ file: '', targets: '', downloadable: false, manifest: [] });

const questionDraft = (q: QuestionSpec): QuestionDraft => ({
  ...q,
  weight: numberText(q.weight),
  penalty: numberText(q.penalty),
  canaries: (q.canaries ?? []).join('\n'),
});

/** Canary answers from their text: one per line, trimmed, blank lines dropped. */
export const canaryList = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

const sectionDraft = (s: SectionSpec): SectionDraft => ({
  ...s,
  name: s.name ?? '',
  preReqTotal: numberText(s.preReqTotal),
  preReqPrevSection: numberText(s.preReqPrevSection),
  questions: s.questions.map(questionDraft),
});

const variantDraft = (v: VariantSpec): VariantDraft => ({
  ...v,
  sections: v.sections.map(sectionDraft),
  iso: v.iso ?? emptyIso(),
});

export function draftOf(spec: ChallengeSpec): ChallengeDraft {
  return { ...spec, variants: spec.variants.map(variantDraft) };
}

const isEmptyIso = (iso: IsoSpec) =>
  !iso.file.trim() && !iso.targets.trim() && !iso.downloadable && iso.manifest.length === 0;

/** The spec to save: numbers from their text, blank names null, an empty ISO left out. */
export function specOf(draft: ChallengeDraft): ChallengeSpec {
  return {
    ...draft,
    variants: draft.variants.map((v) => ({
      ...v,
      iso: isEmptyIso(v.iso) ? null : v.iso,
      sections: v.sections.map((s, i) => ({
        ...s,
        name: sectionName(s.name),
        // The first set is always open (the server forces it too).
        preReqTotal: i === 0 ? 0 : textNumber(s.preReqTotal),
        preReqPrevSection: i === 0 ? 0 : textNumber(s.preReqPrevSection),
        questions: s.questions.map(({ canaries, ...q }) => {
          const decoys = canaryList(canaries);
          return {
            ...q,
            weight: textNumber(q.weight),
            penalty: textNumber(q.penalty),
            // Left out when there are none, as the server writes a question without them.
            ...(decoys.length > 0 ? { canaries: decoys } : {}),
          };
        }),
      })),
    })),
  };
}

/** Every field that breaks a rule of spec §5, with the message shown beside it. */
export function validateDraft(draft: ChallengeDraft): ChallengeMessages {
  const messages: ChallengeMessages = {};
  draft.transforms.forEach((t, i) => {
    if (!t.key.trim()) messages[`transforms.${i}.key`] = MESSAGES.transformKey;
    const value = transformValueMessage(t.value);
    if (value) messages[`transforms.${i}.value`] = value;
  });
  draft.variants.forEach((v, vi) =>
    v.sections.forEach((s, si) => {
      const section = `variants.${vi}.sections.${si}`;
      if (s.name.length > SECTION_NAME_MAX) messages[`${section}.name`] = MESSAGES.sectionName;
      if (si > 0) {
        for (const field of ['preReqTotal', 'preReqPrevSection'] as const) {
          if (!DIGITS_PATTERN.test(s[field].trim()))
            messages[`${section}.${field}`] = MESSAGES.digits;
        }
      }
      s.questions.forEach((q, qi) => {
        const question = `${section}.questions.${qi}`;
        if (!q.text.trim()) messages[`${question}.text`] = MESSAGES.questionText;
        if (!q.answer.trim()) messages[`${question}.answer`] = MESSAGES.answer;
        for (const field of ['weight', 'penalty'] as const) {
          if (!DIGITS_PATTERN.test(q[field].trim()))
            messages[`${question}.${field}`] = MESSAGES.digits;
        }
      });
    }),
  );
  return messages;
}

const isIndex = (segment: string) => /^\d+$/.test(segment);

/** Whether `path` is the item or field at `item`, or lies inside it. */
export const isWithin = (path: string, item: string): boolean =>
  path === item || path.startsWith(`${item}.`);

/**
 * Where the item or field at `path` is once the list item `removed` is gone: null when it was
 * inside it, one index lower when it came after it in the same list, else where it was.
 */
export function pathAfterRemoval(path: string, removed: string): string | null {
  if (isWithin(path, removed)) return null;
  const segments = removed.split('.');
  const index = Number(segments.pop());
  const list = segments.join('.');
  if (!path.startsWith(`${list}.`)) return path;
  const [head = '', ...rest] = path.slice(list.length + 1).split('.');
  if (!isIndex(head) || Number(head) < index) return path;
  return [list, String(Number(head) - 1), ...rest].join('.');
}

/** The value at a dotted path, or undefined. */
export function valueAt(draft: ChallengeDraft, path: string): unknown {
  let node: unknown = draft;
  for (const segment of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** A copy of `node` with `update` applied at `segments`; the same object when the path is absent. */
function updateAt(
  node: unknown,
  segments: string[],
  update: (current: unknown) => unknown,
): unknown {
  const [head, ...rest] = segments;
  if (head === undefined) return update(node);
  if (Array.isArray(node)) {
    if (!isIndex(head) || Number(head) >= node.length) return node;
    const i = Number(head);
    const next = updateAt(node[i], rest, update);
    return next === node[i] ? node : node.map((x, j) => (j === i ? next : x));
  }
  if (node === null || typeof node !== 'object' || !(head in node)) return node;
  const record = node as Record<string, unknown>;
  const next = updateAt(record[head], rest, update);
  return next === record[head] ? node : { ...record, [head]: next };
}

const isGrader = (value: unknown): value is Grader =>
  (GRADERS as readonly unknown[]).includes(value);

/**
 * The draft with one field changed. Only an existing field of the same kind changes (text for
 * text, a flag for a flag, a grader name for a grader); anything else leaves the draft as it was.
 */
export function editDraft(
  draft: ChallengeDraft,
  path: string,
  value: string | boolean,
): ChallengeDraft {
  return updateAt(draft, path.split('.'), (current) => {
    if (path.endsWith('.grader')) return isGrader(value) ? value : current;
    return typeof current === typeof value && current !== undefined ? value : current;
  }) as ChallengeDraft;
}

/** The lists the form adds to, by the last segment of their path. */
const NEW_ITEMS: Record<string, () => unknown> = {
  transforms: () => ({ key: '', value: '' }),
  variants: () => variantDraft(newVariant()),
  sections: () => sectionDraft(newSection()),
  questions: () => questionDraft(newQuestion()),
};

/** The draft with a new, empty item at the end of the list at `listPath`. */
export function addItem(draft: ChallengeDraft, listPath: string): ChallengeDraft {
  const make = NEW_ITEMS[listPath.split('.').pop() ?? ''];
  if (!make) return draft;
  return updateAt(draft, listPath.split('.'), (list) =>
    Array.isArray(list) ? [...list, make()] : list,
  ) as ChallengeDraft;
}

/** The draft without the list item at `itemPath` (`variants.0.sections.1`). */
export function removeItem(draft: ChallengeDraft, itemPath: string): ChallengeDraft {
  const segments = itemPath.split('.');
  const index = segments.pop();
  if (index === undefined || !isIndex(index) || !NEW_ITEMS[segments[segments.length - 1] ?? ''])
    return draft;
  return updateAt(draft, segments, (list) =>
    Array.isArray(list) && Number(index) < list.length
      ? list.filter((_, i) => i !== Number(index))
      : list,
  ) as ChallengeDraft;
}
